"""Commands really run under each kernel layer: what they may write, reach and leave behind."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from sandboxkit import Listener, need_abi, no_stray

from cast.sandbox.policy import READ_ONLY, detect, workspace_write
from cast.tools.process import run_command


def test_read_only_writes_only_to_a_scratch_dir_that_is_thrown_away(layer, tmp_path):
    (tmp_path / "kept.txt").write_text("x")
    home = Path(os.environ["HOME"])
    command = (
        f"touch {tmp_path}/pwned; echo x >> {tmp_path}/kept.txt; rm {tmp_path}/kept.txt; mkdir {home}/.pwned; "
        "touch /tmp/cast-pwned-marker; echo scratch > $TMPDIR/a && cat $TMPDIR/a && echo $TMPDIR; "
        "echo quiet > /dev/null && echo devnull-ok"
    )
    result = run_command(command, tmp_path, timeout=20, sandbox=READ_ONLY)
    lines = result.output.splitlines()
    assert "scratch" in lines and "devnull-ok" in lines, result.output
    scratch = lines[lines.index("scratch") + 1]
    assert scratch.startswith("/") and not os.path.exists(scratch)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"] and (tmp_path / "kept.txt").read_text() == "x"
    assert not (home / ".pwned").exists() and not Path("/tmp/cast-pwned-marker").exists()
    assert result.sandbox == f"{layer} read-only"


def test_no_network(layer, tmp_path, listener: Listener):
    need_abi(layer, 4, "restrict TCP")
    result = run_command(f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo connected", tmp_path, timeout=20, sandbox=READ_ONLY)
    assert "connected" not in result.output and result.exit_code != 0
    time.sleep(0.1)
    assert not listener.connected()


def test_root_keeps_no_capabilities(layer, tmp_path):
    result = run_command("grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status", tmp_path, timeout=20, sandbox=READ_ONLY)
    values = {line.split(":")[0]: int(line.split()[1], 16) for line in result.output.splitlines()}
    assert values == {"CapPrm": 0, "CapEff": 0, "CapBnd": 0}, result.output


def test_cannot_signal_processes_outside(layer, tmp_path):
    need_abi(layer, 6, "scope signals")
    victim = subprocess.Popen(["sleep", "30"])
    try:
        run_command(f"kill -9 {victim.pid}", tmp_path, timeout=20, sandbox=READ_ONLY)
        time.sleep(0.1)
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def test_workspace_write_writes_the_workspace_and_nothing_else(layer, tmp_path, listener: Listener):
    need_abi(layer, 4, "restrict TCP")
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    command = f"touch {work}/src/made && touch {tmp_path}/outside; exec 3<>/dev/tcp/127.0.0.1/{listener.port}"
    result = run_command(command, work, timeout=20, sandbox=workspace_write(work))
    assert (work / "src" / "made").exists() and not (tmp_path / "outside").exists()
    assert result.exit_code != 0 and not listener.connected()
    allowed = run_command(
        f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo connected",
        work,
        timeout=20,
        sandbox=workspace_write(work, network=True),
    )
    assert "connected" in allowed.output


def _timeout_escapes(tmp_path: Path, sandbox, marker: str) -> None:
    command = f"timeout 1000d bash -c 'exec -a {marker} md5sum /dev/zero'; true"
    started = time.monotonic()
    result = run_command(command, tmp_path, timeout=1, sandbox=sandbox)
    assert result.timed_out and time.monotonic() - started < 60  # it once took 611 s
    assert no_stray(marker)


def test_timeout_kills_what_left_the_process_group(layer, tmp_path):
    _timeout_escapes(tmp_path, READ_ONLY, f"cast-test-md5-{layer}-{os.getpid()}")


def test_timeout_kills_what_left_the_process_group_unsandboxed(tmp_path):
    _timeout_escapes(tmp_path, None, f"cast-test-md5-plain-{os.getpid()}")


def test_a_daemon_holding_the_pipe_does_not_hang_cast(tmp_path):
    marker = f"cast-test-daemon-{os.getpid()}"
    command = f"setsid bash -c 'exec -a {marker} sleep 1000' & disown; echo started"
    result = run_command(command, tmp_path, timeout=30)
    assert "started" in result.output and not result.timed_out  # the held pipe would have run into the 30 s timeout
    assert no_stray(marker)


def test_sandbox_off_runs_unconfined(sandbox_off, tmp_path):
    assert detect().name == "off"
    result = run_command(f"touch {tmp_path}/made", tmp_path, timeout=20, sandbox=READ_ONLY)
    assert (tmp_path / "made").exists() and result.sandbox == ""
