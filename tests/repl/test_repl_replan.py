"""/replan in the REPL: the executor's run revises its own plan, the hand-off shows what changed
against the approved revision, and approving goes on in the same run at the first unticked item."""

from __future__ import annotations

from replkit import Harness, harness  # noqa: F401  (a fixture)

PLAN = "# Plan: sub and mul\n\n- [ ] Add sub to app.py\n- [ ] Add mul to app.py\n"
REVISED = "# Plan: sub and mul\n\n- [x] Add sub to app.py\n- [ ] Add mul to app.py\n- [ ] Add a test for mul\n"


def offered(h: Harness) -> None:
    h.wait(lambda: h.repl.asker.current is not None and "Plan written" in h.repl.asker.current.title, "the plan offer")


def test_replan_mid_run_keeps_done_items_shows_the_change_and_goes_on_in_the_same_run(harness, repo):
    done = {"complete": True, "missing": [], "claims": []}
    h = harness(
        [
            {"text": "Planning.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]},
            {"text": "Planned."},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Item 1 is done. Should I go on with item 2?"},
            {"text": "Revising.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": REVISED}}]},
            {"text": "Revised: a test for mul."},
            {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done", "note": "nothing to change"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 3, "status": "done", "note": "nothing to change"}}]},
            {"text": "All done."},
            done,
        ]
    )
    h.send("add sub and mul\r")
    offered(h)
    h.send("e\r")
    h.wait_text("Should I go on with item 2?")
    h.wait_idle()
    run = h.repl.state.run
    plan = next((repo / ".cast" / "plans").glob("*/plan.md"))
    before = plan.read_bytes()
    h.send("/replan add a test for mul\r")
    offered(h)
    assert h.repl.state.run is run  # the same run: no new session for a replan
    h.wait_text("Changed since the revision you approved:")
    h.wait_text('added: "Add a test for mul"')
    after = plan.read_bytes()
    assert after.startswith(before.split(b"- [ ] Add mul")[0])  # the front matter and the done item, byte for byte
    h.send("e\r")
    h.wait_text("All done.")
    h.wait_idle()
    assert h.repl.state.run is run and h.repl.state.mode == "execute"
    assert plan.read_text().count("- [x]") == 3
    sent = run.agent.model.requests
    assert any("Replan: revise the plan being executed" in str(r.messages) for r in sent)
    assert any("What to change: add a test for mul" in str(r.messages) for r in sent)
