"""A hostile command against the keeper that holds it (cast/sandbox/forkserver.py): what it can
reach of the keeper and the fork server, and whether it can outlive its tree by killing its keeper
or by writing a forged exit status into the keeper's status pipe.

Each test runs with no sandbox layer and under Landlock, and under Landlock also as on a kernel
whose pid_max is not per namespace (before 6.14): there the launcher makes no pid namespace, so the
keeper is the command's visible parent. A command that also kills its grandparent (the fork server,
or cast itself above a launcher process of its own) runs under Landlock only: its signal scoping is
what refuses that kill, and without a layer nothing does."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from sandboxkit import need_abi, no_stray, stray, use_layer

from cast.sandbox import limits
from cast.sandbox.policy import READ_ONLY
from cast.tools.process import run_command


def _hold(monkeypatch, how: str):
    if how == "none":
        return None
    use_layer(monkeypatch, "landlock")
    if how == "landlock-no-pid-cap":
        monkeypatch.setattr(limits.Limits, "pid_max", lambda self: 0)
    return READ_ONLY


@pytest.fixture(params=["none", "landlock", "landlock-no-pid-cap"])
def held(request, monkeypatch):
    """A command the launcher holds in a keeper: no sandbox, Landlock, Landlock without the pid cap."""
    return _hold(monkeypatch, request.param)


@pytest.fixture(params=["landlock", "landlock-no-pid-cap"])
def confined(request, monkeypatch):
    """Landlock with and without the pid cap, where its signal scoping keeps the command's kills
    inside its own domain: without it, a command that kills its grandparent could kill the test."""
    policy = _hold(monkeypatch, request.param)
    need_abi("landlock", 6, "keep a command's signals inside its domain")
    return policy


def _marker(tmp_path: Path, name: str) -> str:
    return f"cast-rt-{name}-{os.getpid()}-{tmp_path.name}"


def _gone(marker: str) -> bool:
    """Every process carrying the marker is gone, polled with a generous deadline."""
    return no_stray(marker, wait=30)


def _assert_gone(marker: str) -> None:
    """As `assert _gone(marker)`, killing what escaped: it is the test's to clean up."""
    try:
        assert _gone(marker), stray(marker)
    finally:
        for pid in stray(marker):
            try:
                os.kill(pid, 9)
            except OSError:
                pass


KILL_PARENT = "kill -9 $PPID"
KILL_BOTH = "kill -9 $(awk '/^PPid:/{print $2}' /proc/$PPID/status) $PPID"  # the grandparent too: the server, cast's launcher


def _kills(marker: str, kill: str) -> str:
    """A command that starts a setsid() child carrying the marker, then runs `kill` on what holds it."""
    return (
        f"setsid bash -c 'exec -a {marker} sleep 300' & "
        f'while [ -z "$(pgrep -f {marker})" ]; do sleep 0.05; done; '
        f"{kill}; sleep 2"
    )


def test_the_command_holds_only_its_stdio(held, tmp_path):
    """The command's own fds are 0-2 (and the dir `ls` opens to list them). If the keeper let the
    request's fds, the server's socket or the status pipe through, they would be listed here."""
    done = run_command("ls /proc/self/fd", tmp_path, 60, sandbox=held)
    assert done.exit_code == 0, done.output
    assert sorted(int(fd) for fd in done.output.split()) == [0, 1, 2, 3], done.output


def test_nothing_of_the_fork_server_is_reachable(held, tmp_path):
    """From the command, the server (its grandparent or further up) is never an open fd: a socket
    named in /proc/PID/fd cannot be opened (ENXIO), and under the sandbox no unix socket can be made.
    If the server's socket were reachable, `opened` would name a socket."""
    script = (
        "import os, socket\n"
        "opened = []\n"
        "pid = os.getppid()\n"
        "while pid > 1:\n"
        "    try:\n"
        "        fds = os.listdir(f'/proc/{pid}/fd')\n"
        "    except OSError:\n"
        "        fds = []\n"
        "    for fd in fds:\n"
        "        path = f'/proc/{pid}/fd/{fd}'\n"
        "        try:\n"
        "            target = os.readlink(path)\n"
        "        except OSError:\n"
        "            continue\n"
        "        if target.startswith('socket:'):\n"
        "            try:\n"
        "                os.close(os.open(path, os.O_RDWR))\n"
        "                opened.append(path)\n"
        "            except OSError:\n"
        "                pass\n"
        "    try:\n"
        "        pid = int(open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[1])\n"
        "    except OSError:\n"
        "        break\n"
        "print('OPENED', opened)\n"
        "try:\n"
        "    socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).close()\n"
        "    print('UNIX-MADE')\n"
        "except OSError:\n"
        "    print('UNIX-REFUSED')\n"
    )
    (tmp_path / "probe.py").write_text(script)
    done = run_command(f"python3 {tmp_path / 'probe.py'}", tmp_path, 60, sandbox=held)
    assert "OPENED []" in done.output, done.output
    if held is not None:  # seccomp refuses socket(AF_UNIX): a unix socket to anything, the server's included
        assert "UNIX-REFUSED" in done.output, done.output


def test_a_timed_out_tree_that_left_the_session_and_ignores_sigterm_is_gone(held, tmp_path):
    """Past its timeout, a command that ignores SIGTERM, with a setsid() child and a double-forked
    grandchild that ignore it too: every one is gone. A keeper that only signalled its group would
    leave the two that moved out of it."""
    marker = _marker(tmp_path, "timeout")
    command = (
        f"trap '' TERM; setsid bash -c \"trap '' TERM; exec -a {marker}-a sleep 300\" & "
        f"(bash -c \"trap '' TERM; exec -a {marker}-b sleep 301\" &); "
        f"while true; do sleep 1; done"
    )
    done = run_command(command, tmp_path, 3, sandbox=held)
    assert done.timed_out and done.exit_code == 124, done.output
    assert _gone(marker), stray(marker)


def test_killing_its_keeper_does_not_let_a_command_outlive_its_tree(held, tmp_path):
    """The command SIGKILLs its parent after starting a setsid() child. Under a pid namespace the
    parent is not visible (ppid 0), so the kill finds nothing; without one it kills the keeper,
    whose tree kill never runs. If nothing else took over the orphans, the marker would live on."""
    marker = _marker(tmp_path, "keeperkill")
    run_command(_kills(marker, KILL_PARENT), tmp_path, 60, sandbox=held)
    assert _gone(marker), stray(marker)


def test_killing_its_keeper_and_the_fork_server_does_not_let_a_command_outlive_its_tree(confined, tmp_path):
    """As above, the command also SIGKILLs its grandparent, the fork server. The server stays
    outside the command's Landlock domain, so the kill is refused and the server still takes
    over the orphans. Without a sandbox layer nothing stops that kill (the command may do
    anything its user may), so that case is not here."""
    marker = _marker(tmp_path, "serverkill")
    run_command(_kills(marker, KILL_BOTH), tmp_path, 60, sandbox=confined)
    _assert_gone(marker)


def test_a_forged_status_does_not_let_a_command_outlive_its_tree(held, tmp_path):
    """The command writes four zero bytes into every pipe its parent holds (the keeper's status
    pipe among them, where /proc lets it open them), which cast reads as "exited 0": cast then
    ends the keeper's group with SIGKILL, before the keeper could kill the tree. A setsid() child
    would outlive it if nothing else took over the orphans."""
    marker = _marker(tmp_path, "forged")
    command = (
        f"setsid bash -c 'exec -a {marker} sleep 300' & "
        f'while [ -z "$(pgrep -f {marker})" ]; do sleep 0.05; done; '
        'for f in /proc/$PPID/fd/*; do [ -p "$f" ] && printf \'\\0\\0\\0\\0\' 2>/dev/null > "$f"; done; '
        "sleep 5"
    )
    started = time.monotonic()
    run_command(command, tmp_path, 60, sandbox=held)
    assert time.monotonic() - started < 60
    assert _gone(marker), stray(marker)


@pytest.mark.parametrize("kill", [KILL_PARENT, KILL_BOTH], ids=["parent", "parent-and-grandparent"])
def test_killing_its_own_launcher_does_not_let_a_command_outlive_its_tree(confined, kill, tmp_path, monkeypatch):
    """As test_killing_its_keeper_..., with a launcher process per command instead of a keeper,
    the grandparent being cast itself. Where no pid namespace hides it, a launcher that confined
    itself would be in the command's domain and die, and cast, no subreaper, would let the
    setsid() child go to init; the launcher stays outside and a fork of it becomes the command."""
    monkeypatch.setenv("CAST_FORKSERVER", "0")
    marker = _marker(tmp_path, "launcherkill")
    run_command(_kills(marker, kill), tmp_path, 60, sandbox=confined)
    _assert_gone(marker)
