"""A hostile repository commits a program named like a test (`[[x/evil`) and the model writes
`[[x/evil == b ]]`: bash runs the program, since `[[` is a keyword only as a word of its own.
`cast check-command` must say blocked, and plan mode with no kernel sandbox must not run it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import git, invoke_cast, run_cast, write_script

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
    for attack in ATTACKS:
        marker.unlink(missing_ok=True)
        subprocess.run(["bash", "-c", attack], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
        assert marker.exists(), attack


def test_check_command_and_plan_mode_run_none(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _hostile(repo, marker)
    for attack in ATTACKS:
        done = invoke_cast(repo, "check-command", attack)
        assert done.returncode == 1 and "not on the read-only command list" in done.stdout, (attack, done.stdout)
    turns = [
        {"tool_uses": [{"name": "bash", "input": {"command": a}}, {"name": "bash", "input": {"command": f"echo {i}"}}]}
        for i, a in enumerate(ATTACKS)
    ]  # a harmless command after each: refusals in a row would end the run
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]},
        {"text": "ok"},
    ]
    record = tmp_path / "requests.jsonl"
    done = run_cast(
        repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", "plan", "x", record=record, CAST_SANDBOX="off"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    results = [b for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"]
    refused = [r for r in results[0 : 2 * len(ATTACKS) : 2] if r.get("is_error")]
    assert len(refused) == len(ATTACKS)
    assert not marker.exists()
