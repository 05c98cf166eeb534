"""A read-only checkout still plans: the plan goes to the user's state dir, with a notice, and
`cast execute` finds it there. The checkout is made read-only by a read-only bind mount, since
permission bits mean nothing to root (and tests may run as root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from cast.plans.checklist import parse
from cast.sandbox.policy import bwrap_binary
from cast.trust import record

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"


def _read_only_runner(checkout: Path) -> list[str]:
    binary = bwrap_binary()
    if binary is None:
        pytest.skip("no bwrap to mount the checkout read-only")
    argv = [binary, "--bind", "/", "/", "--ro-bind", str(checkout), str(checkout), "--dev", "/dev", "--proc", "/proc", "--"]
    probe = subprocess.run([*argv, "touch", str(checkout / "probe")], capture_output=True, check=False)
    if probe.returncode == 0 or (checkout / "probe").exists():
        pytest.skip(f"this kernel will not mount a directory read-only for the test: {probe.stderr[-200:]!r}")
    return argv


def test_read_only_checkout_plans_into_the_state_dir_and_execute_finds_it(tmp_path, monkeypatch):
    calc = tmp_path / "calc"
    shutil.copytree(EXAMPLES / "calc", calc)
    git(calc, "init", "-q")
    git(calc, "add", "-A")
    git(calc, "commit", "-qm", "calc")
    record(calc, trusted=True)  # its config allows its test command, a loosening key
    state = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    wrapper = _read_only_runner(calc)
    plan_script = EXAMPLES / "scripts" / "plan.jsonl"
    done = subprocess.run(
        [*wrapper, sys.executable, "-m", "cast", "--model", f"script:{plan_script}", "plan", "Fix add"],
        cwd=calc,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Traceback" not in done.stderr + done.stdout
    plans = list(state.glob("cast/workspaces/calc-*/.cast/plans/*/*.md"))
    assert len(plans) == 1 and not (calc / ".cast" / "plans").exists()
    assert str(plans[0]) in done.stdout
    assert done.stderr.count(f"cast: {calc}/.cast cannot be written; plans of this workspace go to") == 1  # said, once
    execute_script = EXAMPLES / "scripts" / "execute.jsonl"
    ran = subprocess.run(
        [sys.executable, "-m", "cast", "--model", f"script:{execute_script}", "execute"],
        cwd=calc,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr + ran.stdout
    assert [item.checked for item in parse(plans[0].read_text())] == [True, True]
