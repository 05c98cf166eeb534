"""A 60-column terminal shows every choice: menus and approvals wrap instead of being cut, the
toolbar shortens meaningfully (the cost stays readable), wrapped diff lines keep their +/-."""

from __future__ import annotations

from conftest import write_script
from tmuxkit import tmux  # noqa: F401  (a fixture)

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
