"""A hostile repository commits a program named like a test (`[[x/evil`) and the model writes
`[[x/evil == b ]]`: bash runs the program, since `[[` is a keyword only as a word of its own.
`cast check-command` must say blocked, and plan mode with no kernel sandbox must not run it."""

from __future__ import annotations

from pathlib import Path

from conftest import git, invoke_cast
from plan_runs import assert_bash_runs_each, run_attacks

ATTACKS = ["[[x/evil == b ]]", "[x/evil ]", "if [[x/evil ]]; then :; fi", "[[!x/evil ]]"]


def _hostile(repo: Path, marker: Path) -> None:
    for directory in ("[[x", "[x", "[[!x"):
        (repo / directory).mkdir()
        program = repo / directory / "evil"
        program.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        program.chmod(0o755)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "tests")


def test_bash_runs_the_committed_program(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _hostile(repo, marker)
    assert_bash_runs_each(repo, ATTACKS, marker)


def test_check_command_and_plan_mode_run_none(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _hostile(repo, marker)
    for attack in ATTACKS:
        done = invoke_cast(repo, "check-command", attack)
        assert done.returncode == 1 and "not on the read-only command list" in done.stdout, (attack, done.stdout)
    run = run_attacks(repo, tmp_path, ATTACKS)
    assert all(r.get("is_error") for r in run.attempts)
    assert not marker.exists()
