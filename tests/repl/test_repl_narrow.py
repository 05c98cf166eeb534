"""A 60-column terminal shows every choice: menus and approvals wrap instead of being cut, the
toolbar shortens meaningfully (the cost stays readable), wrapped diff lines keep their +/-."""

from __future__ import annotations

from conftest import write_script
from tmuxkit import tmux  # noqa: F401  (a fixture)

from cast.repl.view import SPINNER

PLAN = "# Plan: discounts\n\n- [ ] Reject negative discounts in the checkout module\n- [ ] Test it\n"
WRITE = {"text": "Planning.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}
LONG = "x = 1  # " + "a long comment that will not fit in sixty columns " * 2


def test_the_hand_off_menu_and_toolbar_at_60_columns(tmux, tmp_path):
    t = tmux(write_script(tmp_path / "s.jsonl", [WRITE, {"text": "Planned."}]))
    t.type("fix the discounts")
    t.send("Enter")
    t.wait_for("[n]ot now")
    shown = t.wait_for("$0.000")  # the toolbar's cost, readable (it showed as "$…")
    for label in ("[e]xecute", "execute, edits [a]uto-approved", "[o]pen in editor", "[k]eep planning", "[n]ot now"):
        assert label in shown, f"{label} is not visible:\n{shown}"
    assert max(len(line) for line in shown.splitlines()) <= 60
    assert "$…" not in shown
    t.type("n")
    shown = t.wait_for("Enter: [n]ot now")  # the key alone is shown, not yet taken
    t.send("Enter")
    t.wait_for("when you are ready")


def test_an_approval_and_a_wrapped_diff_at_60_columns(tmux, tmp_path, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-discounts" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    edit = {
        "tool_uses": [
            {"name": "write_file", "input": {"path": "app.py", "content": "def add(a, b):\n    return a + b\n" + LONG + "\n"}}
        ]
    }
    command = {
        "tool_uses": [{"name": "bash", "input": {"command": "python3 -m pytest -q --co tests/unit/test_checkout_discounts.py"}}]
    }
    t = tmux(
        write_script(
            tmp_path / "s.jsonl", [edit, command, {"text": "Done."}, *[{"text": '{"complete": true, "missing": []}'}] * 2]
        )
    )
    t.type("/execute")
    t.send("Enter")
    shown = t.wait_for("[a]ll edits")
    rows = [line for line in shown.splitlines() if "long comment" in line or "sixty columns" in line]
    assert len(rows) >= 2 and all(line.startswith("+") for line in rows), shown  # every wrapped row keeps its +
    t.type("y")
    t.send("Enter")
    shown = t.wait_for("[a]lways this session")
    assert "test_checkout_discounts.py" in shown  # the command whole, wrapped
    for label in ("[y]es, once", "[n]o", "[a]lways this session: python3 -m pytest …"):
        assert label in shown, f"{label} is not visible:\n{shown}"
    assert max(len(line) for line in shown.splitlines()) <= 60


EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"


def test_the_plan_its_path_and_its_code_read_whole_at_60_columns(tmux, tmp_path, repo):
    """The demo's plan in the real REPL at 60 columns: its title at the left margin, its inline
    code in backticks, and the plan's long path broken after a `/` wherever it is shown."""
    for name in ("calc.py", "test_calc.py"):
        (repo / name).write_text((EXAMPLES / "calc" / name).read_text())
    t = tmux(EXAMPLES / "scripts" / "plan.jsonl", rows=60)
    t.type("Fix add and cover negative numbers")
    t.send("Enter")
    shown = t.wait_for("[n]ot now")
    session = next((repo / ".cast" / "plans").iterdir()).name
    lines = shown.splitlines()
    assert "Plan: Fix add and cover negative numbers" in lines, shown  # the title starts at the margin
    assert "`calc.add` subtracts" in shown and "Fix `add` in `calc.py`" in shown, shown
    flat = shown.replace("\n", "")
    for name in (session, "plan.md"):
        assert shown.count(name) == flat.count(name) >= 2, f"{name} is split across lines:\n{shown}"
    assert max(len(line) for line in lines) <= 60


def test_the_working_line_is_whole_at_60_columns(tmux, tmp_path, repo):
    """While an approved command runs, the line under it says every part of its hint, broken
    between parts rather than cut at the edge. The command waits for a file the test writes."""
    plan = repo / ".cast" / "plans" / "2026-01-01-wait" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan: wait\n\n- [ ] Wait for the signal\n")
    wait = "python3 -c 'import os, time\nwhile not os.path.exists(\"go\"): time.sleep(0.05)'"
    script = [{"tool_uses": [{"name": "bash", "input": {"command": wait}}]}, {"text": "Waited."}]
    t = tmux(write_script(tmp_path / "s.jsonl", [*script, *[{"text": '{"complete": true, "missing": []}'}] * 3]))
    t.type("/execute")
    t.send("Enter")
    t.wait_for("[y]es, once")
    t.type("y")
    t.wait_for("Enter: [y]es, once")  # a key in the grace period is text: Enter takes it
    t.send("Enter")
    shown = t.wait_for("working · Esc interrupts")
    assert "a message you send is queued as guidance" in shown, shown
    assert max(len(line) for line in shown.splitlines()) <= 60
    (repo / "go").write_text("")
    t.wait_for("Waited.")


def test_the_self_check_after_the_models_last_words_shows_no_spinner(tmux, tmp_path, repo):
    """After the model's closing words cast checks the work (a model call of its own, slow here):
    the prompt area says so, with no spinner, rather than show the agent as working again."""
    plan = repo / ".cast" / "plans" / "2026-01-01-look" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan: look\n\n- [ ] Look around\n")
    verdict = '{"complete": true, "missing": [], "claims": []}'
    script = [{"text": "Looked around."}, {"text": verdict, "delay": 4}, {"text": "Stopping here."}, {"text": verdict}]
    t = tmux(write_script(tmp_path / "s.jsonl", [*script, {"text": verdict}]))
    t.type("/execute")
    t.send("Enter")
    shown = t.wait_for("checking the finished work against the plan (self-check)")
    assert "Looked around." in shown and "working ·" not in shown and not set(SPINNER) & set(shown), shown
    t.wait_for("Result:")
