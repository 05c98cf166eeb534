"""The fork server: one bare Python started once per cast process, which forks a copy of itself
for each command the launcher would have started (no sandbox layer, or Landlock), so no new
interpreter starts per command.

Why not `subprocess.Popen(preexec_fn=...)` in cast itself: cast has threads (the output reader,
parallel read-only calls, MCP's event loop, the journal syncer), and a fork of a threaded
process may hold a lock another thread had taken (malloc's, the import lock, a logging handler's)
with no thread left to release it; Python's own documentation calls preexec_fn unsafe with
threads. This process has one thread, so forking it is safe, and its copy runs the launcher's
own code (launch.run), already imported: the subreaper, the pid cap, Landlock, and in the
command's process the rlimits, no capabilities and the filter (built once here, before the
first fork). Each copy (the "keeper") is a session leader and cast's handle on the command: cast
signals its group, waits on its pidfd and reads its exit status from a pipe, since only this
process can wait for it.

Requests come over a SOCK_SEQPACKET socket, one message each: the marshalled spec, argv, env and
cwd, with stdin, stdout, stderr and the status pipe's write end passed as fds (SCM_RIGHTS); the
answer is the keeper's pid. When cast goes away (the socket reads EOF), this process exits, and
each keeper, whose parent-death signal is SIGTERM, kills its tree and exits too.

This process is a child subreaper too: a keeper killed before its tree kill ran (by the command
itself where no pid namespace hides it, or by cast's SIGKILL after a status the command forged
into the keeper's pipe) leaves its orphans to us, and any child of ours that is not a keeper is
such an orphan, killed at once.

Standard library only, run with -I -S like the launcher.
"""

from __future__ import annotations

import _signal as signal
import marshal
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

MAX_REQUEST = 1 << 20  # argv + env + spec: a command is at most 16 KB, an environment rarely more than 100 KB
_PR_SET_CHILD_SUBREAPER = 36
_KEEPERS: set[int] = set()
ORPHAN_BUDGET = 1.0


def _reap(_signum: int, _frame: object) -> None:
    """Keepers exit on their own; reap them at once, so cast never waits on a zombie's group.
    Then kill every orphan a dead keeper left us, until none is left."""
    from cast.sandbox import launch  # loaded by _prepare before the first fork: a lookup here, not a load

    deadline = time.monotonic() + ORPHAN_BUDGET
    while True:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                break
            _KEEPERS.discard(pid)
        children = launch._children(os.getpid())
        if children is None:
            children = launch._children_map().get(os.getpid(), [])
        orphans = [child for child in children if child not in _KEEPERS]
        if not orphans or time.monotonic() > deadline:
            return
        for orphan in orphans:
            try:
                os.kill(orphan, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)


def _prepare() -> None:
    """What every command would otherwise load or build: ctypes, Landlock, the filters."""
    import ctypes  # noqa: F401
    import resource  # noqa: F401

    from cast.sandbox import landlock, launch, seccomp  # noqa: F401  (deferred: loaded here, once, for every fork to share)

    if seccomp.supported():
        seccomp.program(seccomp.LOCAL_ONLY)
        seccomp.program(seccomp.WITH_INET)


def _keeper(conn: socket.socket, request: dict, fds: list[int]) -> None:  # type: ignore[type-arg]
    """In the forked copy: become the command's session leader with its stdio and cwd, then be
    its launcher. Never returns."""
    code = 125
    status = fds[3]
    try:
        conn.close()
        os.setsid()
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2 and fd != status:
                os.close(fd)
        os.set_inheritable(status, False)  # the command must not hold it: its EOF says the keeper is gone
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        os.chdir(request["cwd"])
        from cast.sandbox import launch  # loaded by _prepare before the first fork: a lookup here, not a load

        code = launch.run(request["spec"], request["argv"], request["env"], held=True)
    except SystemExit as done:  # the pid cap's outer process ends with its inner one's status
        code = done.code if isinstance(done.code, int) else 1
    except BaseException as exc:
        try:
            os.write(2, f"cast: cannot start the command ({exc})\n".encode())
        except OSError:
            pass
    finally:
        if os.getpid() == request["keeper"][0]:
            try:
                os.write(status, code.to_bytes(4, "little", signed=True))
            except OSError:
                pass
        os._exit(code)


def serve(conn: socket.socket) -> int:
    _prepare()
    from cast.sandbox import launch  # loaded by _prepare just above: a lookup here, not a load

    launch._prctl(_PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGCHLD, _reap)
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    while True:
        try:
            data, fds, _flags, _addr = socket.recv_fds(conn, MAX_REQUEST, 4)
        except OSError:
            return 0
        if not data:
            return 0  # cast is gone
        try:
            request = marshal.loads(data)
            if len(fds) != 4:
                raise ValueError("a request carries four fds")
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # a keeper is known before _reap can run
            try:
                pid = os.fork()
                if pid == 0:
                    request["keeper"] = (os.getpid(),)
                    _keeper(conn, request, fds)
                _KEEPERS.add(pid)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            answer = pid
        except (ValueError, EOFError, TypeError, KeyError, OSError):
            answer = -1
        for fd in fds:
            os.close(fd)
        try:
            conn.send(answer.to_bytes(8, "little", signed=True))
        except OSError:
            return 0


def main(argv: list[str]) -> int:
    return serve(socket.socket(fileno=int(argv[1])))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
