"""`cast verify` after a real plan → execute of the offline demo: it passes, and once an item's fix
is reverted it fails naming that item. The CLI runs in-process (typer's runner) on a real git
repository; the verification commands run for real through execute mode's bash tool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import git
from typer.testing import CliRunner

from cast.cli import app
from cast.plans.checklist import parse
from cast.trust import record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def cast(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def calc(tmp_path, monkeypatch) -> Path:
    """The offline demo's project, committed, trusted (its config allows its test command), as cwd."""
    root = tmp_path / "calc"
    shutil.copytree(EXAMPLES / "calc", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "calc")
    record(root, trusted=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def executed(calc) -> Path:
    root = calc
    planned = cast("--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add and cover negative numbers")
    assert planned.exit_code == 0, planned.output
    done = cast("--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute")
    assert done.exit_code == 0, done.output
    plan = next((root / ".cast" / "plans").glob("*/plan.md"))
    assert [i.checked for i in parse(plan.read_text())] == [True, True]
    return root


def test_verify_passes_after_execute_and_fails_naming_the_reverted_item(executed):
    passed = cast("verify")
    assert passed.exit_code == 0, passed.output
    assert "PASS  1. Fix `add`" in passed.output and "PASS  2. Add `test_add_negative`" in passed.output
    assert "`python3 -m unittest` exit_code=0" in passed.output
    assert "calc.py still carries the item's change" in passed.output
    assert passed.output.rstrip().endswith("2 passed, 0 failed")

    before = cast("--json", "verify")  # the common option, given before the command
    assert [json.loads(line)["status"] for line in before.output.splitlines()] == ["PASS", "PASS", "passed"]

    git(executed, "checkout", "--", "calc.py")  # the fix of item 1 is reverted; item 2's test stays
    failed = cast("verify", "--json")
    assert failed.exit_code == 1
    rows = [json.loads(line) for line in failed.output.splitlines()]
    items = {row["number"]: row for row in rows if row["type"] == "item"}
    assert items[1]["status"] == "FAIL"
    assert any("calc.py: it is back to what it was before the item" in r for r in items[1]["reasons"])
    assert items[2]["status"] == "FAIL" and "test_calc.py" in items[2]["files"]  # its test fails, its file holds
    assert any("test_calc.py still carries" in r for r in items[2]["reasons"])
    assert rows[-1]["type"] == "result" and rows[-1]["exit_code"] == 1 and len(rows[-1]["plan_revision"]) == 12


def test_a_hand_ticked_item_with_nothing_to_check_is_skipped_not_passed(tmp_path, monkeypatch):
    root = tmp_path / "ws"
    plan = root / ".cast" / "plans" / "2026-12-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("---\ntask: x\nsession: 2026-12-01-x\n---\n# Plan\n\n- [x] Talk to the team\n- [ ] Later\n")
    monkeypatch.chdir(root)
    done = cast("verify")
    assert done.exit_code == 0
    assert "SKIP  1. Talk to the team" in done.output and "nothing to re-check" in done.output
    assert "0 passed, 0 failed, 1 skipped" in done.output


def test_verify_without_a_ticked_plan_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(app, ["verify"])
    assert done.exit_code == 2 and "no plan has a ticked item" in done.output


def test_plan_writes_are_revisions_by_the_model_and_edits_between_runs_by_the_user(calc, tmp_path):
    from cast.plans.revisions import Revisions, revision_id

    root = calc
    planned = cast("--json", "--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add")
    result = json.loads(planned.stdout.strip().splitlines()[-1])
    plan = Path(result["plan_path"])
    assert result["plan_revision"] == revision_id(plan.read_bytes())
    store = Revisions(root, plan)
    assert [(r.id, r.author) for r in store.history()] == [(result["plan_revision"], "model")]
    plan.write_text(plan.read_text().replace("- [ ] Add", "- [x] Add"))  # a tick: no revision
    plan.write_text(plan.read_text() + "- [ ] Update the changelog\n")
    cast("--model", f"script:{tmp_path / 'none.jsonl'}", "execute")  # fails on the missing script, after opening the plan
    history = store.history()
    assert [r.author for r in history] == ["model", "user"] and history[-1].items == 3


def test_execute_revision_refuses_a_changed_plan_and_runs_one_changed_only_by_ticks(calc):
    from cast.plans.revisions import revision_id

    root = calc
    planned = cast("--json", "--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add")
    result = json.loads(planned.stdout.strip().splitlines()[-1])
    plan, approved = Path(result["plan_path"]), result["plan_revision"]
    original = plan.read_text()

    plan.write_text(original.replace("covering `add(-2, -3) == -5`", "covering `add(-2, -3) == -5` and zero"))
    refused = cast("--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute", "--revision", approved)
    assert refused.exit_code == 2 and f"not {approved}" in refused.output
    assert "item 2 reworded:" in refused.output and "and zero" in refused.output
    assert "return a - b" in (root / "calc.py").read_text()  # nothing ran

    for unset in ("", "  ", approved[:3]):  # `--revision "$APPROVED_REVISION"` with the variable unset, or too short
        blank = cast("--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute", "--revision", unset)
        assert blank.exit_code == 2 and f"--revision {unset!r} is not a revision id" in blank.output, blank.output
    plan.write_text(original.replace("- [ ] Fix", "- [x] Fix"))  # only a tick: still the approved revision
    assert revision_id(plan.read_bytes()) == approved
    plan.write_text(original)
    done = cast("--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute", "--revision", approved[:8])
    assert done.exit_code == 0, done.output
    assert "return a + b" in (root / "calc.py").read_text()


def test_history_and_revision_diff_show_who_changed_which_items(calc):
    root = calc
    cast("--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add")
    plan = next((root / ".cast" / "plans").glob("*/plan.md"))
    session = plan.parent.name
    plan.write_text(plan.read_text() + "- [ ] Update the changelog\n")
    shown = cast("plans", "--history", session)
    rows = shown.stdout.strip().splitlines()
    assert len(rows) == 2 and " model " in rows[0] and "first revision" in rows[0]
    assert " user " in rows[1] and 'item 3 added: "Update the changelog"' in rows[1]
    diffed = cast("diff", "--plan", session)
    assert diffed.exit_code == 0
    assert 'item 3 added: "Update the changelog"' in diffed.stdout and "+- [ ] Update the changelog" in diffed.stdout
    first = rows[0].split()[0]
    again = cast("diff", "--plan", session, first[:7])
    assert f"revision {first} →" in again.stdout
    bad = cast("diff", "--plan", session, "zzzzzzzz")
    assert bad.exit_code == 2 and "is not a revision of this plan" in bad.output
    as_json = json.loads(cast("diff", "--plan", session, "--json").stdout)
    assert as_json["type"] == "revision_diff" and as_json["from"] == first and as_json["to"] == rows[1].split()[0]
    assert as_json["items"] == ['item 3 added: "Update the changelog"'] and "+- [ ] Update the changelog" in as_json["patch"]


def test_a_plan_changed_during_a_pinned_run_stops_it_before_anything_else_is_done(calc, tmp_path):
    """CI runs exactly the reviewed plan: changed mid-run, the run stops at the next item (exit 1)
    instead of telling the model to stop and going on with what it does next."""
    from conftest import write_script

    planned = cast("--json", "--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add")
    result = json.loads(planned.stdout.strip().splitlines()[-1])
    plan, approved = Path(result["plan_path"]), result["plan_revision"]
    sneak = f"printf -- '- [ ] Sneak in an item\\n' >> {plan}"
    script = write_script(
        tmp_path / "sneak.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": sneak}}]},  # the plan changes under the run
            {
                "tool_uses": [
                    {"name": "update_task", "input": {"id": 1, "status": "in_progress"}},
                    {"name": "write_file", "input": {"path": "after.txt", "content": "done anyway\n"}},
                ]
            },
            {"tool_uses": [{"name": "write_file", "input": {"path": "later.txt", "content": "done anyway\n"}}]},
            {"text": "Done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    ran = cast("--model", f"script:{script}", "execute", "--yes", "--revision", approved)
    assert ran.exit_code == 1, ran.output
    assert "Sneak in an item" in plan.read_text()
    assert not (calc / "after.txt").exists() and not (calc / "later.txt").exists()
    assert f"the changed plan was not approved, the run is pinned to revision {approved}: item 3 added" in ran.output


def test_ctrl_c_stops_verify_and_no_item_is_failed_for_it(tmp_path):
    """Ctrl+C while a verification runs kills it and ends `cast verify` there: the killed command is
    not an item failing, the items left are named as not re-checked, and the exit is 1 (never a pass)."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import cast_env

    root = tmp_path / "ws"
    plan = root / ".cast" / "plans" / "2026-12-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(
        "---\ntask: x\nsession: 2026-12-01-x\n---\n# Plan\n\n"
        "- [x] Wait once\n  - verify: `sleep 29.25`\n- [x] Wait again\n  - verify: `sleep 29.5`\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "cast", "verify", "--yes"],
        cwd=root,
        env=cast_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not _running("sleep\x0029.25\x00") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running("sleep\x0029.25\x00"), "item 1's verification never started"
    started = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert time.monotonic() - started < 15 and not _running("sleep\x0029.5\x00")  # item 2's wait never started
    assert child.returncode == 1, out + err
    assert "FAIL" not in out and "Traceback" not in err
    assert out.rstrip().endswith("interrupted by user; not re-checked:\n  1. Wait once\n  2. Wait again"), out


def _running(cmdline: str) -> bool:
    from pathlib import Path

    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_text() == cmdline:
                return True
        except OSError:
            continue
    return False


def test_a_refusal_without_a_terminal_says_where_an_allow_rule_counts(tmp_path, monkeypatch):
    """The workspace's own allow rule is ignored until it is trusted, so the advice names the
    user's config and `cast trust`, not only .cast/config.toml (where it already is)."""
    root = tmp_path / "ws"
    plan = root / ".cast" / "plans" / "2026-12-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    (root / ".cast" / "config.toml").write_text('allow = ["python3 -c*"]\n')
    plan.write_text("---\ntask: x\nsession: 2026-12-01-x\n---\n# Plan\n\n- [x] Check\n  - verify: `python3 -c pass`\n")
    monkeypatch.chdir(root)
    done = cast("verify")
    assert done.exit_code == 1 and "did not run: error: approval needed" in done.output
    assert "~/.config/cast/config.toml, or to .cast/config.toml in a workspace you trust (cast trust)" in done.output
