"""The first process of every command cast runs: `python -I -S launch.py SPEC -- bash -c ...`.

It exists because a process group is not a boundary: GNU `timeout`, `setsid` and daemons leave
it. The launcher makes itself a child subreaper, so every orphan in the tree becomes its child
and stays findable; when the command ends, or cast sends SIGTERM, it kills every descendant it
can find and reaps them before it exits. It also applies the Landlock policy (and drops root's
capabilities) to itself before the command starts, so nothing below it can undo them. It fails
closed: if the policy in SPEC cannot be applied, the command does not run.

Standard library only, and run with -I -S: neither PYTHONPATH nor site-packages can change it.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from cast.sandbox import landlock  # after the path is pinned to this tree

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT = 1, 36, 24, 47
REFUSED = 125  # the launcher could not set up the sandbox; the command never ran
KILL_BUDGET = 1.0


class _Stop(Exception):
    pass


def _on_signal(signum: int, _frame: object) -> None:
    raise _Stop(signum)


def drop_capabilities(libc: ctypes.CDLL) -> None:
    """Root inside the sandbox must not be able to reboot, set the clock or load modules: empty
    the bounding set (no exec can regain anything) and then every capability set."""
    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    children, found, todo = _children_map(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_tree() -> None:
    """SIGKILL everything below us until nothing is left; killed processes cannot fork, and the
    children of killed ones are reparented to us, so each round finds what the last one missed."""
    deadline = time.monotonic() + KILL_BUDGET
    while time.monotonic() < deadline:
        _reap()
        found = descendants(os.getpid())
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)


def _status(raw: int) -> int:
    return 128 + os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: launch.py SPEC -- COMMAND...\n")
        return 2
    spec, command = json.loads(argv[1]), argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _on_signal)
    try:
        if spec.get("landlock"):
            landlock.restrict(spec.get("write", []), bool(spec.get("net")), spec.get("files", []))
        if spec.get("drop_caps") and os.geteuid() == 0:
            drop_capabilities(libc)
    except OSError as exc:
        sys.stderr.write(f"cast sandbox: cannot apply the sandbox ({exc}); the command did not run\n")
        return REFUSED
    status = 0
    try:
        child = os.fork()
        if child == 0:
            for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(signum, signal.SIG_DFL)
            try:
                os.execvp(command[0], command)
            finally:
                os._exit(127)
        while True:
            pid, raw = os.waitpid(-1, 0)
            if pid == child:
                status = _status(raw)
                break
    except _Stop as stop:
        status = 128 + int(stop.args[0])
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        kill_tree()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
