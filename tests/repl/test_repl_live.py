"""A running command shows its newest output line as it runs, and Ctrl+O shows all of it after:
a person never stares at a silent terminal wondering whether the command hung."""

from __future__ import annotations

import re

from conftest import write_script
from tmuxkit import tmux  # noqa: F401  (a fixture)

# The output differs from the command's text (which the approval and the running line show), so
# what the screen shows can only have come from the command's output.
LONG = "$(printf '=%.0s' $(seq 1 80))"
COMMAND = f"printf 'collecting %s\\n' tests; sleep 3; echo \"all $((1+2)) [bold]passed[/bold] {LONG}\"; sleep 3"
SELF_CHECK = {"text": '{"complete": true, "missing": [], "claims": []}'}
COLUMNS = 60


def test_a_running_command_shows_its_newest_line_then_ctrl_o_shows_everything(tmux, tmp_path, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-live" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan: live\n\n- [ ] Run the tests\n")
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"text": "Testing.", "tool_uses": [{"name": "bash", "input": {"command": COMMAND}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "3 passed"}}]},
            {"text": "Done."},
            SELF_CHECK,
        ],
    )
    t = tmux(script, columns=COLUMNS, args=("execute",))
    t.wait_for("[y]es")
    t.type("y")
    t.send("Enter")
    shown = t.wait_for("collecting tests")  # the first line, while the command sleeps
    assert "exit_code" not in shown
    shown = t.wait_for("all 3 [bold]passed[/bold] ===")  # then the newest one, as printed: never read as markup
    assert "exit_code" not in shown and "collecting tests" not in shown
    row = next(line for line in shown.splitlines() if "all 3 [bold]" in line)
    assert row.rstrip().endswith("…") and len(row) <= COLUMNS  # one row, cut at the terminal's width
    t.send("C-o")  # while it still runs: what it printed so far, not the output of an earlier command
    shown = t.wait_for("── output so far of bash")
    so_far = shown.split("── output so far of bash", 1)[1]
    assert "collecting tests\nall 3 [bold]passed" in so_far and "exit_code" not in so_far
    t.wait_for("Result: done")
    t.send("C-o")
    shown = t.wait_for("── output of bash")
    assert re.search(r"collecting tests\nall 3 \[bold\]passed\[/bold\]\s+=+", shown)  # every line, whole
