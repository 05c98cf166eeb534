"""Shift+Tab into execute mode brings the plan along, as /execute does; text in brackets is
shown as written."""

from __future__ import annotations

import json

from replkit import harness  # noqa: F401  (a fixture)

PLAN = "# Plan: sub\n\n- [ ] Add sub to app.py\n- [ ] Test it\n"
WRITE = {"text": "Planning.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}
SHIFT_TAB = "\x1b[Z"


def toolbar(h) -> str:
    return "".join(t for _, t in h.repl.view.toolbar())


def test_shift_tab_after_not_now_attaches_the_plan_and_an_item_can_be_ticked(harness, repo):
    h = harness(
        [
            WRITE,
            {"text": "Planned."},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "the user asked for the tick"}}]},
            {"text": "Ticked item 1."},
        ]
    )
    h.send("add sub\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off")
    h.send("n\r")
    h.wait_idle()
    h.send(SHIFT_TAB)
    h.wait_text("plan attached: .cast/plans/")
    assert h.repl.state.mode == "execute"
    h.wait(lambda: "add-sub 0/2" in toolbar(h), "the toolbar to show the plan")
    h.send("go ahead, tick item 1\r")
    h.wait_text("Ticked item 1.")
    h.wait_idle()
    assert "there is no plan" not in h.out.text()
    plan = next((repo / ".cast" / "plans").glob("*/plan.md"))
    assert "- [x] Add sub to app.py" in plan.read_text() and "- [ ] Test it" in plan.read_text()
    first = json.dumps(h.repl.state.run.agent.model.requests[2].messages)
    assert "Execute this plan" in first and "go ahead, tick item 1" in first  # the brief, as /execute sends it
    h.wait(lambda: "add-sub 1/2" in toolbar(h), "the toolbar to follow the ticks")


def test_shift_tab_attaches_the_newest_unfinished_plan_in_a_fresh_repl(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h = harness(
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Done one."},
        ]
    )
    h.send(SHIFT_TAB)
    h.wait_text("plan attached: .cast/plans/2026-01-01-sub/plan.md")
    h.send(SHIFT_TAB)  # there and back: the way back into execute mode says what is attached again
    h.wait_text("plan mode · read-only")
    h.send(SHIFT_TAB)
    again = "execute mode · plan attached: .cast/plans/2026-01-01-sub/plan.md (0/2 done); your next message starts executing it"
    h.wait(lambda: " ".join(h.out.text().split()).count(again) == 2, "the plan named again")
    h.send("/tasks\r")
    h.wait_text("Tasks 0/2 done")
    h.send("do the first item\r")
    h.wait_text("Done one.")
    assert "- [x] Add sub to app.py" in plan.read_text()


def test_shift_tab_without_a_plan_just_switches(harness):
    h = harness([{"text": "Done directly."}])
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "execute", "execute mode")
    h.wait_text("execute mode · no plan: the agent does your next task directly, editing files")
    assert "plan attached" not in h.out.text() and "plan " not in toolbar(h).split("│")[-1]
    h.send("add sub\r")  # as the line says: the task runs in execute mode, its edit tools there
    h.wait_text("Done directly.")
    run = h.repl.state.run
    assert run is not None and run.mode.name == "execute" and run.tasks is None
    assert "edit_file" in {tool.name for tool in run.mode.tools}


def test_brackets_are_text_not_markup(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-red" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(
        "---\ntask: make [red]this[/red] and [bold]that\nsession: 2026-01-01-red\n---\n# Plan\n\n- [ ] Fix [red] in `x[0]`\n"
    )
    h = harness([{"text": "Use `a[i]` and [b]not bold[/b]."}])
    h.send("/help\r")
    h.wait_text("/plan [task]")
    h.wait_text("/execute [plan]")
    h.send("/plans\r")
    h.wait_text("make [red]this[/red] and [bold]that")
    h.send(SHIFT_TAB)
    h.wait_text("plan attached")
    h.send("/tasks\r")
    h.wait_text("1. Fix [red] in `x[0]`")
    h.send("explain [red]\r")
    h.wait_text("[b]not bold[/b]")
    assert "explain [red]" in h.out.text()
