"""What cast renders at 60 columns, through the functions the REPL and one-shot runs draw with:
long paths break after a `/` (never inside a name), a plan's title starts at the left margin,
inline code keeps its backticks, and the REPL's working line breaks between its parts."""

from __future__ import annotations

from rich.text import Text

from cast.repl.view import hint_wrap, word_wrap
from cast.ui.console import render_text
from cast.ui.render import Renderer

PATH = ".cast/plans/2026-12-02-fix-add-and-cover-negative-numbers/plan.md"
NAMES = ["2026-12-02-fix-add-and-cover-negative-numbers", "plan.md", ".cast"]


def unsplit(shown: str, *names: str) -> bool:
    """Every name on the screen is whole on one line."""
    return all(shown.count(name) == shown.replace("\n", "").count(name) > 0 for name in names)


def test_a_long_path_breaks_after_a_slash_in_rich_text_and_in_question_text():
    shown = render_text(Text(f"✓ write_plan plan · 2 items → {PATH}"), 60, terminal=False)
    assert unsplit(shown, *NAMES) and max(map(len, shown.splitlines())) <= 60, shown
    asked = word_wrap(f"Plan written: {PATH} (2 items). What next?", 59)
    assert unsplit(asked, *NAMES) and max(map(len, asked.splitlines())) <= 59, asked
    cut = render_text(Text("x" * 130), 60, terminal=False)  # no slash: still cut at the width, nothing lost
    assert cut.replace("\n", "") == "x" * 130


def test_a_plan_renders_its_title_left_and_its_code_in_backticks():
    plan = f"# Plan: Fix add and cover negative numbers\n\n`calc.add` subtracts. See {PATH}.\n\n- [ ] Fix `add`\n"
    shown = render_text(Renderer(lambda _: None).markdown(plan), 60, terminal=False)
    lines = shown.splitlines()
    assert lines[0] == "Plan: Fix add and cover negative numbers", shown
    assert "`calc.add` subtracts." in shown and "Fix `add`" in shown and unsplit(shown, *NAMES)


def test_the_working_line_breaks_between_its_parts_at_60_columns():
    from cast.repl.view import WORKING

    shown = hint_wrap(f"⠋ {WORKING}", 59)
    assert shown.splitlines() == ["⠋ working · Esc interrupts", "a message you send is queued as guidance"]


def test_question_text_without_long_words_wraps_as_textwrap_does():
    import textwrap

    said = "cast wants to run a command that is not provably read-only: press a key to answer it, or type"
    for width in (20, 33, 59, 80):
        assert word_wrap(said, width) == "\n".join(textwrap.wrap(said, width, break_on_hyphens=False))
    assert word_wrap("  indented, and long enough to wrap", 20).startswith("  indented, and")


def test_the_closing_report_wraps_each_line_under_its_own_indent_at_60_columns():
    from cast.ui.wrapping import hanging

    report = (
        f"Plan: 2/2 items done (2 this run) — {PATH}\n"
        "  [x] 2. Add `test_add_negative` to `test_calc.py` covering `add(-2, -3) == -5`\n"
        "        evidence: `python3 -m unittest` exit 0 (3 passed); test_calc.py changed"
    )
    lines = render_text(hanging(report), 60, terminal=False).splitlines()
    assert lines[3:] == [
        "  [x] 2. Add `test_add_negative` to `test_calc.py` covering",
        "  `add(-2, -3) == -5`",
        "        evidence: `python3 -m unittest` exit 0 (3 passed);",
        "        test_calc.py changed",
    ], lines
