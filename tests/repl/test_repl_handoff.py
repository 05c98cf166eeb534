"""The plan hand-off: after a planning turn writes a plan, the user chooses what happens next."""

from __future__ import annotations

import json

import pytest
from replkit import Harness, harness  # noqa: F401  (a fixture)

PLAN = "# Plan: sub\n\n- [ ] Add sub to app.py\n"
WRITE = {"text": "Planning.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}


def asked(h: Harness) -> None:
    h.wait(lambda: h.repl.asker.current is not None and "Plan written" in h.repl.asker.current.title, "the plan offer")


def sent_messages(h: Harness) -> str:
    return json.dumps(h.repl.state.run.agent.model.requests[-1].messages)


def test_execute_now_runs_the_plan_and_ticks_it(harness, repo):
    h = harness(
        [
            WRITE,
            {"text": "Planned."},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Done."},
        ]
    )
    h.send("add sub\r")
    asked(h)
    assert h.repl.state.mode == "plan"
    assert h.repl.asker.current.title.endswith("plan.md (1 item). What next?")
    h.send("e\r")
    h.wait_text("■ done")
    h.wait_idle()
    assert h.repl.state.mode == "execute"
    plan = next((repo / ".cast" / "plans").glob("*/plan.md"))
    assert "- [x] Add sub to app.py" in plan.read_text()
    assert "Tasks 1/1 done" in h.out.text()
    # the closing report names the plan as the REPL does everywhere, relative: an absolute path is cut at 80 columns
    assert f"Plan: 1/1 items done (1 this run) — .cast/plans/{plan.parent.name}/plan.md\n" in h.out.text()


def test_open_in_editor_rereads_the_plan_and_tells_the_planner(harness, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", 'sh -c \'printf "%s\\n" "- [ ] Also test it" >> "$1"\' editor')
    h = harness([WRITE, {"text": "Planned."}, {"text": "Revised."}])
    h.send("add sub\r")
    asked(h)
    h.send("o\r")
    h.wait_text("now has 2 items")
    asked(h)  # asked again after editing
    h.send("k\r")
    h.wait(lambda: h.repl.asker.current is None and not h.repl.busy, "the prompt")
    assert h.repl.state.hint
    h.send("split it in two\r")
    h.wait_text("Revised.")
    messages = sent_messages(h)
    assert "edited the plan file" in messages and "split it in two" in messages


def test_feedback_typed_at_the_offer_keeps_planning(harness):
    h = harness([WRITE, {"text": "Planned."}, {"text": "Adjusted the plan."}])
    h.send("add sub\r")
    asked(h)
    h.send("make it smaller\r")
    h.wait_text("Adjusted the plan.")
    assert "make it smaller" in sent_messages(h)
    assert h.repl.state.mode == "plan"


@pytest.mark.parametrize(("key", "name"), [("\x1b", "Esc"), ("\x03", "Ctrl+C")])
def test_not_now_esc_and_ctrl_c_leave_the_plan_alone_echoed_as_pressed(harness, repo, key, name):
    h = harness([WRITE, {"text": "Planned."}])
    h.send("add sub\r")
    asked(h)
    h.send(key)
    h.wait_text("/execute runs it")
    h.wait_idle()
    assert h.repl.state.mode == "plan"
    assert (repo / "app.py").read_text() == "def add(a, b):\n    return a + b\n"
    out = h.out.text()
    assert f"› not now ({name})" in out and out.count("› not now (") == 1, out


def test_tasks_after_planning_shows_the_plan_written(harness):
    h = harness([WRITE, {"text": "Planned."}])
    h.send("add sub\r")
    asked(h)
    h.send("n\r")
    h.wait_text("/execute runs it")
    h.wait_idle()
    h.send("/tasks\r")
    h.wait_text("The plan written in this session")
    h.wait_text("Add sub to app.py")
    assert "No task list" not in h.out.text()
