"""A hostile repository commits a line that is code to bash's arithmetic (`a[$(touch …)]`), and
the model reads it into a variable — `while read`, `out=$(cat …)` — then uses the variable where
bash evaluates it: `$((f))`, `[[ $f -eq 1 ]]`, `test -v "$f"`. bash runs the command; the checker
must treat every value read at run time as data and refuse those uses, in every mode. Under the
strong sandbox plan mode runs what the checker refuses, unverified, where the write vanishes."""

from __future__ import annotations

from pathlib import Path

from conftest import git, invoke_cast
from plan_runs import assert_bash_runs_each, run_attacks

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
    assert_bash_runs_each(repo, ATTACKS, marker)


def test_check_command_and_plan_mode_run_none(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _hostile(repo, marker)
    for attack in ATTACKS:
        done = invoke_cast(repo, "check-command", attack)
        assert done.returncode == 1 and "blocked" in done.stdout, (attack, done.stdout)
    for sandbox in ("off", "auto"):
        run = run_attacks(repo, tmp_path, ATTACKS, sandbox=sandbox)
        if sandbox == "off":
            assert all(r.get("is_error") for r in run.attempts)
        assert not marker.exists(), sandbox


def test_the_same_loops_over_plain_data_pass(repo: Path) -> None:
    (repo / "data.txt").write_text("one\ntwo\n")
    for command in ('while read -r f; do echo "$f"; done < data.txt', 'out=$(cat data.txt); echo "$out"'):
        done = invoke_cast(repo, "check-command", command)
        assert done.returncode == 0 and "allowed" in done.stdout, (command, done.stdout)
