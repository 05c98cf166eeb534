"""The whole story in a real terminal: plan → execute → undo → a new task → resume, with the
right plan, ticks and report at every step."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import cast_env, write_script
from test_repl_pty import TIMEOUT, Term, finish, pexpect, spawn

from cast.session_list import list_sessions

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}
SHIFT_TAB = "\x1b[Z"
PLAN_A = "# Plan: sub\n\n- [ ] Add sub to `app.py`\n"
PLAN_B = "# Plan: div\n\n- [ ] Add div to `app.py`\n- [ ] Test div\n"


def use(tool: str, **arguments) -> dict:
    return {"name": tool, "input": arguments}


def resume(repo: Path, script: Path, session: str) -> Term:
    """`cast resume SESSION` in a terminal, with its own script (a new process starts it afresh)."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cast", "--model", f"script:{script}", "resume", session],
        cwd=str(repo),
        env=cast_env(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", EDITOR="true"),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )
    return Term(child)


def test_plan_execute_undo_new_task_and_resume(repo, tmp_path):
    sub = "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    script = write_script(
        tmp_path / "story.jsonl",
        [
            {"text": "Planning.", "tool_uses": [use("write_plan", name="plan", content=PLAN_A)]},
            {"text": "Planned sub."},
            {"tool_uses": [use("update_task", id=1, status="in_progress"), use("read_file", path="app.py")]},
            {"tool_uses": [use("edit_file", path="app.py", old_string="    return a + b\n", new_string=sub)]},
            {"tool_uses": [use("update_task", id=1, status="done", note="a one-line function")]},
            {"text": "Added sub."},
            VERDICT,
            {"tool_uses": [use("write_plan", name="plan", content=PLAN_B)]},
            {"text": "Planned div."},
        ],
    )
    term = spawn(repo, script)
    term.child.send("add sub\r")
    term.expect(r"Plan written: \.cast/plans/\S+-add-sub/plan\.md \(1 item\)")
    term.child.send("a\r")
    term.expect(r"Added sub\.")
    term.expect(r"Plan: 1/1 items done")  # the closing report, about this plan
    term.child.send("/undo 1\r")
    term.expect(r"Undo this\?")
    term.child.send("y\r")
    term.expect(r"undo done: .*`/redo` reverses it")
    term.child.send("/tasks\r")
    term.expect(r"Tasks 0/1 done")  # the plan file as it is after the undo
    term.child.send(SHIFT_TAB)
    term.expect(r"plan ›")
    term.child.send("add div\r")
    term.expect(r"Plan written: \.cast/plans/(\S+-add-div)/plan\.md \(2 items\)")  # its own plan, not the executed one
    term.child.send("n\r")
    term.expect(r"The plan is kept at")
    assert finish(term) == 0
    plans = {p.parent.name: p.read_text() for p in (repo / ".cast" / "plans").glob("*/plan.md")}
    [sub_plan] = [t for s, t in plans.items() if s.endswith("add-sub")]
    [div_plan] = [t for s, t in plans.items() if s.endswith("add-div")]
    assert "- [ ] Add sub" in sub_plan and "task: add div" in div_plan and "- [ ] Add div" in div_plan
    [executed] = [s.id for s in list_sessions(repo) if s.mode == "execute"]
    later = write_script(tmp_path / "later.jsonl", [])
    term = resume(repo, later, executed)
    term.expect(rf"Resumed {executed} in execute mode")
    term.expect(r"Type to continue\.")
    term.child.send("/tasks\r")
    term.expect(r"Tasks 0/1 done")
    term.expect(r"Add sub to")
    assert finish(term) == 0
