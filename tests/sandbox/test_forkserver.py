"""Commands the launcher holds (no sandbox layer, Landlock) run in a keeper forked from one fork
server per cast process (cast/sandbox/forkserver.py), not in a new Python each: the same
guarantees, with every tree killed when cast itself is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sandboxkit import no_stray, stray, use_layer

from cast.sandbox import spawn
from cast.sandbox.policy import READ_ONLY, detect
from cast.tools.process import run_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["none", "landlock"])
def held(request, monkeypatch):
    """A command held by the launcher: with no sandbox, or sandboxed by Landlock alone."""
    if request.param == "none":
        yield None
        return
    use_layer(monkeypatch, "landlock")
    yield READ_ONLY
    monkeypatch.undo()
    detect.cache_clear()  # the next test finds the machine's own layer again


def _wait_for(marker: str, count: int = 1) -> list[int]:
    deadline = time.monotonic() + 60
    while len(stray(marker)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return stray(marker)


def _named(marker: str) -> list[int]:
    """The command itself (its argv[0] is the marker), not a launcher whose argv names it."""
    found = []
    for pid in stray(marker):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(marker.encode()):
                found.append(pid)
        except OSError:
            pass
    return found


def _ancestry(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of each process from `pid`'s parent up to this test's process."""
    found = []
    while True:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if pid in (0, 1, os.getpid()):
            return found
        found.append((pid, Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()))


def _held_command(held, tmp_path: Path, marker: str) -> list[tuple[int, str]]:
    """The processes between a running command and cast."""
    cancel = threading.Event()
    worker = threading.Thread(target=run_command, args=(f"exec -a {marker} sleep 300", tmp_path, 120, cancel, None, held))
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while not (named := _named(marker)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert named, "the command never started"
        return _ancestry(named[0])
    finally:
        cancel.set()
        worker.join()


def test_no_python_starts_per_command(held, tmp_path):
    """Between the command and cast: forks of the one server (its command line), no launcher
    started for it; two commands share that server."""
    marker = f"cast-held-{os.getpid()}-{tmp_path.name}"
    first, second = _held_command(held, tmp_path, marker + "-1"), _held_command(held, tmp_path, marker + "-2")
    assert all("cast.sandbox.forkserver" in cmdline and "cast.sandbox.launch" not in cmdline for _, cmdline in first + second)
    assert first[-1][0] == second[-1][0] == spawn._SERVER[0][0].pid


def test_the_launcher_process_per_command_still_works(held, tmp_path, monkeypatch):
    monkeypatch.setenv("CAST_FORKSERVER", "0")
    chain = _held_command(held, tmp_path, f"cast-launched-{os.getpid()}-{tmp_path.name}")
    assert any("cast.sandbox.launch" in cmdline for _, cmdline in chain), chain


def test_a_server_that_died_is_started_again(tmp_path):
    run_command("true", tmp_path, 30)
    old = spawn._SERVER[0][0]
    old.kill()
    old.wait()
    result = run_command("echo again", tmp_path, 30)
    assert result.exit_code == 0 and "again" in result.output and spawn._SERVER[0][0].pid != old.pid


SCRIPT = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from cast.tools.process import run_command
from cast.sandbox.policy import READ_ONLY, detect
command = Path(sys.argv[2]).read_text()
run_command(command, Path(sys.argv[3]), 600, sandbox=READ_ONLY if sys.argv[4] == "1" else None)
"""


def test_killing_cast_kills_every_command_tree_it_had(held, tmp_path):
    """cast SIGKILLed: the server reads EOF and exits, each keeper gets its parent-death signal
    and kills its tree, a process that left the session and a double-forked one included."""
    marker = f"cast-orphans-{os.getpid()}-{tmp_path.name}"
    (tmp_path / "command").write_text(
        f"setsid bash -c 'exec -a {marker}-a sleep 300' & (bash -c 'exec -a {marker}-b sleep 301' &); exec -a {marker}-c sleep 302"
    )
    argv = [sys.executable, "-c", SCRIPT, str(ROOT), str(tmp_path / "command"), str(tmp_path), "1" if held else "0"]
    cast = subprocess.Popen(argv, env=dict(os.environ))
    try:
        assert len(_wait_for(marker, 3)) == 3, stray(marker)
    finally:
        cast.send_signal(signal.SIGKILL)
        cast.wait()
    assert no_stray(marker, wait=20), stray(marker)
