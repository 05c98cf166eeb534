"""Run one shell command the way an agent should: no stdin, its own process group, a hard
timeout, cancellable, and with output kept as head + tail so a 5 MB log cannot flood the context.

Whatever happens (timeout, Ctrl+C, an exception in cast), the command's whole process tree is
killed before this returns, including processes that left its group or session (under bubblewrap
its pid namespace holds them, cast/sandbox/direct.py; elsewhere the launcher in
cast/sandbox/launch.py is their subreaper): a command cannot leave children running behind the
session, and output is read with a deadline, so a pipe held open elsewhere cannot hang cast. A Ctrl+C
that lands here becomes an interrupted result (with the output so far) and sets the run's cancel
event: the command did run, and the observation must say so.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cast.sandbox import direct, spawn
from cast.sandbox.denials import LAUNCHER_REFUSED
from cast.sandbox.environment import sandbox_env
from cast.sandbox.limits import settings
from cast.sandbox.policy import Policy, detect, prepare
from cast.sandbox.scratch import new as new_scratch
from cast.sandbox.visible import one_look
from cast.tools.command_env import hardened_env
from cast.tools.command_env import private_git_index as private_git_index  # where callers found them
from cast.tools.command_env import read_only_env as read_only_env
from cast.tools.liveline import LiveLine

KEEP_BYTES = 15_000  # of head, and again of tail
POLL_SECONDS = 0.05
GRACE_SECONDS = 1.0
DRAIN_SECONDS = 0.5


@dataclass(frozen=True)
class CommandResult:
    exit_code: int
    head: str
    tail: str
    total_bytes: int
    timed_out: bool = False
    interrupted: bool = False
    seconds: float = 0.0
    sandbox: str = ""  # the kernel layer and policy it ran under, e.g. "bubblewrap read-only"; "" for none

    @property
    def truncated(self) -> bool:
        return self.total_bytes > len(self.head.encode("utf-8", "replace")) + len(self.tail.encode("utf-8", "replace"))

    @property
    def output(self) -> str:
        """All of it when it fit; else head and tail around a marker giving the real size."""
        if not self.truncated:
            return self.head + self.tail
        shown = len(self.head) + len(self.tail)
        return f"{self.head}\n[truncated: showed {shown} of {self.total_bytes} chars]\n{self.tail}"


class _Collector:
    def __init__(self) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail.append(chunk)
            self.tail_size += len(chunk)
            while self.tail_size - len(self.tail[0]) >= KEEP_BYTES:
                self.tail_size -= len(self.tail.popleft())

    def texts(self) -> tuple[str, str]:
        tail = b"".join(self.tail)[-KEEP_BYTES:]
        if len(self.head) + len(tail) == self.total:  # nothing dropped: decode as one piece
            return (bytes(self.head) + tail).decode("utf-8", "replace"), ""
        return self.head.decode("utf-8", "replace"), tail.decode("utf-8", "replace")


def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    cancel: threading.Event | None = None,
    env: dict[str, str] | None = None,
    sandbox: Policy | None = None,
    on_line: Callable[[str], None] | None = None,
) -> CommandResult:
    """Run `bash -c command` under the launcher (which tracks and kills the whole tree) and, when
    `sandbox` is given, inside the kernel layer with a private scratch dir as TMPDIR. `on_line`
    hears the newest line of stdout and stderr while it runs (liveline.py), on the calling thread,
    which reads the output as it waits for the exit; the result is the same with or without it."""
    started = time.monotonic()
    layer = detect() if sandbox is not None else None
    with one_look():  # the scratch dir and the mounts from one View
        scratch, scratch_size = new_scratch(sandbox, layer) if layer is not None else (None, None)
        env = dict(env or hardened_env())
        if scratch:  # the allowlisted environment needs no kernel layer: without one it still keeps secrets out
            env = sandbox_env(env, scratch, settings().passthrough, make_home=scratch_size is None)
        index = env.get("GIT_INDEX_FILE")  # a private copy (private_git_index) lives outside the workspace
        readable = (os.path.dirname(index),) if index else ()
        argv, handoff = prepare(
            ["bash", "--noprofile", "--norc", "-c", command], sandbox, scratch, layer, str(cwd), readable, scratch_size
        )
    if scratch_size is not None:
        scratch = None  # nothing on the host to remove
    read_fd, write_fd = os.pipe()
    popen = {"cwd": cwd, "stdin": subprocess.DEVNULL, "stdout": write_fd, "stderr": write_fd, "env": env}
    try:
        if handoff is not None:
            proc: subprocess.Popen[bytes] | spawn.Spawned = direct.start(argv, handoff, timeout, **popen)
        else:
            proc = _kept(argv, env, cwd, write_fd) or subprocess.Popen(argv, start_new_session=True, **popen)  # type: ignore[call-overload]
    except direct.Refused as exc:
        os.close(read_fd)
        _discard(scratch)
        text = f"cast sandbox: cannot apply the sandbox ({exc}); the command did not run\n"
        return CommandResult(LAUNCHER_REFUSED, text, "", len(text), seconds=time.monotonic() - started)
    except BaseException:
        os.close(read_fd)
        _discard(scratch)
        raise
    finally:
        os.close(write_fd)
    collector = _Collector()
    output = _Output(read_fd, collector, LiveLine(on_line) if on_line is not None else None)
    timed_out = interrupted = False
    exited = _ExitWaiter(proc.pid)
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                interrupted = True
                break
            if time.monotonic() - started > timeout:
                timed_out = True
                break
            output.wait(exited, min(POLL_SECONDS, max(0.0, timeout - (time.monotonic() - started))))
    except KeyboardInterrupt:  # Ctrl+C in a one-shot run: stop, and report what the command did
        interrupted = True
        if cancel is not None:
            cancel.set()
    finally:
        exited.close()
        _kill_group(proc, output.pause)
        output.drain(DRAIN_SECONDS)  # EOF comes at once unless something escaped and holds the pipe
        output.close()
        _discard(scratch)
    head, tail = collector.texts()
    code = proc.returncode if proc.returncode is not None else -9
    if timed_out:
        code = 124
    used = f"{layer.name} {sandbox.name}" if layer is not None and sandbox is not None and layer.active else ""
    return CommandResult(code, head, tail, collector.total, timed_out, interrupted, time.monotonic() - started, used)


def _kept(argv: list[str], env: dict[str, str], cwd: Path, output: int) -> spawn.Spawned | None:
    """The launcher's work done by a keeper forked from the fork server (sandbox/spawn.py), not by
    a new Python; None when the argv is not the launcher's or the server is not there."""
    launched = spawn.launched(argv) if spawn.enabled() else None
    if launched is None:
        return None
    return spawn.spawn(launched[0], launched[1], env, str(cwd), output, output)


def _discard(scratch: str | None) -> None:
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


class _ExitWaiter:
    """Sleeps up to N seconds, waking the moment the process exits (a pidfd where the kernel has
    them): a command that takes 5 ms is not charged a whole polling interval."""

    def __init__(self, pid: int) -> None:
        try:
            self.fd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.fd = None

    def wait(self, seconds: float) -> None:
        if self.fd is None:
            time.sleep(seconds)
        else:
            select.select([self.fd], [], [], seconds)

    def wait_with(self, fd: int, seconds: float) -> bool:
        """As wait, and also woken by `fd` becoming readable: is it?"""
        try:
            ready = select.select([fd] if self.fd is None else [fd, self.fd], [], [], seconds)[0]
        except OSError:
            return True  # the read that follows fails and ends the output
        return fd in ready

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class _Output:
    """The command's output, read on the calling thread while it waits for the command's exit:
    one select over the pipe and the exit (a pidfd) wakes for either, so no reader thread is
    started and joined per command (on a loaded machine a thread's start alone cost a millisecond
    or more). Never blocks on a pipe an escaped process keeps open: every read is bounded."""

    def __init__(self, fd: int, collector: _Collector, live: LiveLine | None) -> None:
        self.fd, self.collector, self.live = fd, collector, live
        self.done = False  # EOF seen, or the pipe failed

    def wait(self, exited: _ExitWaiter, seconds: float) -> None:
        """Up to `seconds`: read what arrives, return early when the command exits."""
        if self.done:
            exited.wait(seconds)
            return
        ready = exited.wait_with(self.fd, seconds)
        if ready:
            self._read()
        elif self.live is not None:
            self.live.tick()  # a held-back line, or one that has waited long enough for its newline

    def pause(self, seconds: float) -> None:
        """_kill_group's pause: the output keeps being read while the tree is told to go."""
        if self.done:
            time.sleep(seconds)
        elif _readable(self.fd, seconds):
            self._read()

    def drain(self, seconds: float) -> None:
        """Read until EOF, for at most `seconds`."""
        deadline = time.monotonic() + seconds
        while not self.done and time.monotonic() < deadline:
            if _readable(self.fd, min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))):
                self._read()
            elif self.live is not None:
                self.live.tick()

    def _read(self) -> None:
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            self.done = True
            return
        self.collector.add(chunk)
        if self.live is not None:
            self.live.feed(chunk)

    def close(self) -> None:
        os.close(self.fd)
        if self.live is not None:
            self.live.close()


def _readable(fd: int, seconds: float) -> bool:
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    except OSError:
        return True  # the read that follows fails and ends the output


def _kill_group(proc: subprocess.Popen[bytes] | spawn.Spawned, pause: Callable[[float], None] = time.sleep) -> None:
    """TERM the group (the launcher then kills every descendant, wherever it moved), give it a
    moment, then KILL. A keeper (spawn.py) reports its status only once it has killed and reaped
    its tree, so then only a KILL to its group follows, for anything past its kill budget: its
    own exit is reaped by the fork server, not here."""
    kept = isinstance(proc, spawn.Spawned)
    try:
        if not (kept and proc.poll() is not None):
            os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        proc.poll()
        return
    deadline, step = time.monotonic() + GRACE_SECONDS, 0.001
    while time.monotonic() < deadline:
        if proc.poll() is not None and (kept or not _group_alive(proc.pid)):
            if kept:
                _kill_quietly(proc.pid)
            return
        pause(step)  # run_command's pause reads the output meanwhile
        step = min(step * 2, 0.02)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _kill_quietly(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
