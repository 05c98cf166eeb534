"""Event rendering: what is committed to the scrollback, what stays live, and how it looks."""

from __future__ import annotations

from cast.agent import events as ev
from cast.tools.evidence import ItemEvidence
from cast.tools.results import Edited, Ran
from cast.ui.console import render_text
from cast.ui.render import Renderer
from cast.ui.tasks import checklist, plain_checklist

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n-    return a+b\n+    return a + b\n"


def collect(width: int = 80, terminal: bool = False, plain: bool = False):
    out: list[str] = []
    renderer = Renderer(lambda r: out.append(render_text(r, width, terminal)), plain=plain)
    return renderer, out


def live_text(renderer: Renderer, width: int = 80) -> str:
    live = renderer.live()
    return render_text(live, width, False) if live is not None else ""


def test_text_streams_block_by_block_and_unfinished_text_is_live():
    renderer, out = collect()
    renderer.handle(ev.TextDelta("First **para**"))
    assert out == [] and "First para" in live_text(renderer)
    renderer.handle(ev.TextDelta("graph.\n\nSecond"))
    assert "First paragraph." in "".join(out)
    assert "Second" not in "".join(out) and "Second" in live_text(renderer)
    renderer.handle(ev.Stopped("done", "the model finished its turn", 1))
    text = "".join(out)
    assert "Second" in text and "■ done: the model finished its turn (1 step)" in text
    assert renderer.live() is None


def test_tool_call_is_live_until_its_result_then_one_line():
    renderer, out = collect()
    renderer.handle(ev.ToolCall("t1", "read_file", {"path": "app.py"}))
    assert "⋯ read_file app.py" in live_text(renderer)
    renderer.handle(ev.ToolResult("t1", "read_file", True, "lines 1-2 of 2", "app.py: lines 1-2 of 2\n..."))
    assert out == ["✓ read_file app.py · lines 1-2 of 2\n"]
    assert renderer.live() is None


def test_failed_tool_shows_the_error_line():
    renderer, out = collect()
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "rm -rf x"}))
    renderer.handle(ev.ToolResult("t1", "bash", False, "blocked", "error: command blocked in plan mode: rm writes"))
    assert out[0].startswith("✗ bash rm -rf x · blocked\n  error: command blocked in plan mode")


def test_edit_shows_the_diff_with_diff_highlighting():
    renderer, out = collect(terminal=True)
    edited = Edited("app.py", DIFF)
    renderer.handle(
        ev.ToolResult("t1", "edit_file", True, "1 replacement", "edited app.py: 1 replacement\n" + DIFF, result=edited)
    )
    assert len(out) == 2
    assert "-    return a+b" in out[1] and "+    return a + b" in out[1]
    assert "\x1b[" in out[1]  # coloured


def test_an_edit_is_shown_by_its_typed_result_whatever_the_tool_is_called():
    renderer, out = collect()
    renderer.handle(ev.ToolResult("t1", "patch", True, "1 replacement", "edited app.py", result=Edited("app.py", DIFF)))
    assert len(out) == 2 and "+    return a + b" in out[1]
    renderer, out = collect()
    renderer.handle(ev.ToolResult("t1", "edit_file", True, "1 replacement", "edited app.py\n" + DIFF))  # no result: no diff
    assert len(out) == 1


def test_a_command_that_failed_is_marked_by_its_typed_result():
    renderer, out = collect()
    renderer.handle(ev.ToolResult("t1", "run", True, "exit_code=2", "exit_code=2", result=Ran("make", 2)))
    assert out[0].startswith("✗") and renderer.last_output == ("run", "exit_code=2")


def test_task_list_is_live_and_ticks_then_is_committed_at_the_end():
    renderer, out = collect()
    tasks = (ev.Task(1, "Add flag", "done"), ev.Task(2, "Thread it", "in_progress"), ev.Task(3, "Test", "pending"))
    renderer.handle(ev.TaskUpdate(tasks))
    live = live_text(renderer)
    assert "Tasks 1/3 done" in live and "✓ 1. Add flag" in live and "▸ 2. Thread it" in live and "○ 3. Test" in live
    renderer.handle(ev.TaskUpdate(tuple(ev.Task(t.id, t.text, "done") for t in tasks)))
    assert "Tasks 3/3 done" in live_text(renderer)
    renderer.handle(ev.Stopped("done", "finished", 4))
    assert "Tasks 3/3 done" in "".join(out)


def test_long_task_list_is_windowed_live():
    tasks = tuple(ev.Task(i, f"step {i}", "done" if i < 30 else "pending") for i in range(1, 41))
    text = render_text(checklist(tasks), 80, False)
    assert "step 30" in text and "earlier" in text and "more" in text
    assert len(text.splitlines()) <= 15


def test_plain_checklist():
    text = plain_checklist((ev.Task(1, "a", "done"), ev.Task(2, "b", "blocked", "no access")))
    assert text == "Tasks 1/2 done, 1 blocked\n  [x] 1. a\n  [!] 2. b — no access"


def test_plain_mode_keeps_markdown_source_and_no_escape_codes():
    renderer, out = collect(plain=True)
    renderer.handle(ev.TextDelta("# Title\n\nSome `code`.\n"))
    renderer.handle(ev.Stopped("interrupted", "interrupted by user", 2))
    text = "".join(out)
    assert "# Title" in text and "Some `code`." in text
    assert "\x1b" not in text
    assert "■ interrupted: interrupted by user (2 steps)" in text


def test_no_color_is_respected(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    renderer, out = collect(terminal=True)
    renderer.handle(ev.ToolResult("t1", "edit_file", True, "1 replacement", DIFF, result=Edited("app.py", DIFF)))
    assert not any("\x1b[3" in chunk or "\x1b[9" in chunk for chunk in out)


def test_lines_fit_80_columns():
    renderer, out = collect(width=80, terminal=True)
    renderer.handle(ev.TextDelta("word " * 100 + "\n\n"))
    renderer.handle(ev.ToolResult("t1", "grep", True, "3 matches " + "x" * 200, ""))
    import re

    for line in "".join(out).splitlines():
        assert len(re.sub(r"\x1b\[[0-9;]*m", "", line)) <= 80


def test_thinking_is_committed_dim_before_the_answer():
    renderer, out = collect()
    renderer.handle(ev.ThinkingDelta("Considering the options"))
    assert "thinking" in live_text(renderer)
    renderer.handle(ev.TextDelta("Answer.\n\n"))
    assert out[0].startswith("Considering the options") and "Answer." in "".join(out[1:])


def test_notice_and_stop_styles():
    renderer, out = collect()
    renderer.handle(ev.Notice("changed since read: app.py", "warning"))
    renderer.handle(ev.Stopped("failed", "scripted model: no turn 4", 3))
    assert out == ["• changed since read: app.py\n", "■ failed: scripted model: no turn 4 (3 steps)\n"]


def test_command_line_names_the_files_it_changed():
    renderer, out = collect()
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "make"}))
    renderer.handle(
        ev.ToolResult(
            "t1", "bash", True, "exit_code=0", "exit_code=0", changed=("a.o", "b.o", "c.o", "d.o"), result=Ran("make", 0)
        )
    )
    assert out == ["✓ bash make · exit_code=0 · changed a.o, b.o, c.o and 1 more\n"]


def test_a_long_command_to_approve_is_shown_whole_at_80_columns():
    from cast.repl.view import hard_wrap

    command = "echo " + "checking-the-build-configuration-" * 4 + " && rm -f victim.txt"
    shown = hard_wrap(command, 78, "  ")
    assert all(len(row) <= 80 for row in shown.splitlines())
    assert "".join(row[2:] for row in shown.splitlines()) == command


def test_a_question_hint_breaks_between_its_parts_at_80_columns():
    """'Esc: no' is never split from its key, nor left as a lone 'no' on the next line."""
    from cast.repl.ask import edit_question
    from cast.repl.view import hint_wrap

    hint = edit_question("calc.py").hint
    assert hint_wrap(hint, 79) == hint  # one line of instructions at 80 columns
    shown = hint_wrap(hint, 40)
    assert shown.splitlines()[-1] == "Esc: no", shown
    assert all(len(row) <= 40 for row in shown.splitlines())
    assert hint_wrap("a key, then Enter · Esc: no", 79) == "a key, then Enter · Esc: no"  # it fits: one line


def test_a_long_task_wraps_under_its_own_text_at_80_columns():
    long = "Run the very long verification command that prints a lot of output, then check it slowly"
    tasks = (ev.Task(1, long, "done", evidence=ItemEvidence(commands=["`make check` exit 0"])), ev.Task(2, "Test", "pending"))
    for text in (render_text(checklist(tasks), 80, False), render_text(checklist(tasks, window=None), 80, False)):
        lines = text.splitlines()
        assert lines[1].startswith("  ✓ 1. Run the very long") and lines[2] == "    check it slowly", text
        assert lines[-1] == "  ○ 2. Test"
    assert "      evidence: `make check` exit 0" in render_text(checklist(tasks, window=None), 80, False)


def test_a_command_waiting_for_its_approval_shows_no_running_clock():
    renderer, _ = collect()
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "make"}))
    assert "make · 0s" in live_text(renderer)
    renderer.hold_clocks()  # the question is on the screen: the command has not started
    assert "waiting for you" in live_text(renderer) and " · 0s" not in live_text(renderer)
    renderer.restart_clocks()  # answered: it starts now
    assert "make · 0s" in live_text(renderer) and "waiting for you" not in live_text(renderer)


def test_ids_stay_whole_at_60_columns_and_the_rest_wraps_at_words():
    from cast.repl.rows import IdRows

    long_id = "2026-12-01-fix-add-negative-numbers-exec"
    rows = IdRows(
        ("session", "mode", "status", "steps", "task"),
        [(long_id, "execute", "interrupted", "12 steps", "fix add for negative numbers and the rounding of discounts")],
    )
    narrow = render_text(rows, 60, False)
    assert long_id in narrow and "…" not in narrow
    assert all(len(line) <= 60 for line in narrow.splitlines())
    assert "negative numbers" in " ".join(narrow.split()) and "numbe\n" not in narrow  # words whole
    wide = render_text(rows, 200, False)
    assert long_id in wide and len(wide.splitlines()) == 2  # a header and one row: the table
