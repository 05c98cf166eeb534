"""Runs that must not end as `done` on the model's word: scripted sessions through
`python -m cast execute`, each run twice on a fresh copy of the project — once for the text
report, once for the `--json` result — and both checked, so the two can never disagree.

A tick needs evidence since its item went in progress; the status follows the plan file and the
tests; claims in the final message are checked against what cast observed, whatever their wording;
outside git, the files changed come from a snapshot of the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import git, write_script
from conftest import invoke_cast as cast

from cast.trust import record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SESSION = "2026-12-01-fix-add"
VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def calc(root: Path, plan: str, *, repo: bool = True) -> Path:
    """The example project with `plan` as its plan, committed when `repo`."""
    shutil.copytree(EXAMPLES / "calc", root)
    path = root / ".cast" / "plans" / SESSION / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntask: Fix add\nsession: {SESSION}\n---\n# Plan: Fix add\n\n{plan}")
    if repo:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "calc")
    record(root, trusted=True)  # its config allows its test command, a loosening key
    return root


def both(
    tmp_path: Path, make: Callable[[Path], Path], turns: list[dict], *flags: str
) -> tuple[subprocess.CompletedProcess[str], str, dict]:
    """Run the script once for the text report and once with --json, each on a fresh project.
    Returns the text run, its report (from `Result:` on) and the --json result object."""
    script = write_script(tmp_path / "script.jsonl", turns)
    text_run = cast(make(tmp_path / "text"), "--model", f"script:{script}", "execute", *flags)
    json_run = cast(make(tmp_path / "json"), "--model", f"script:{script}", "execute", "--json", *flags)
    result = json.loads(json_run.stdout.strip().splitlines()[-1])
    assert result["type"] == "result" and result["exit_code"] == json_run.returncode == text_run.returncode
    out = text_run.stdout
    if os.environ.get("SHOW"):
        print(out, text_run.stderr)
    assert "\nResult: " in out, out + text_run.stderr
    return text_run, out[out.index("\nResult: ") + 1 :], result


def test_a_tick_after_a_declined_command_needs_a_note_and_is_reported_as_such(tmp_path):
    plan = "- [ ] Remove the build directory\n- [ ] Fix `add` in `calc.py`\n"
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("bash", command="rm -rf build")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},  # refused: the only command was declined
        {"tool_uses": [use("update_task", id=1, status="done", note="there is no build directory to remove")]},
        {"tool_uses": [use("update_task", id=2, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a - b", new_string="return a + b")]},
        {"tool_uses": [use("update_task", id=2, status="done")]},
        {"text": "Both items are done."},
        VERDICT,
    ]
    run, report, result = both(tmp_path, lambda root: calc(root, plan), turns)
    assert "✗ update_task 1 · task 1 not ticked: no file was changed and no command succeeded" in run.stdout
    why = "approval needed: this command is not provably read-only and cast is running without a terminal to ask"
    declined = f"`rm -rf build` declined ({why})"
    assert report.startswith("Result: done (the model finished its turn)\nPlan: 2/2 items done (2 this run)")
    assert (
        "Ticked without evidence: 1\n  1. Remove the build directory — no file was changed and no command "
        f"succeeded since it started ({declined}); note: there is no build directory to remove\n"
    ) in report
    assert f"Commands run: 1\n  declined `rm -rf build` ({why})\n" in report and "FAIL" not in report
    assert "  [x] 2. Fix `add` in `calc.py`\n        evidence: calc.py changed\n" in report
    assert run.returncode == 0 and result["status"] == "done"
    data = result["report"]
    assert [(c["command"], c["outcome"], c["label"]) for c in data["commands"]] == [("rm -rf build", "declined", "declined")]
    assert [(i["number"], i["note"]) for i in data["ticked_without_evidence"]] == [(1, "there is no build directory to remove")]
    assert data["items_done"][1]["evidence"]["files"] == ["calc.py"] and data["items_done"][1]["evidence"]["supported"]


def test_a_tick_after_a_failed_edit_is_refused_and_the_run_is_incomplete(tmp_path):
    plan = "- [ ] Fix `add` in `calc.py`\n"
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a -- b", new_string="return a + b")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "Fixed calc.py."},
        VERDICT,
        {"text": "Fixed calc.py; the item is done."},
        VERDICT,
    ]
    run, report, result = both(tmp_path, lambda root: calc(root, plan), turns)
    assert "✗ edit_file calc.py" in run.stdout
    assert "task 1 not ticked: nothing was run and no file was changed since it started" in run.stdout
    assert "self-check: the task is not finished yet." in run.stdout
    assert report.startswith("Result: incomplete (1 plan item not done: 1)\nPlan: 0/1 items done (0 this run)")
    assert "  [ ] 1. Fix `add` in `calc.py`\nCommands run: none\nFiles changed: none\n" in report
    assert 'UNCHECKED "Fixed calc.py" — no observed change to calc.py' in report
    assert run.returncode == 1 and "cast: 1 plan item not done: 1" in run.stderr
    assert (result["status"], result["reason"], result["exit_code"]) == ("incomplete", "1 plan item not done: 1", 1)
    assert result["report"]["files_changed"] == [] and result["report"]["unchecked_claims"] >= 1


def test_a_tick_with_a_failing_verify_command_is_refused_and_tests_failing_is_the_status(tmp_path):
    plan = "- [ ] Fix `add` in `calc.py`\n  - verify: `python3 -m unittest` runs 2 tests, OK\n"
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a - b", new_string="return a * b")]},
        {"tool_uses": [use("bash", command="python3 -m unittest")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},  # refused: the verification failed
        {"tool_uses": [use("update_task", id=1, status="done", note="add is fixed; the failure is elsewhere")]},
        {"text": "Item 1 is done."},
        VERDICT,
        {"text": "Item 1 is done; the test failure is not about add."},
        VERDICT,
    ]
    run, report, result = both(tmp_path, lambda root: calc(root, plan), turns)
    failed = "`python3 -m unittest` exit 1 (1 passed, 1 failed)"
    assert "✗ update_task 1 · task 1 not ticked: the last run of the verification `python3 -m unittest` exit 1" in run.stdout
    assert report.startswith(f"Result: tests failing (the last run of {failed})\nPlan: 1/1 items done (1 this run)")
    assert (
        "Ticked without evidence: 1\n  1. Fix `add` in `calc.py` — the last run of the verification "
        f"{failed}; note: add is fixed; the failure is elsewhere\n"
    ) in report
    assert f"Commands run: 1\n  FAIL {failed}\n" in report
    assert report.endswith(
        'Claims in the final message:\n  UNCHECKED "Item 1 is done" — item 1 was ticked without evidence '
        f"(the last run of the verification {failed})\n"
    )
    assert run.returncode == 1 and "cast: the last run of" in run.stderr
    assert (result["status"], result["exit_code"]) == ("tests failing", 1)
    assert result["report"]["commands"][0]["passed"] is False and result["report"]["commands"][0]["is_test"] is True


def test_a_plan_deleted_mid_run_ends_as_plan_missing(tmp_path):
    plan = "- [ ] Fix `add` in `calc.py`\n- [ ] Add a negative-number test\n"
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("bash", command=f"rm .cast/plans/{SESSION}/plan.md")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a - b", new_string="return a + b")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "All items are done."},
        VERDICT,
        {"text": "All items are done."},
        VERDICT,
    ]
    run, report, result = both(tmp_path, lambda root: calc(root, plan), turns, "--yes")
    path = tmp_path / "text" / ".cast" / "plans" / SESSION / "plan.md"
    assert not path.exists()
    reason = f"the plan file {path} is missing; 2 plan items not done: 1, 2"
    assert report.startswith(f"Result: plan missing ({reason})\nPlan: plan file missing — {path}; when last read, 0/2 items done")
    assert f"Commands run: 1\n  ok   `rm .cast/plans/{SESSION}/plan.md` exit 0\n" in report
    assert f"   .cast/plans/{SESSION}/plan.md | changed\n   calc.py                                | 2 +-\n" in report
    assert 'UNCHECKED "All items are done." — the plan file is missing' in report
    assert run.returncode == 1
    json_path = tmp_path / "json" / ".cast" / "plans" / SESSION / "plan.md"
    assert (result["status"], result["exit_code"]) == ("plan missing", 1)
    assert result["reason"] == f"the plan file {json_path} is missing; 2 plan items not done: 1, 2"
    assert result["report"]["plan_lost"] == "missing"


def test_a_false_tests_pass_claim_in_other_words_is_unchecked(tmp_path):
    plan = "- [ ] Fix `add` in `calc.py`\n"
    claims = [{"claim": "pytest reports 3 passed", "rests_on": "tests", "ref": "python3 -m pytest -q", "says": "passed"}]
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a - b", new_string="return a + b")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"tool_uses": [use("bash", command="python3 -m unittest"), use("read_file", path="test_calc.py")]},
        {"tool_uses": [use("edit_file", path="test_calc.py", old_string="add(2, 3), 5", new_string="add(2, 3), 6")]},
        {"tool_uses": [use("bash", command="python3 -m unittest")]},
        {"text": "Done: pytest reports 3 passed. The suite is green now.\n✅ all good"},
        {"text": json.dumps({"complete": True, "missing": [], "claims": claims})},
        {"text": "Done: pytest reports 3 passed. The suite is green now.\n✅ all good"},
        {"text": json.dumps({"complete": True, "missing": [], "claims": claims})},
    ]
    _, report, result = both(tmp_path, lambda root: calc(root, plan), turns, "--yes")
    failed = "`python3 -m unittest` exit 1 (1 passed, 1 failed)"
    assert report.startswith(f"Result: tests failing (the last run of {failed})")
    assert f"Commands run: 2\n  ok   `python3 -m unittest` exit 0 (2 passed)\n  FAIL {failed}\n" in report
    lines = report[report.index("Claims in the final message:") :].splitlines()[1:]
    assert lines == [
        f'  UNCHECKED "pytest reports 3 passed" — the last test run {failed}',
        f'  UNCHECKED "The suite is green now." — the last test run {failed}',
        f'  UNCHECKED "✅ all good" — the last test run {failed}',
    ]
    assert (result["status"], result["exit_code"]) == ("tests failing", 1)
    assert result["report"]["unchecked_claims"] == 3
    assert [c["checked"] for c in result["report"]["claims"]] == [False, False, False]


def test_files_changed_outside_git_come_from_a_snapshot(tmp_path):
    plan = "- [ ] Fix `add` in `calc.py` and bump the version\n"

    def make(root: Path) -> Path:
        calc(root, plan, repo=False)
        (root / "shop").mkdir()
        (root / "shop" / "cart.py").write_text("VERSION = 1\n")
        (root / ".gitignore").write_text("build/\n")
        return root

    bump = "sed -i s/1/2/ shop/cart.py && mkdir -p build && echo x > build/out.txt && python3 -m unittest -q"
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="calc.py")]},
        {"tool_uses": [use("edit_file", path="calc.py", old_string="return a - b", new_string="return a + b")]},
        {"tool_uses": [use("bash", command=bump), use("bash", command="python3 -m pytest -q -p no:randomly")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "Fixed calc.py and bumped shop/cart.py."},
        VERDICT,
    ]
    run, report, result = both(tmp_path, make, turns, "--yes")
    assert not (tmp_path / "text" / ".git").exists() and (tmp_path / "text" / "build" / "out.txt").is_file()
    assert list((tmp_path / "text" / ".pytest_cache").rglob("*")), "pytest wrote its cache, which is not the run's work"
    assert report.startswith("Result: done (the model finished its turn)")
    assert "  [x] 1. Fix `add` in `calc.py` and bump the version\n        evidence: `sed -i" in report
    files = report[report.index("Files changed:") :]
    files = files[: files.index("\n", files.index(" deletions(-)")) + 1]
    assert files == (
        "Files changed: 2\n   calc.py      | 2 +-\n   shop/cart.py | 2 +-\n   2 files changed, 2 insertions(+), 2 deletions(-)\n"
    )
    assert 'checked   "Fixed calc.py and bumped shop/cart.py." — calc.py was changed in this run' in report
    assert run.returncode == 0 and result["status"] == "done"
    assert result["report"]["files_changed"] == ["calc.py", "shop/cart.py"] and result["report"]["files_capped"] == ""
