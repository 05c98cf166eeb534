"""An explore's steps in the front-ends: under the parent's call while it runs, one line once it is
answered (Ctrl+O shows the steps and the answer), dim indented lines in a one-shot terminal run, and
each child event in --json with the parent's tool-use id."""

from __future__ import annotations

import io
import json

from cast.agent import events as ev
from cast.tools.results import Explored
from cast.ui.console import render_text
from cast.ui.oneshot import Printer, json_printer
from cast.ui.render import Renderer

CHILD = [
    ev.Nested("toolu_p", "explore-1", ev.StepStarted(1)),
    ev.Nested("toolu_p", "explore-1", ev.ToolCall("toolu_c1", "read_file", {"path": "app.py"})),
    ev.Nested("toolu_p", "explore-1", ev.ToolResult("toolu_c1", "read_file", True, "lines 1-2 of 2", "1\tdef add")),
]
ANSWER = ev.ToolResult(
    "toolu_p",
    "explore",
    True,
    "done · 2 steps · 1 file read",
    "[explore by m: answered]\nadd is at app.py:1",
    result=Explored("where is add", "done", "", 2, ("app.py",)),
)


def test_the_repl_shows_a_childs_steps_under_the_call_then_one_line_and_ctrl_o_has_them():
    out: list[str] = []
    renderer = Renderer(lambda r: out.append(render_text(r, 100, False)))
    renderer.handle(ev.ToolCall("toolu_p", "explore", {"task": "where is add"}))
    for event in CHILD:
        renderer.handle(event)
    live = render_text(renderer.live(), 100, False)
    assert "explore where is add" in live and "explore-1: ✓ read_file app.py · lines 1-2 of 2" in live
    assert out == []  # nothing of the child reaches the scrollback while it runs
    running = renderer.running_output()
    assert running is not None and "read_file app.py" in running[1]
    renderer.handle(ANSWER)
    assert len(out) == 1 and "✓ explore where is add · done · 2 steps · 1 file read" in out[0]
    assert "read_file app.py" not in out[0]  # collapsed to one line
    assert renderer.last_output is not None
    label, whole = renderer.last_output
    assert "explore-1: ✓ read_file app.py" in whole and "add is at app.py:1" in whole


def test_a_one_shot_terminal_run_prints_each_child_result_indented():
    from rich.console import Console

    buffer = io.StringIO()
    printer = Printer(Console(file=buffer, width=120, highlight=False, markup=False, emoji=False))
    printer(ev.ToolCall("toolu_p", "explore", {"task": "where is add"}))
    for event in CHILD:
        printer(event)
    printer(ANSWER)
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "  ↳ explore-1: ✓ read_file app.py · lines 1-2 of 2"
    assert lines[1].startswith("✓ explore where is add")


def test_json_events_of_a_child_carry_the_parents_tool_use_id():
    buffer = io.StringIO()
    emit = json_printer(buffer)
    for event in CHILD:
        emit(event)
    rows = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert [r["type"] for r in rows] == ["step_started", "tool_call", "tool_result"]
    assert all(r["parent_tool_use_id"] == "toolu_p" and r["agent"] == "explore-1" for r in rows)
    assert rows[2]["id"] == "toolu_c1" and rows[2]["ok"] is True
