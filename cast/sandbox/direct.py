"""Bubblewrap without cast's Python launcher: what the launcher applied inside, applied by bwrap
itself or from outside, so a sandboxed command costs one bwrap start and no Python start.

- The tree: bwrap's pid namespace. Its pid 1 (bwrap's own reaper) reports the command's exit and
  bwrap exits; `--die-with-parent` takes pid 1 with it, and the kernel kills whatever is left in the
  namespace (daemons, `setsid`, double forks). cast's SIGTERM to bwrap's group ends the same way.
- The filter: built once per process (`seccomp.program`), handed over with `--seccomp FD`.
- Capabilities: `--cap-drop ALL` empties every set, the bounding set included.
- Processes: bwrap writes its namespace's `pid_max` itself (`--file FD /proc/sys/kernel/pid_max`)
  and then remounts `/proc` read-only, because root in that namespace may write `pid_max` without
  any capability; no capability is left to remount it.
- rlimits: bwrap has no option for them, so bwrap waits after its set-up (`--block-fd`), cast
  learns its child's pid (`--info-fd`), sets the limits on it with prlimit(2) and only then lets
  it go on: its pid 1 and the command inherit them. When any step fails, cast kills bwrap before
  letting go (`abort`), so a command never runs without its limits.
"""

from __future__ import annotations

import os
import re
import resource
import select
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

PID_MAX = "/proc/sys/kernel/pid_max"
_CHILD_PID = re.compile(rb'"child-pid":\s*(\d+)')


class Refused(OSError):
    """The sandbox could not be set up around the command, which never ran."""


def _pipe_with(data: bytes) -> int:
    """A pipe's read end holding `data` and then EOF (what bwrap's --file and --seccomp read)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    return read_end


@dataclass
class Handoff:
    """One bwrap run's side channels: the fds its argv names, and the limits cast sets on its child."""

    rlimits: dict[str, int]
    pid_max: int | None
    seccomp: bytes | None
    child_fds: list[int] = field(default_factory=list)
    _info: int = -1
    _block: int = -1

    def args(self) -> list[str]:
        """bwrap options; each names an fd the child gets through `pass_fds` (opened here)."""
        argv: list[str] = []
        if self.pid_max is not None:
            argv += ["--file", str(self._keep(_pipe_with(str(self.pid_max).encode()))), PID_MAX]
        argv += ["--remount-ro", "/proc"]
        if self.seccomp is not None:
            argv += ["--seccomp", str(self._keep(_pipe_with(self.seccomp)))]
        self._info, info_child = os.pipe()
        block_child, self._block = os.pipe()
        argv += ["--info-fd", str(self._keep(info_child)), "--block-fd", str(self._keep(block_child))]
        return argv

    def _keep(self, fd: int) -> int:
        self.child_fds.append(fd)
        return fd

    def spawned(self) -> None:
        """After the spawn (or its failure): the child's ends are the child's alone now."""
        for fd in self.child_fds:
            os.close(fd)
        self.child_fds.clear()

    def release(self, timeout: float) -> None:
        """Set the limits on bwrap's waiting child, then let it go on. Raises OSError when it
        cannot; the caller must then `abort` (kill bwrap) before anything else."""
        pid = self._child_pid(timeout)
        for name, value in self.rlimits.items():
            resource.prlimit(pid, getattr(resource, f"RLIMIT_{name}"), (value, value))
        os.write(self._block, b"1")
        self.close()

    def _child_pid(self, timeout: float) -> int:
        deadline, data = time.monotonic() + timeout, b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self._info], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(self._info, 4096) if ready else b""
            if not chunk:
                break
            data += chunk
        found = _CHILD_PID.search(data)
        if found is None:
            raise Refused("bubblewrap did not start its sandbox")
        return int(found[1])

    def close(self) -> None:
        """Only once bwrap is released or dead: closing the block fd unblocks a waiting child."""
        for fd in (self._info, self._block):
            if fd >= 0:
                os.close(fd)
        self._info = self._block = -1


def start(argv: list[str], handoff: Handoff, timeout: float, **popen: Any) -> subprocess.Popen[bytes]:
    """Popen bwrap in its own session, set the child's limits and let it go on; Refused (with
    bwrap killed) when the limits cannot be set. Python's ignored SIGPIPE and SIGXFSZ stay ignored,
    as the launcher (a Python process) always left them: past the file-size limit a write fails
    with EFBIG, which the command can report, instead of a signal killing it."""
    try:
        proc = subprocess.Popen(argv, pass_fds=tuple(handoff.child_fds), start_new_session=True, restore_signals=False, **popen)
    except BaseException:
        handoff.close()
        raise
    finally:
        handoff.spawned()
    try:
        handoff.release(timeout)
    except BaseException as exc:
        abort(proc)
        handoff.close()
        if isinstance(exc, OSError) and not isinstance(exc, Refused):
            raise Refused(f"cannot set the limits: {exc.strerror or exc}") from exc
        raise
    return proc


def abort(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL bwrap and its waiting child (still in bwrap's group: it leaves it only after the
    wait), before the block fd closes and would let the child go on."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
