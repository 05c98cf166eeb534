"""Limits on what a sandboxed command may take (memory, processes, file size, CPU time), what it
may leave behind, and cast's own memory however much a command prints; and workspace-write
keeping `.git` and `.cast` read-only."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sandboxkit import no_stray, stray

from cast.config import ConfigError, load
from cast.sandbox.limits import configure, settings
from cast.sandbox.policy import READ_ONLY, isolation, workspace_write
from cast.tools.process import run_command


@pytest.fixture(autouse=True)
def default_settings():
    yield
    configure()


def test_a_4_gb_allocation_fails_and_python_still_runs(layer, tmp_path):
    command = 'python3 -c \'print("python-ok"); b = bytearray(4 * 10**9); print("ALLOCATED")\''
    result = run_command(command, tmp_path, 30, sandbox=READ_ONLY)
    assert "python-ok" in result.output and "MemoryError" in result.output and "ALLOCATED" not in result.output


FORK_BOMB = (
    "python3 - <<'EOF'\nimport os, time\nborn = 0\ntry:\n    while born < 5000:\n        if os.fork() == 0:\n"
    "            time.sleep(30)\n            os._exit(0)\n        born += 1\nexcept OSError as exc:\n"
    "    print('fork refused after', born, exc.strerror)\nEOF"
)


def test_a_fork_bomb_is_bounded(layer, tmp_path):
    assert isolation().limits
    configure(limits={"processes": 100})
    started = time.monotonic()
    result = run_command(FORK_BOMB, tmp_path, 60, sandbox=READ_ONLY)
    assert "fork refused after" in result.output, result.output
    born = int(result.output.split("fork refused after ")[1].split()[0])
    assert born < 301 and time.monotonic() - started < 30  # 300: the smallest pid_max the kernel takes
    assert no_stray("time.sleep(30)")


def test_xargs_without_a_process_limit_is_bounded(layer, tmp_path):
    """Watched from outside: inside, the sandbox's own shell can no longer fork either."""
    configure(limits={"processes": 100})
    marker = f"cast-xargs-bomb-{layer}-{os.getpid()}"
    command = f"seq 5000 | xargs -P 0 -I{{}} bash -c 'exec -a {marker} sleep 30'"
    runner = threading.Thread(target=run_command, args=(command, tmp_path, 3), kwargs={"sandbox": READ_ONLY})
    runner.start()
    most = 0
    while runner.is_alive():
        most = max(most, len(stray(marker)))
        time.sleep(0.2)
    runner.join()
    assert 50 < most < 301 and no_stray(marker)


def test_file_size_and_cpu_time_are_capped(layer, tmp_path):
    configure(limits={"file_size_mb": 1, "cpu_seconds": 1})
    command = "head -c 3000000 /dev/zero > $TMPDIR/big; stat -c %s $TMPDIR/big; python3 -c 'while True: pass'; echo cpu=$?"
    result = run_command(command, tmp_path, 30, sandbox=READ_ONLY)
    assert "File too large" in result.output and "\n1048576\n" in result.output, result.output
    assert "cpu=137" in result.output or "cpu=152" in result.output  # SIGKILL or SIGXCPU at the hard limit


def test_limits_come_from_the_users_config(tmp_path):
    from cast.config import config_dir

    user = config_dir() / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('sandbox_env_passthrough = ["MY_*"]\n[sandbox_limits]\nmemory_mb = 512\nprocesses = 64\n')
    config = load(tmp_path)
    configure(config.sandbox_env_passthrough, config.sandbox_limits)
    assert settings().passthrough == ("MY_*",) and settings().limits.memory_mb == 512 and settings().limits.processes == 64
    user.write_text("[sandbox_limits]\nmemory = 512\n")
    with pytest.raises(ConfigError, match="sandbox_limits"):
        load(tmp_path)


def test_a_detached_sleep_is_killed_when_the_command_ends_and_at_timeout(layer, tmp_path):
    marker = f"cast-test-detached-{layer}-{os.getpid()}"
    command = f"setsid nohup bash -c 'exec -a {marker} sleep 1000' >/dev/null 2>&1 & disown; echo started"
    result = run_command(command, tmp_path, 30, sandbox=READ_ONLY)
    assert "started" in result.output and not result.timed_out and no_stray(marker)
    result = run_command(f"(setsid bash -c 'exec -a {marker} sleep 1000' &); sleep 1000", tmp_path, 1, sandbox=READ_ONLY)
    assert result.timed_out and no_stray(marker)


def test_huge_output_keeps_casts_memory_bounded(tmp_path):
    """The peak is the probe's own (VmHWM of its address space): getrusage's ru_maxrss carries the
    RSS of the process that forked it over the exec, so a grown test worker would be measured."""
    probe = (
        "import re, sys; from pathlib import Path; from cast.tools.process import run_command; "
        "r = run_command('head -c 100000000 /dev/urandom | base64', Path(sys.argv[1]), 120); "
        "peak = int(re.search(r'VmHWM:\\s+(\\d+) kB', Path('/proc/self/status').read_text())[1]); "
        "print(r.total_bytes, len(r.output), peak // 1024)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=180, check=True)
    total, shown, peak_mb = (int(part) for part in done.stdout.split())
    assert total > 130_000_000 and shown < 40_000 and peak_mb < 150, done.stdout


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".cast").mkdir()
    (root / ".cast" / "config.toml").write_text("# the user's\n")
    return root


def test_workspace_write_keeps_git_and_cast_read_only(layer, tmp_path):
    root = _repo(tmp_path)
    config_before = (root / ".git" / "config").read_bytes()
    command = (
        "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
        "git config core.hooksPath /tmp/hooks; echo 'sandbox = \"off\"' >> .cast/config.toml; "
        "rm -rf .git/hooks; mv .git .git-old; mv .cast .cast-old; echo edited > src/app.py; echo done"
    )
    result = run_command(command, root, 30, sandbox=workspace_write(root))
    assert "done" in result.output and (root / "src" / "app.py").read_text() == "edited\n"
    assert not (root / ".git" / "hooks" / "pre-commit").exists() and (root / ".git" / "hooks").is_dir()
    assert (root / ".git" / "config").read_bytes() == config_before and not (root / ".git-old").exists()
    assert (root / ".cast" / "config.toml").read_text() == "# the user's\n" and not (root / ".cast-old").exists()


def test_an_untrusted_workspace_may_lower_limits_but_not_raise_them_or_pass_variables(tmp_path):
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text('sandbox_env_passthrough = ["AWS_*"]\n[sandbox_limits]\nmemory_mb = 256\n')
    config = load(tmp_path)
    assert config.sandbox_env_passthrough == () and config.sandbox_limits == {"memory_mb": 256}
    (tmp_path / ".cast" / "config.toml").write_text("[sandbox_limits]\nmemory_mb = 99999\n")
    assert load(tmp_path).sandbox_limits == {}


def test_a_command_that_raises_pid_max_first_is_still_bounded(layer, tmp_path):
    """Root in the sandbox may write its own pid namespace's pid_max with no capability at all:
    the cap must hold where the command cannot write (a read-only /proc, or a namespace above it)."""
    configure(limits={"processes": 100})
    bomb = FORK_BOMB.replace("time.sleep(30)", "time.sleep(31)")  # its own marker: the other bombs may run meanwhile
    command = "echo 4194304 > /proc/sys/kernel/pid_max; cat /proc/sys/kernel/pid_max\n" + bomb
    result = run_command(command, tmp_path, 60, sandbox=READ_ONLY)
    assert "fork refused after" in result.output, result.output
    assert int(result.output.split("fork refused after ")[1].split()[0]) < 301
    assert no_stray("time.sleep(31)")
