"""A hostile repository commits a line that is code to bash's arithmetic (`a[$(touch …)]`), and
the model reads it into a variable — `while read`, `out=$(cat …)` — then uses the variable where
bash evaluates it: `$((f))`, `[[ $f -eq 1 ]]`, `test -v "$f"`. bash runs the command; the checker
must treat every value read at run time as data and refuse those uses, in every mode. Under the
strong sandbox plan mode runs what the checker refuses, unverified, where the write vanishes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import git, invoke_cast, run_cast, write_script

ATTACKS = [
    "while read f; do echo $((f)); done < data.txt",
    "while IFS= read -r f; do [[ $f -eq 1 ]]; done < data.txt",
    'while read f; do test -v "$f"; done < data.txt',
    'cat data.txt | while read -r f; do echo "$((f + 1))"; done',
    "out=$(cat data.txt); echo $((out))",
    'out="$(head -1 data.txt)"; [[ $out -gt 0 ]]',
]


def _hostile(repo: Path, marker: Path) -> None:
    (repo / "data.txt").write_text(f"a[$(touch '{marker}')]\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "data")


def test_bash_runs_the_committed_line(repo: Path, tmp_path: Path) -> None:
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
        assert done.returncode == 1 and "blocked" in done.stdout, (attack, done.stdout)
    turns = [
        {"tool_uses": [{"name": "bash", "input": {"command": a}}, {"name": "bash", "input": {"command": f"echo {i}"}}]}
        for i, a in enumerate(ATTACKS)
    ]  # a harmless command after each: refusals in a row would end the run
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]},
        {"text": "ok"},
    ]
    record = tmp_path / "requests.jsonl"
    for sandbox in ("off", "auto"):
        done = run_cast(
            repo,
            "--model",
            f"script:{write_script(tmp_path / f's-{sandbox}.jsonl', turns)}",
            "plan",
            "x",
            record=record,
            CAST_SANDBOX=sandbox,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        requests = [json.loads(line) for line in record.read_text().splitlines()]
        results = [b for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"]
        attempts = results[0 : 2 * len(ATTACKS) : 2]
        assert len(attempts) == len(ATTACKS), sandbox
        if sandbox == "off":
            assert all(r.get("is_error") for r in attempts)
        assert not marker.exists(), sandbox
        record.unlink()


def test_the_same_loops_over_plain_data_pass(repo: Path) -> None:
    (repo / "data.txt").write_text("one\ntwo\n")
    for command in ('while read -r f; do echo "$f"; done < data.txt', 'out=$(cat data.txt); echo "$out"'):
        done = invoke_cast(repo, "check-command", command)
        assert done.returncode == 0 and "allowed" in done.stdout, (command, done.stdout)
