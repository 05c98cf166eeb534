"""cast plan → cast execute → resume, end to end: real subprocesses on a real git repository,
driven by the recorded scripts the README's offline demo uses."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, write_script
from conftest import invoke_cast as cast

from cast.plans.checklist import parse
from cast.sessions import sessions_dir
from cast.trust import record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def calc(tmp_path) -> Path:
    root = tmp_path / "calc"
    shutil.copytree(EXAMPLES / "calc", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "calc")
    record(root, trusted=True)  # its config allows its test command, a loosening key
    return root


def plan(calc: Path) -> Path:
    done = cast(calc, "--model", f"script:{EXAMPLES / 'scripts' / 'plan.jsonl'}", "plan", "Fix add and cover negative numbers")
    assert done.returncode == 0, done.stderr + done.stdout
    path = Path(done.stdout.strip().splitlines()[-1])
    assert path.is_file() and path.parent.parent == calc / ".cast" / "plans"
    return path


def checks(path: Path) -> list[bool]:
    return [item.checked for item in parse(path.read_text())]


def requests(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def test_plan_then_execute_fixes_the_bug_and_ticks_both_items(calc):
    plan_path = plan(calc)
    assert checks(plan_path) == [False, False]
    assert subprocess.run([sys.executable, "-m", "unittest"], cwd=calc, capture_output=True).returncode == 1
    done = cast(calc, "--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute")
    assert done.returncode == 0, done.stderr + done.stdout
    assert checks(plan_path) == [True, True]
    assert "return a + b" in (calc / "calc.py").read_text()
    tests = subprocess.run([sys.executable, "-m", "unittest"], cwd=calc, capture_output=True, text=True)
    assert tests.returncode == 0 and "Ran 3 tests" in tests.stderr
    listing = cast(calc, "plans", "--all")  # finished: listed only with --all
    assert listing.stdout.startswith("2/2\t")
    again = cast(calc, "execute")
    assert again.returncode == 2 and "no plan with unticked items" in again.stderr
    # Named, the finished plan is nothing to do; --json says so with every key a run's result has
    # (CI reads plan_revision from it), the revision that was executed.
    ran = json.loads(cast(calc, "--json", "--model", "script:unused.jsonl", "execute", str(plan_path)).stdout)
    keys = ["type", "status", "reason", "exit_code", "session", "plan_path", "plan_revision", "steps", "usage", "cost", "report"]
    assert list(ran) == keys and (ran["status"], ran["exit_code"], ran["steps"]) == ("done", 0, 0)
    history = cast(calc, "plans", "--history", str(plan_path), "--json").stdout.splitlines()
    assert ran["plan_revision"] == json.loads(history[-1])["revision"]


def test_kill_9_after_item_one_then_resume_finishes_item_two_only(calc, tmp_path):
    plan_path = plan(calc)
    first = write_script(
        tmp_path / "first.jsonl",
        [
            {
                "tool_uses": [
                    {"name": "update_task", "input": {"id": 1, "status": "in_progress"}},
                    {"name": "read_file", "input": {"path": "calc.py"}},
                ]
            },
            {"tool_uses": [{"name": "edit_file", "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "python3 -m unittest"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "sleep 29.25"}}]},
        ],
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "cast", "--model", f"script:{first}", "execute", "--yes"],
        cwd=calc,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while checks(plan_path) != [True, False] and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    subprocess.run(["pkill", "-f", "sleep 29.25"])
    assert checks(plan_path) == [True, False]
    record = tmp_path / "requests.jsonl"
    second = write_script(
        tmp_path / "second.jsonl",
        [
            {"tool_uses": [{"name": "read_file", "input": {"path": "test_calc.py"}}]},
            {
                "tool_uses": [
                    {
                        "name": "edit_file",
                        "input": {
                            "path": "test_calc.py",
                            "old_string": "    def test_mul(self):",
                            "new_string": "    def test_add_negative(self):\n        self.assertEqual(add(-2, -3), -5)\n\n    def test_mul(self):",
                        },
                    }
                ]
            },
            {"tool_uses": [{"name": "bash", "input": {"command": "python3 -m unittest"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done"}}]},
            {"text": "Item 2 done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    done = cast(calc, "--model", f"script:{second}", "execute", plan_path.parent.name, record=record)
    assert done.returncode == 0, done.stderr + done.stdout
    assert checks(plan_path) == [True, True]
    brief = requests(record)[0]["messages"][0]["content"][0]["text"]
    assert "1. [x] Fix `add`" in brief and "Start with item 2" in brief
    assert (calc / "calc.py").read_text().count("a + b") == 1


EDIT_PLAN = """python3 - <<'EOF'
import pathlib
path = next(pathlib.Path('.cast/plans').glob('*/plan.md'))
text = path.read_text()
text = text.replace('- [ ] Add `test_add_negative`', '- [ ] Update README.md with a usage line\\n- [ ] Add `test_add_zero` and `test_add_negative`')
path.write_text(text)
EOF"""

REORDER_PLAN = """python3 - <<'EOF'
import pathlib
path = next(pathlib.Path('.cast/plans').glob('*/plan.md'))
lines = path.read_text().splitlines(keepends=True)
a = next(i for i, l in enumerate(lines) if l.startswith('- [ ] Fix'))
b = next(i for i, l in enumerate(lines) if l.startswith('- [ ] Add'))
lines[a], lines[b] = lines[b], lines[a]
path.write_text(''.join(lines))
EOF"""


def test_plan_edited_mid_run_adds_and_rewords_items(calc, tmp_path):
    plan_path = plan(calc)
    record = tmp_path / "requests.jsonl"
    script = write_script(
        tmp_path / "edit.jsonl",
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "done by hand"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": EDIT_PLAN}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 3, "status": "done", "note": "done by hand"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done", "note": "done by hand"}}]},
            {"text": "All three done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    done = cast(calc, "--model", f"script:{script}", "execute", "--yes", record=record)
    assert done.returncode == 0, done.stderr + done.stdout
    items = parse(plan_path.read_text())
    assert [(i.text.split()[0], i.checked) for i in items] == [("Fix", True), ("Update", True), ("Add", True)]
    told = json.dumps(requests(record)[2]["messages"][-2:])  # the plan in the user turn, then a system notice
    assert "edited the plan file" in told and "2. [ ] Update README.md" in told and "3. [ ] Add `test_add_zero`" in told


def test_plan_reordered_mid_run(calc, tmp_path):
    plan_path = plan(calc)
    script = write_script(
        tmp_path / "reorder.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": REORDER_PLAN}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "done by hand"}}]},
            {"text": "Stopping here."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
            {"text": "Still stopping."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    done = cast(calc, "--model", f"script:{script}", "execute", "--yes")
    items = parse(plan_path.read_text())
    assert [(i.text.split()[0], i.checked) for i in items] == [("Add", True), ("Fix", False)]
    assert done.returncode == 1 and "1 plan item not done" in done.stderr
    assert "Result: incomplete (1 plan item not done: 2)" in done.stdout


def test_no_terminal_without_yes_refuses_and_yes_still_refuses_the_deny_list(calc, tmp_path):
    plan(calc)
    record = tmp_path / "requests.jsonl"
    script = write_script(
        tmp_path / "refuse.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": "touch made.txt"}}]},
            {"text": "Could not."},
            {"text": "Really could not."},
        ],
    )
    cast(calc, "--model", f"script:{script}", "execute", record=record)
    assert not (calc / "made.txt").exists()
    assert "approval needed" in json.dumps(requests(record)[1]["messages"][-1])
    home = Path(os.environ["HOME"])
    (home / "keep.txt").write_text("precious")
    record2 = tmp_path / "requests2.jsonl"
    script2 = write_script(
        tmp_path / "deny.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": "rm -rf ~"}}]},
            {"text": "Refused."},
            {"text": "Refused."},
        ],
    )
    cast(calc, "--model", f"script:{script2}", "execute", "--yes", record=record2)
    assert (home / "keep.txt").read_text() == "precious"
    assert "never runs this" in json.dumps(requests(record2)[1]["messages"][-1])


def test_ctrl_c_during_a_command_stops_the_run_and_records_that_it_ran(calc, tmp_path):
    plan_path = plan(calc)
    script = write_script(
        tmp_path / "slow.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": "touch started.txt; sleep 29.5"}}]},
            {"text": "never reached"},
        ],
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "cast", "--model", f"script:{script}", "execute", "--yes"],
        cwd=calc,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not (calc / "started.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    interrupted_at = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - interrupted_at < 20  # well under the sleep of 29.5 s, with room for a loaded machine
    assert proc.returncode == 1 and "interrupted" in out
    assert subprocess.run(["pgrep", "-f", "sleep 29.5"], capture_output=True).returncode == 1  # no sleep left behind
    journal = next(sessions_dir(calc).glob("*-exec/transcript.jsonl")).read_text()
    result = next(
        b
        for line in journal.splitlines()
        for b in json.loads(line).get("content", [])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    )
    assert result["content"].startswith("exit_code=") and "[interrupted by user" in result["content"]
    assert "Commands run: 1" in out and checks(plan_path) == [False, False]


def test_a_plan_another_live_cast_is_executing_is_not_executed_twice(calc):
    """Two runs on one plan would edit the same files and tick the same items: the second is
    refused (exit 2) while the first's process lives, and goes on once it is gone."""
    from cast.sessions import Session

    plan_path = plan(calc).resolve()
    other = subprocess.Popen(["sleep", "60"])
    try:
        running = Session.create(calc, "2026-12-01-elsewhere-exec", mode="execute", task="t", model="m", plan_path=plan_path)
        running.update(pid=other.pid)  # an execute run in another process, alive
        refused = cast(calc, "--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"is being executed by another cast (process {other.pid}, session 2026-12-01-elsewhere-exec)" in refused.stderr
        assert checks(plan_path) == [False, False]
    finally:
        other.kill()
    os.waitid(os.P_PID, other.pid, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped: a zombie is not a live cast
    try:
        done = cast(calc, "--model", f"script:{EXAMPLES / 'scripts' / 'execute.jsonl'}", "execute")
        assert done.returncode == 0 and checks(plan_path) == [True, True], done.stderr
    finally:
        other.wait()
