"""Plan revisions: ticks make none, every other change makes one, each kept with its author."""

from __future__ import annotations

import os

import pytest

from cast.plans.checklist import PlanError
from cast.plans.revisions import Revisions, item_diff, revision_id, text_diff
from cast.state import workspace_state_path

PLAN = b"""---
task: Fix add
session: 2026-12-01-fix-add
---
# Plan: Fix add

- [ ] Fix `add` in `calc.py`
  - verify: `python3 -m unittest`
- [ ] Add `test_add_negative`
- [ ] Update the README
"""


@pytest.fixture
def plan(tmp_path):
    path = tmp_path / "ws" / ".cast" / "plans" / "2026-12-01-fix-add" / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(PLAN)
    return path


def test_ticks_do_not_make_a_revision_but_a_reworded_item_does():
    ticked = PLAN.replace(b"- [ ] Fix", b"- [x] Fix").replace(b"- [ ] Update", b"- [X] Update")
    assert revision_id(ticked) == revision_id(PLAN)
    assert revision_id(PLAN.replace(b"README", b"docs")) != revision_id(PLAN)
    assert revision_id(PLAN.replace(b"# Plan: Fix add\n", b"# Plan: Fix add\nWhy: it subtracts.\n")) != revision_id(PLAN)


def test_each_write_is_kept_once_with_its_author_and_text(plan, tmp_path):
    root = tmp_path / "ws"
    store = Revisions(root, plan)
    first, new = store.record("model")
    assert new and first.author == "model" and first.items == 3
    assert store.record("user") == (first, False)  # nothing changed: no revision
    plan.write_bytes(PLAN.replace(b"- [ ] Fix", b"- [x] Fix"))
    assert store.record("user")[1] is False  # a tick is not a revision
    plan.write_bytes(PLAN.replace(b"- [ ] Update the README\n", b"- [ ] Update the README\n- [ ] Tag a release\n"))
    second, new = store.record("user")
    assert new and second.author == "user" and second.items == 4
    assert [r.id for r in store.history()] == [first.id, second.id]
    assert store.text(first.id[:6]) == PLAN  # stored without ticks, resolvable by a prefix
    kept = workspace_state_path(root) / "revisions" / "2026-12-01-fix-add"
    assert sorted(os.listdir(kept)) == sorted([f"{first.id}.md", f"{second.id}.md", "revisions.jsonl"])
    assert not (root / ".cast" / "revisions").exists()  # nothing of it in the repository


def test_unknown_and_short_revisions_are_refused_with_the_known_ones(plan, tmp_path):
    store = Revisions(tmp_path / "ws", plan)
    rev, _ = store.record("model")
    with pytest.raises(PlanError, match="is not a revision of this plan.*" + rev.id):
        store.resolve("deadbeef0000")
    with pytest.raises(PlanError):
        store.resolve(rev.id[:3])


def test_the_item_diff_names_added_removed_reworded_and_moved_items():
    new = (
        PLAN.replace(b"- [ ] Update the README\n", b"")
        .replace(b"Add `test_add_negative`", b"Add `test_add_negative` and `test_add_zero`")
        .replace(b"# Plan: Fix add\n\n", b"# Plan: Fix add\n\n- [ ] Read the bug report\n")
    )
    notes = item_diff(PLAN, new)
    assert 'item 3 removed: "Update the README"' in notes
    assert 'item 1 added: "Read the bug report"' in notes
    assert any(n.startswith("item 2 reworded:") and "test_add_zero" in n for n in notes)
    assert item_diff(PLAN, PLAN.replace(b"- [ ] Fix", b"- [x] Fix")) == []
    assert "+- [ ] Read the bug report" in text_diff(PLAN, new, "a", "b")


def test_a_planted_symlink_in_the_store_is_not_followed(plan, tmp_path):
    root = tmp_path / "ws"
    store = Revisions(root, plan)
    store.record("model")
    base = workspace_state_path(root) / "revisions"
    outside = tmp_path / "outside"
    outside.mkdir()
    os.rename(base / "2026-12-01-fix-add", tmp_path / "moved")
    os.symlink(outside, base / "2026-12-01-fix-add")
    with pytest.raises(OSError):
        store.record("user", PLAN + b"- [ ] more\n")
    assert os.listdir(outside) == []


def test_a_hand_edit_noticed_mid_run_becomes_a_user_revision(plan, tmp_path):
    from cast.tools.evidence import Ledger
    from cast.tools.tasks import TaskBoard

    board = TaskBoard(plan, Ledger())
    board.revisions = Revisions(tmp_path / "ws", plan)
    board.revisions.record("model")
    plan.write_bytes(PLAN.replace(b"- [ ] Fix", b"- [x] Fix"))
    assert not any("revision" in note for note in board.sync())  # a tick is progress, not a revision
    plan.write_bytes(PLAN + b"- [ ] Tag a release\n")
    notes = board.sync()
    newest = board.revisions.current()
    assert newest is not None and newest.author == "user"
    assert f"the plan is now revision {newest.id}, written by the user" in notes


def test_a_rewording_deep_in_a_long_item_is_shown_not_cut_away():
    long = b"- [ ] Add `test_add_negative` to `test_calc.py` covering `add(-2, -3) == -5` with a clear message\n"
    notes = item_diff(b"# P\n" + long, b"# P\n" + long.replace(b"with a clear message", b"and zero, with a clear message"))
    assert len(notes) == 1 and "and zero" in notes[0] and notes[0].count("…") >= 1


def bound_board(plan, tmp_path, **kwargs):
    from cast.options import Options
    from cast.runs import bind_revision
    from cast.tools.evidence import Ledger
    from cast.tools.tasks import TaskBoard

    board = TaskBoard(plan, Ledger())
    bind_revision(board, tmp_path / "ws", Options(**kwargs))
    return board


def test_a_plan_changed_after_approval_is_shown_and_asked_before_the_next_item(plan, tmp_path):
    from cast.safety.decision import Answers
    from cast.tools.base import ToolError

    asked = []
    approver = Answers(lambda request: "yes", revision=lambda request: asked.append(request) or "no")
    board = bound_board(plan, tmp_path, approver=approver)
    approved = board.approved
    plan.write_bytes(PLAN.replace(b"- [ ] Fix", b"- [x] Fix"))  # a tick: no question
    board.update(2, "in_progress", "")
    assert asked == []
    plan.write_bytes(PLAN.replace(b"Update the README", b"Update the README and the changelog"))
    with pytest.raises(ToolError, match="not started: the plan changed since revision"):
        board.update(3, "in_progress", "")
    (request,) = asked
    assert request.approved == approved and request.author == "user"
    assert any("reworded" in change and "changelog" in change for change in request.changes)
    approver.revision = lambda request: "yes"
    board.update(3, "in_progress", "")
    assert board.approved == request.current


def test_with_nobody_to_ask_a_change_goes_on_unless_the_run_is_pinned(plan, tmp_path):
    from cast.tools.base import ToolError

    free = bound_board(plan, tmp_path)
    pinned = bound_board(plan, tmp_path, revision=free.approved)
    plan.write_bytes(PLAN + b"- [ ] Tag a release\n")
    free.update(1, "in_progress", "")
    with pytest.raises(ToolError, match="has not approved the change"):
        pinned.update(1, "in_progress", "")


def test_a_no_stops_the_run_and_a_no_with_words_tells_the_model_what_to_do_instead(plan, tmp_path):
    from cast.safety.decision import Answers, ApprovalAnswer
    from cast.tools.base import ToolError

    said = ApprovalAnswer("no", "leave the changelog out")
    board = bound_board(plan, tmp_path, approver=Answers(lambda request: "yes", revision=lambda request: said))
    plan.write_bytes(PLAN.replace(b"Update the README", b"Update the README and the changelog"))
    with pytest.raises(ToolError, match="the user said instead: leave the changelog out"):
        board.update(3, "in_progress", "")
    assert board.halted == ""  # the model is told, and the run goes on with it
    said = ApprovalAnswer("no")
    with pytest.raises(ToolError, match="has not approved the change"):
        board.update(3, "in_progress", "")
    assert board.halted.startswith("the changed plan was not approved, the user said no")
