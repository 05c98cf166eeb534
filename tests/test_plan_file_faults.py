"""Plan files that misbehave: bytes that are not UTF-8, and a plan that disappears mid-run.

End to end through `python -m cast execute` on real git repositories, plus the task board, the
self-check and the report on their own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import invoke_cast as cast
from conftest import write_script

from cast.agent import events as ev
from cast.agent.report import ReportBuilder
from cast.agent.selfcheck import SelfCheck
from cast.agent.tasklist import task_event
from cast.models.scripted import ScriptedModel
from cast.plans.checklist import parse
from cast.sessions import sessions_dir
from cast.tools.base import ToolError
from cast.tools.evidence import Ledger
from cast.tools.tasks import TaskBoard

SESSION = "2026-01-05-fix-the-menu"
TWO_ITEMS = f"---\ntask: Fix the menu\nsession: {SESSION}\n---\n# Plan\n- [ ] Fix the menu\n- [ ] Test the menu\n"


def plan_at(root: Path, data: bytes) -> Path:
    path = root / ".cast" / "plans" / SESSION / "plan.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def journal(root: Path) -> list[dict]:
    [path] = sessions_dir(root).glob("*/transcript.jsonl")
    return [json.loads(line) for line in path.read_bytes().splitlines()]


# -- bytes that are not UTF-8 -----------------------------------------------------------------
def test_execute_ticks_a_plan_with_a_latin1_byte_and_crlf_leaving_every_other_byte(repo, tmp_path):
    original = (
        b"---\r\ntask: Fix the caf\xe9 menu\r\nsession: " + SESSION.encode() + b"\r\n---\r\n"
        b"# Plan: caf\xe9\r\n- [ ] Fix the caf\xe9 menu\r\n- [x] Already done\r\n"
    )
    path = plan_at(repo, original)
    record = tmp_path / "requests.jsonl"
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "the menu needed no change"}}]},
            {"text": "Fixed the menu."},
            {"text": '{"complete": true, "missing": []}'},
        ],
    )
    done = cast(repo, "--model", f"script:{script}", "execute", record=record)
    assert done.returncode == 0, done.stderr + done.stdout
    after = path.read_bytes()
    at = original.index(b"[ ] Fix") + 1
    assert len(after) == len(original)
    assert [i for i in range(len(after)) if after[i] != original[i]] == [at] and after[at : at + 1] == b"x"
    brief = json.loads(record.read_text().splitlines()[0])["messages"][0]["content"][0]["text"]
    assert "1. [ ] Fix the caf\ufffd menu" in brief
    assert any("caf\ufffd" in json.dumps(message, ensure_ascii=False) for message in journal(repo))


def test_item_text_is_clean_text_and_offsets_stay_byte_exact():
    data = b"- [ ] caf\xe9 \xff\xfe end\r\n  - [ ] ok \xc3\xa9\r\n"
    items = parse(data.decode("utf-8", "surrogateescape"))
    assert [i.text for i in items] == ["caf\ufffd \ufffd\ufffd end", "ok \u00e9"]
    assert [data[i.offset : i.offset + 1] for i in items] == [b" ", b" "]
    assert items[1].offset == data.index(b"[ ] ok") + 1


def test_the_board_listing_of_a_plan_with_bad_bytes_encodes(tmp_path):
    board = TaskBoard(plan_at(tmp_path, b"- [ ] caf\xe9\n"), Ledger())
    board.listing().encode("utf-8")
    assert "caf\ufffd" in board.update(1, "in_progress", "")


# -- a plan that disappears -------------------------------------------------------------------
def test_execute_reports_a_plan_moved_away_mid_run_once_and_consistently(repo, tmp_path):
    path = plan_at(repo, TWO_ITEMS.encode())
    record = tmp_path / "requests.jsonl"
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": f"mv .cast/plans/{SESSION}/plan.md moved-plan.md"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "echo still working"}}]},
            {"text": "All items are done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
            {"text": "The plan file is gone; I stop here."},
            {"text": '{"complete": false, "missing": ["the plan file"], "claims": []}'},
        ],
    )
    done = cast(repo, "--model", f"script:{script}", "execute", "--yes", record=record)
    assert not path.exists() and (repo / "moved-plan.md").is_file()
    assert done.returncode == 1 and "2 plan items not done: 1, 2" in done.stderr, done.stderr
    assert f"Plan: plan file missing — {path}; when last read, 0/2 items done" in done.stdout, done.stdout
    assert "[ ] 1. Fix the menu" in done.stdout and "[ ] 2. Test the menu" in done.stdout
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(requests) == 6  # the self-check's call follows each of the two final messages
    history = json.dumps(requests[-2]["messages"])
    assert history.count("no longer exists") == 1, "the model is told once, not after every step"
    assert "no longer exists" in json.dumps(requests[1]["messages"][-2])  # the user turn; a system notice follows
    back = json.dumps(requests[4]["messages"][-1])
    assert "self-check" in back and "is missing; 2 items were unfinished when it was last read" in back
    assert "Fix the menu" in back and "Test the menu" in back


def test_task_board_says_once_that_the_plan_is_gone_and_once_that_it_is_back(tmp_path):
    path = plan_at(tmp_path, TWO_ITEMS.encode())
    board = TaskBoard(path, Ledger())
    rows = board.rows()
    path.rename(tmp_path / "away.md")
    first = board.sync()
    assert len(first) == 1 and "no longer exists" in first[0]
    assert board.sync() == [] and board.sync() == []
    assert board.rows() == rows and len(board.remaining()) == 2
    (tmp_path / "away.md").rename(path)
    assert board.sync() == [f"the plan file {path} is back, unchanged"]
    assert board.sync() == []
    path.unlink()
    assert board.sync() != []
    path.write_text(TWO_ITEMS.replace("- [ ] Test", "- [x] Test"))
    back = board.sync()
    assert back[0] == f"the plan file {path} is back" and "ticked by hand" in back[1]


def test_ticking_while_the_plan_is_gone_is_an_error_and_sync_does_not_repeat_it(tmp_path):
    path = plan_at(tmp_path, TWO_ITEMS.encode())
    board = TaskBoard(path, Ledger())
    path.unlink()
    with pytest.raises(ToolError, match="no longer exists"):
        board.update(1, "done", "")
    assert board.sync() == []
    assert "blocked" in board.update(2, "blocked", "the plan file is gone")


def test_self_check_and_report_use_the_items_last_seen(tmp_path):
    path = plan_at(tmp_path, TWO_ITEMS.encode())
    board = TaskBoard(path, Ledger())
    check = SelfCheck(ScriptedModel([]), task="Fix the menu", plan_path=path)
    builder = ReportBuilder(tmp_path, path, git=False)
    board.update(1, "done", "fixed by hand")
    for event in (ev.StepStarted(1), task_event(board), ev.Stopped("done", "finished", 1)):
        check.observe(event)
        builder.observe(event)
    path.unlink()
    assert check.facts() == [
        f"The plan file {path} is missing; 1 item was unfinished when it was last read: 2. 'Test the menu'. "
        "Items cannot be ticked until the file is back."
    ]
    report = builder.build("")
    assert report.plan_lost == "missing" and report.ticked_this_run == 1
    assert [i.text for i in report.items_done] == ["Fix the menu"]
    assert [i.text for i in report.items_left] == ["Test the menu"]
    assert f"Plan: plan file missing — {path}; when last read, 1/2 items done (1 this run)" in report.render_text()
