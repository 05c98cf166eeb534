"""The first process of every command cast runs: `python -I -S -c <import this> SPEC -- bash -c ...`.

It exists because a process group is not a boundary: GNU `timeout`, `setsid` and daemons leave
it. The launcher makes itself a child subreaper, so every orphan in the tree becomes its child
and stays findable; when the command ends, or cast sends SIGTERM, it kills every descendant it
can find and reaps them before it exits. It also applies what SPEC asks before the command
starts, so nothing below it can undo them: a capped pid namespace, then, to itself, Landlock, the
rlimits, no capabilities and the seccomp filter, which the command inherits (started with
posix_spawn: no copy of this process per command). Where that would leave the launcher in the
command's reach, a launcher process of its own under Landlock with no pid namespace, a fork of it
confines itself and execs the command instead, and the launcher stays outside (_start_outside).
It fails closed:
if the policy in SPEC cannot be applied, the command does not run (the pid cap alone is best
effort, and cast.sandbox.policy.isolation() says where it holds).

Standard library only, and run with -I -S: neither PYTHONPATH nor site-packages can change it.
bash commands get its code in a fork of cast's fork server (forkserver.py); MCP servers, hooks and
the bubblewrap fallback start it as a process (under bubblewrap, commands need none:
cast/sandbox/direct.py). It imports
little: the spec is marshal (no json, hence no re), signals come from `_signal` (no enum), prctl is
called through `_ctypes` (importing ctypes costs more than Python's own start on a loaded machine),
and ctypes, Landlock and seccomp load only when the spec asks.
"""

from __future__ import annotations

import _signal as signal
import marshal
import os
import sys
import time

from cast.sandbox import seccomp

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ctypes

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER, _PR_CAPBSET_DROP, _PR_CAP_AMBIENT = 1, 36, 24, 47
_CLONE_NEWPID = 0x20000000
REFUSED = 125  # the launcher could not set up the sandbox; the command never ran
KILL_BUDGET = 1.0
_PID_ONE = [False]


class _Stop(Exception):
    pass


def _on_signal(signum: int, _frame: object) -> None:
    raise _Stop(signum)


def drop_capabilities(libc: ctypes.CDLL) -> None:
    """Root inside the sandbox must not be able to reboot, set the clock or load modules: empty
    the bounding set (no exec can regain anything) and then every capability set."""
    import ctypes

    for cap in range(64):
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def _children(pid: int) -> list[int] | None:
    """A process's children from /proc/PID/task/*/children (CONFIG_PROC_CHILDREN); None when the
    kernel does not have the file."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(child) for child in handle.read().split()]
        except FileNotFoundError:
            return None if task == str(pid) else found
        except OSError:
            pass
    return found


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
    """Walks down from `pid` through the children files where the kernel has them (a few reads),
    else maps every process on the machine by its parent."""
    found, todo = [], [pid]
    while todo:
        below = _children(todo.pop())
        if below is None:
            return _descendants_by_scan(pid)
        found += below
        todo += below
    return found


def _descendants_by_scan(pid: int) -> list[int]:
    children, found, todo = _children_map(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _reap() -> bool:
    """Reap what has exited; True when no child is left at all. As a subreaper, no child means no
    descendant: a process whose parent dies becomes ours, so any living one hangs below a child."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False


def kill_tree() -> None:
    """SIGKILL everything below us until nothing is left; killed processes cannot fork, and the
    children of killed ones are reparented to us, so each round finds what the last one missed."""
    deadline = time.monotonic() + KILL_BUDGET
    while time.monotonic() < deadline:
        if _reap():
            return
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


def _count_processes(uid: int) -> int:
    count = 0
    for name in os.listdir("/proc"):
        try:
            count += name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid
        except OSError:
            pass
    return count


def kernel_at_least(major: int, minor: int) -> bool:
    try:
        found = tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return found >= (major, minor)


def _pid_cap(libc: ctypes.CDLL, pid_max: int, nested: bool) -> bool:
    """Cap how many processes the command can have at once: a pid namespace whose pid_max the
    command cannot change, because the command runs in a namespace below it (each process holds a
    pid at every level, and a write to pid_max reaches only the writer's own namespace). Under
    bubblewrap (`nested`) we already are in a private pid namespace; otherwise, as root, a child
    is made pid 1 of a new one first. Only where pid_max is per namespace (Linux 6.14): on an
    older kernel the write would change the whole machine's."""
    if not kernel_at_least(6, 14):
        return False
    if not nested:
        if libc.unshare(_CLONE_NEWPID) != 0:
            return False
        child = os.fork()
        if child:
            sys.exit(_wait_for(child))
        _PID_ONE[0] = True  # our /proc is the parent namespace's: tree-walking by pid would go wrong
    try:
        with open("/proc/sys/kernel/pid_max", "w") as handle:
            handle.write(str(pid_max))
    except OSError:
        return False
    return bool(libc.unshare(_CLONE_NEWPID) == 0)


def _wait_for(child: int) -> int:
    try:
        while True:
            pid, raw = os.waitpid(-1, 0)
            if pid == child:
                return _status(raw)
    except _Stop as stop:
        return 128 + int(stop.args[0])
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        if not _PID_ONE[0]:  # as pid 1, our exit kills every process in the namespace
            kill_tree()


def _confine_self(spec: dict, libc: ctypes.CDLL | None, capped: bool, counted: int = 0) -> None:  # type: ignore[type-arg]  # no typing here: it starts every command
    """Right before the command starts, on ourselves, so the command inherits it and nothing it
    runs can undo it: limits, no capabilities, the filter. What is left for us to do (wait,
    signal, read /proc, write a status to a pipe) needs none of what they take away. Done here
    rather than in a forked child because the command is then started with posix_spawn (vfork):
    a fork copies this Python process, which on a VM costs milliseconds per command. The one
    exception is _start_outside's, which `counted` tells that it is the command's own process."""
    import resource

    limits = dict(spec.get("rlimits", {}))
    if "NPROC" in limits and not capped:
        limits["NPROC"] += _count_processes(os.getuid()) - counted  # RLIMIT_NPROC counts the user's other processes too
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, f"RLIMIT_{name}"), (value, value))
    if spec.get("drop_caps") and libc is not None:
        drop_capabilities(libc)
    if spec.get("seccomp") is not None:
        seccomp.install(spec["seccomp"])


def _program(name: str, env: dict) -> str:  # type: ignore[type-arg]
    """`name` found on the command's own PATH, as execvp would (posix_spawnp would search ours)."""
    if "/" in name:
        return name
    for entry in env.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(entry or ".", name)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return name


def _prctl(option: int, value: int) -> None:
    """prctl without importing ctypes: `_ctypes` alone, its private call where this Python has it."""
    try:
        import _ctypes

        _ctypes.call_function(_ctypes.dlsym(_ctypes.dlopen(None), "prctl"), (option, value, 0, 0, 0))  # type: ignore[arg-type]
    except (ImportError, AttributeError):
        import ctypes

        ctypes.CDLL(None).prctl(option, value, 0, 0, 0)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: launch.py SPEC -- COMMAND...\n")
        return 2
    return run(marshal.loads(bytes.fromhex(argv[1])), argv[3:])


def run(spec: dict, command: list[str], env: dict | None = None, held: bool = False) -> int:  # type: ignore[type-arg]
    """Apply SPEC, run `command` below us (with `env`, else ours) and return its status once its
    whole tree is gone. Also what each keeper forked by cast's fork server (forkserver.py) runs,
    `held` there: the server above it is an unconfined subreaper too."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    libc = None
    if spec.get("drop_caps") or spec.get("pid_max"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _on_signal)
    try:
        capped = (
            libc is not None and bool(spec.get("pid_max")) and _pid_cap(libc, spec["pid_max"], bool(spec.get("in_pid_namespace")))
        )
    except OSError as exc:
        return _refused(exc)
    environ = dict(os.environ) if env is None else env
    if spec.get("landlock") and not capped and not held:
        return _start_outside(spec, libc, command, environ)
    try:
        _confine(spec, libc, capped)
    except OSError as exc:
        return _refused(exc)
    try:
        child = os.posix_spawn(_program(command[0], environ), command, environ)
    except _Stop as stop:  # a signal while it started: the child may exist with no pid known to us
        kill_tree()
        return 128 + int(stop.args[0])
    except OSError as exc:
        sys.stderr.write(f"cast: {command[0]}: {exc.strerror or exc}\n")
        return 127
    return _wait_for(child)


def _confine(spec: dict, libc: ctypes.CDLL | None, capped: bool, counted: int = 0) -> None:  # type: ignore[type-arg]
    """Landlock (after the cap: writing pid_max is a write Landlock would refuse), then the rest."""
    if spec.get("landlock"):
        from cast.sandbox import landlock  # deferred: every command's first process loads it only when asked

        rules = spec["landlock"]
        landlock.restrict(rules.get("write", []), bool(rules.get("net")), rules.get("files", []), rules.get("read"))
    _confine_self(spec, libc, capped, counted)


def _start_outside(spec: dict, libc: ctypes.CDLL | None, command: list[str], environ: dict) -> int:  # type: ignore[type-arg]
    """The command in a fork that confines itself and execs it, so that we stay outside its
    Landlock domain: where no pid namespace hides us, the command could SIGKILL its parent, and a
    parent in its own domain would die before its tree kill ran, its orphans going to init (cast
    is no subreaper). Landlock's signal scoping keeps the command from signalling us, and as a
    subreaper we get whatever it orphans. Costs a fork of this Python, where posix_spawn would
    not; the fork server's keepers need none (the server above them holds the tree)."""
    try:
        child = os.fork()
    except _Stop as stop:  # the child, if there is one, was in our group when cast signalled it
        kill_tree()
        return 128 + int(stop.args[0])
    except OSError as exc:
        return _refused(exc)
    if child:
        return _wait_for(child)
    code = REFUSED
    try:
        _confine(spec, libc, False, counted=1)  # we are the command's first process: the count holds us already
        code = 127
        os.execve(_program(command[0], environ), command, environ)
    except OSError as exc:
        if code == REFUSED:
            _refused(exc)
        else:
            sys.stderr.write(f"cast: {command[0]}: {exc.strerror or exc}\n")
    finally:
        sys.stderr.flush()
        os._exit(code)


def _refused(exc: OSError) -> int:
    sys.stderr.write(f"cast sandbox: cannot apply the sandbox ({exc}); the command did not run\n")
    return REFUSED


if __name__ == "__main__":
    sys.exit(main(sys.argv))
