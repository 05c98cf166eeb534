"""Counts in what the model and the user read say `1 item`, never `1 items`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cast.agent import events as ev
from cast.agent import selfcheck
from cast.agent.claims import Facts, check_text
from cast.agent.context import ContextEconomy
from cast.agent.transcript import Transcript, text_block, tool_result_block
from cast.models.scripted import ScriptedModel
from cast.plans.checklist import PlanError, PlanFile
from cast.tools.base import ToolContext, ToolError, run_tool
from cast.tools.edit import WRITE_FILE
from cast.tools.evidence import CommandRun, Ledger
from cast.tools.files import READ_FILE
from cast.tools.tasks import TaskBoard
from cast.workspace import Workspace


def one_item_plan(tmp_path: Path) -> Path:
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n- [ ] Fix the menu\n")
    return path


def test_task_board_counts_one_item(tmp_path):
    board = TaskBoard(one_item_plan(tmp_path), Ledger())
    assert board.update(1, "in_progress", "").endswith("\n1 of 1 item left; next: 1. Fix the menu")
    assert board.update(1, "done", "fixed by hand").endswith("\n0 of 1 item left")
    with pytest.raises(ToolError, match=r"the plan has 1 item \(ids"):
        board.update(2, "done", "")


def test_checklist_counts_one_item(tmp_path):
    with pytest.raises(PlanError, match=r"has 1 item$"):
        PlanFile(one_item_plan(tmp_path)).set_checked(2)


def test_file_tools_count_one_line_and_one_byte(tmp_path):
    ctx = ToolContext(workspace=Workspace(tmp_path))
    assert run_tool(WRITE_FILE, {"path": "a.txt", "content": "x"}, ctx).text == "created a.txt (1 byte, 1 line)"
    past = run_tool(READ_FILE, {"path": "a.txt", "offset": 5}, ctx)
    assert not past.ok and past.text.endswith("past the end of a.txt (1 line)")


def test_claim_checks_count_one_test_and_one_item():
    facts = Facts(commands=[CommandRun("python3 -m pytest", 0, {"passed": 1})], done={1: "a"})
    [claim] = check_text("Ran 2 tests, all tests pass.", facts)
    assert claim.evidence == "the last run counted 1 test, not 2"
    [claim] = check_text("One task is complete.", facts)
    assert claim.checked and claim.evidence == "1 of 1 plan item is ticked"


def test_write_file_summary_counts_one_byte(tmp_path):
    ctx = ToolContext(workspace=Workspace(tmp_path))
    assert run_tool(WRITE_FILE, {"path": "a.txt", "content": "x"}, ctx).summary == "created, 1 byte"


def test_aging_notice_counts_one_old_result():
    t = Transcript()
    t.add_user([text_block("the task")])
    for i in range(4):
        t.add_assistant([{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": f"f{i}.py"}}])
        t.add_user([tool_result_block(f"t{i}", f"f{i}.py: lines 1-200 of 900\n" + "x" * 8_000, False)])
    economy = ContextEconomy(
        None, age_threshold_tokens=4_000, compact_threshold_tokens=10**9, keep_recent_steps=3, min_batch_tokens=1_000
    )
    [notice] = list(economy(t))
    assert "shrank 1 old tool result to one-line elisions" in notice.text, notice.text


def test_self_check_counts_one_earlier_step(monkeypatch):
    monkeypatch.setattr(selfcheck, "STEPS_SHOWN", 1)
    model = ScriptedModel([{"text": '{"complete": true, "missing": [], "claims": []}'}])
    check = selfcheck.SelfCheck(model, task="t")
    for i in range(2):
        check.observe(ev.ToolResult(f"t{i}", "read_file", True, "lines 1-1 of 1", "", input={"path": f"f{i}.py"}))
    check._ask_model("Done.")
    assert "(1 earlier step not shown)\n2. read_file f1.py" in json.dumps(model.requests[0].messages, ensure_ascii=False).replace(
        "\\n", "\n"
    )
