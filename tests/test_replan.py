"""Re-planning mid-run: write_plan inside an execute run revises that run's plan, keeps every
done item byte for byte, and the new revision waits for the user's yes before the next item."""

from __future__ import annotations

import pytest

from cast.options import Options
from cast.plans.revisions import Revisions
from cast.runs import bind_revision
from cast.safety.decision import Answers
from cast.tools.base import ToolContext, run_tool
from cast.tools.evidence import Ledger
from cast.tools.plan import RunPlan, write_plan_tool
from cast.tools.tasks import TaskBoard
from cast.workspace import Workspace

FRONT = "---\ntask: Fix add\nsession: 2026-12-01-fix-add\ncreated: 2026-12-01T10:00:00Z\n---\n"
BODY = "# Plan: Fix add\n\n- [x] Fix `add` in `calc.py`\n  - verify: `python3 -m unittest`\n- [ ] Add a test\n- [ ] Update the README\n"


@pytest.fixture
def executing(tmp_path):
    root = tmp_path / "ws"
    plan = root / ".cast" / "plans" / "2026-12-01-fix-add" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(FRONT + BODY)
    asked = []
    board = TaskBoard(plan, Ledger())
    bind_revision(board, root, Options(approver=Answers(lambda r: "yes", revision=lambda r: asked.append(r) or "yes")))
    ctx = ToolContext(workspace=Workspace(root), session_id="2026-12-01-fix-add-exec")
    write_plan = write_plan_tool(RunPlan("2026-12-01-fix-add-exec", path=plan, board=board))  # as the execute run builds it
    return ctx, plan, asked, board, write_plan


def test_a_replan_revises_the_executed_plan_and_keeps_done_items_byte_for_byte(executing):
    ctx, plan, asked, board, write_plan = executing
    approved = board.approved
    revised = BODY.replace("- [ ] Add a test\n", "- [ ] Add a test for negative numbers\n- [ ] Add a test for zero\n")
    obs = run_tool(write_plan, {"name": "anything", "content": revised}, ctx)
    assert obs.ok, obs.text
    assert "the plan being executed" in obs.text
    assert plan.read_text() == FRONT + revised  # same file, same front matter, the done item untouched
    assert not (plan.parent.parent / "2026-12-01-fix-add-exec").exists()  # no second plan
    history = Revisions(plan.parents[3], plan).history()
    assert [r.author for r in history] == ["user", "model"] and history[-1].id == obs.result.revision
    board.sync()
    board.update(2, "in_progress", "")  # the next item starts only after the user saw the change
    (request,) = asked
    assert request.approved == approved and request.author == "model"
    assert any("added" in change and "negative numbers" in change for change in request.changes)


@pytest.mark.parametrize(
    "content",
    [
        BODY.replace("- [x] Fix `add` in `calc.py`", "- [x] Fix `add` in calc.py"),  # reworded
        BODY.replace("- [x] Fix", "- [ ] Fix"),  # unticked
        BODY.replace("- [x] Fix `add` in `calc.py`\n", ""),  # dropped
    ],
)
def test_a_replan_that_touches_a_done_item_is_refused(executing, content):
    ctx, plan, asked, _, write_plan = executing
    obs = run_tool(write_plan, {"name": "plan", "content": content}, ctx)
    assert not obs.ok and "item 1 is done" in obs.text and "Fix `add` in `calc.py`" in obs.text
    assert plan.read_text() == FRONT + BODY
