"""cast's side of the fork server (forkserver.py): started once per cast process, on the first
command that needs the launcher (no sandbox layer, or Landlock), and asked for one keeper per
command. `Spawned` stands where a Popen of the launcher stood: a pid whose group cast signals,
`poll()` and `wait()`; the status comes from a pipe the keeper writes before it exits, and a
keeper killed before it could write reads as SIGKILL.

When the server cannot be started or has gone, `spawn` returns None and the caller starts the
launcher as a process of its own, as before: slower, never weaker.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from cast.sandbox.policy import launcher

_START = (
    f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r}); "
    "from cast.sandbox.forkserver import main; sys.exit(main(sys.argv))"
)
ANSWER_SECONDS = 30.0  # a fork answers in milliseconds; the first request waits for Python to start
_LOCK = threading.Lock()
_SERVER: list[tuple[subprocess.Popen[bytes], socket.socket]] = []


class Spawned:
    """A command's keeper, as run_command needs it."""

    def __init__(self, pid: int, status: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._status = status

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"keeper {self.pid}", timeout or 0)
            self._read(left)
        return self.returncode

    def _read(self, timeout: float | None) -> None:
        ready, _, _ = select.select([self._status], [], [], timeout)
        if not ready:
            return
        data = os.read(self._status, 4)
        os.close(self._status)
        self._status = -1
        self.returncode = int.from_bytes(data, "little", signed=True) if len(data) == 4 else -signal.SIGKILL

    def __del__(self) -> None:
        if self._status >= 0:
            os.close(self._status)


def spawn(spec: dict[str, object], argv: list[str], env: dict[str, str], cwd: str, stdout: int, stderr: int) -> Spawned | None:
    """Start `argv` under the launcher's `spec` in a keeper; None when the fork server is not there."""
    request = marshal.dumps({"spec": spec, "argv": argv, "env": env, "cwd": cwd})
    status_r, status_w = os.pipe()
    stdin = os.open(os.devnull, os.O_RDONLY)
    try:
        with _LOCK:
            conn = _connection()
            if conn is None:
                os.close(status_r)
                return None
            try:
                socket.send_fds(conn, [request], [stdin, stdout, stderr, status_w])
                answer = conn.recv(8)
            except OSError:  # gone, or stuck past the timeout: killed, so no keeper it made runs untracked
                _SERVER.pop()[0].kill()
                answer = b""
        pid = int.from_bytes(answer, "little", signed=True) if len(answer) == 8 else -1
        if pid <= 0:
            os.close(status_r)
            return None
        return Spawned(pid, status_r)
    finally:
        os.close(status_w)
        os.close(stdin)


def launched(argv: list[str]) -> tuple[dict[str, object], list[str]] | None:
    """The spec and the command of an argv that starts with the launcher (what wrap() gives
    without bubblewrap), so the fork server can run it instead; None for any other argv."""
    prefix = launcher({})[:5]
    if argv[:5] != prefix or len(argv) < 7 or argv[6] != "--":
        return None
    return marshal.loads(bytes.fromhex(argv[5])), argv[7:]


def enabled() -> bool:
    """CAST_FORKSERVER=0 starts the launcher as a process of its own for every command (how the
    suites prove that path still holds, and what the benchmark compares against)."""
    return os.environ.get("CAST_FORKSERVER", "1") != "0"


def _connection() -> socket.socket | None:
    """The running server's socket, starting the server the first time (under _LOCK)."""
    if _SERVER and _SERVER[0][0].poll() is None:
        return _SERVER[0][1]
    _SERVER.clear()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _START, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={"PATH": os.defpath},  # it runs nothing with its own environment: each command brings one
            start_new_session=True,  # Ctrl+C at the terminal reaches cast, which stops commands itself
        )
    except OSError:
        ours.close()
        return None
    finally:
        theirs.close()
    ours.settimeout(ANSWER_SECONDS)
    _SERVER.append((proc, ours))
    return ours
