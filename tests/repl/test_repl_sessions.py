"""Sessions as the REPL and `cast sessions` show them, and the smaller things a new user trips on:
execute ids that do not compound, no junk sessions, aligned listings, a failed command that
is not a ✓, an error said once, the self-check only where it belongs, rendered replies."""

from __future__ import annotations

import json

from replkit import harness  # noqa: F401  (a fixture)

from cast.agent import events as ev
from cast.session_list import execute_id, list_sessions
from cast.sessions import Session
from cast.tools.results import Ran
from cast.ui.render import Renderer

PLAN = "# Plan: sub\n\n- [ ] Add sub\n"
TICK = {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]}
VERDICT = {"text": '{"complete": true, "missing": []}'}
SHIFT_TAB = "\x1b[Z"


def test_execute_ids_do_not_compound(repo):
    assert execute_id(repo, "2026-01-01-sub") == "2026-01-01-sub-exec"
    Session.create(repo, "2026-01-01-sub-exec", mode="execute", task="t", model="m")
    assert execute_id(repo, "2026-01-01-sub") == "2026-01-01-sub-exec-2"
    assert execute_id(repo, "2026-01-01-sub-exec") == "2026-01-01-sub-exec-2"  # a plan written while executing
    assert execute_id(repo, "2026-01-01-sub-exec-2") == "2026-01-01-sub-exec-2"
    assert "exec-exec" not in execute_id(repo, "2026-01-01-sub-exec-exec")


def test_a_run_that_fails_before_any_reply_leaves_no_session(harness, repo):
    h = harness([])  # the script has nothing: the first request fails
    h.send("do something\r")
    h.wait_text("■ failed")
    h.wait_idle()
    failed = h.repl.state.session_id
    assert [s.id for s in list_sessions(repo)] == [failed]  # still there while it is the current run
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    assert list_sessions(repo) == []


def test_execute_sessions_are_listed_as_execute_and_resume_lines_up(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h = harness([{"text": "A **bold** claim and `code`."}, TICK, {"text": "Ticked."}, VERDICT, VERDICT])
    h.send("a longer task name for this session\r")
    h.wait_text("■ done")
    h.wait_idle()
    h.send("/execute 2026-01-01-sub\r")
    h.wait_text("Ticked.")
    h.wait_idle()
    modes = {s.id: s.mode for s in list_sessions(repo)}
    assert modes["2026-01-01-sub-exec"] == "execute" and "plan" in modes.values()
    h.send("/resume\r")
    h.wait_text("/resume ID continues one.")
    lines = h.out.text().splitlines()
    assert all(any(line.startswith(sid) for line in lines) for sid in modes)  # each id whole, as it is typed
    rows = [line for line in lines if line.startswith("2026-") and " step" in line]
    if rows:  # a table where the rows fit (else each id on its own line, the rest under it)
        assert len(rows) == 2
        assert len({line.index(" execute ") if " execute " in line else line.index(" plan ") for line in rows}) == 1


def test_last_reply_on_resume_is_rendered_not_raw(harness, repo):
    h = harness([{"text": "Use **pytest** with `-x`."}])
    h.send("how do I test\r")
    h.wait_text("■ done")
    h.wait_idle()
    session = h.repl.state.session_id
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    h.send(f"/resume {session}\r")
    h.wait_text("Type to continue.")
    out = h.out.text()
    tail = out[out.index("Last reply:") :]
    assert "Use pytest with `-x`." in tail and "**" not in tail  # rendered: bold gone, the code span kept in backticks


def test_the_self_check_says_self_check_once(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN + "- [ ] Test sub\n")
    h = harness([TICK, {"text": "Only one done."}, VERDICT, {"text": "Still one."}, VERDICT])
    h.send("/execute\r")
    h.wait_text("■ done")
    h.wait_idle()
    assert "self-check: cast" not in h.out.text() and "self-check: the task is not finished yet" in h.out.text()


def test_no_executor_self_check_after_plan_mode_chat(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h = harness([TICK, {"text": "Ticked."}, VERDICT, {"text": "Hello."}, VERDICT])
    h.send("/execute\r")
    h.wait_text("■ done")
    h.wait_idle()
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "plan", "plan mode")
    before = len(h.repl.state.run.agent.model.requests)
    h.send("hi\r")
    h.wait_text("Hello.")
    h.wait_idle()
    assert len(h.repl.state.run.agent.model.requests) == before + 1  # the chat, and no self-check request


def test_a_failed_command_is_not_a_tick_and_an_error_is_said_once():
    out: list[str] = []
    renderer = Renderer(lambda r: out.append(str(r)), plain=True)
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "git log --oneline"}))
    renderer.handle(
        ev.ToolResult(
            "t1",
            "bash",
            True,
            "exit_code=128",
            "exit_code=128\nfatal: not a git repository",
            result=Ran("git log --oneline", 128),
        )
    )
    assert out[-1].startswith("✗ bash git log --oneline · exit_code=128")
    renderer.handle(ev.ToolCall("t2", "bash", {"command": "make"}))
    reason = "the user declined to run this command; ask or take another approach"
    renderer.handle(ev.ToolResult("t2", "bash", False, reason[:80], "error: " + reason))
    assert out[-1].count("declined") == 1


def test_cost_after_clear_agrees_with_the_toolbar(harness):
    h = harness([{"text": "Hi."}])
    h.send("hello\r")
    h.wait_text("■ done")
    h.wait_idle()
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    h.send("/cost\r")
    h.wait_text("cost:")
    assert "not priced" not in h.out.text()
    assert json.dumps(h.repl.state.total().cost) == "0.0"


def test_attaching_a_plan_and_leaving_without_a_message_leaves_no_session(harness, repo):
    """Shift+Tab attaches the plan just written; nothing is sent. That execute session holds only
    its declared prefix: it is not listed as an interrupted run, nor picked by `cast resume`."""
    write = {"name": "write_plan", "input": {"name": "plan", "content": PLAN}}
    h = harness([{"text": "Planning.", "tool_uses": [write]}, {"text": "Planned."}])
    h.send("add sub\r")
    h.wait(lambda: h.repl.asker.current is not None and "Plan written" in h.repl.asker.current.title, "the plan offer")
    h.send("n\r")
    h.wait_idle()
    h.send(SHIFT_TAB)
    h.wait(lambda: (h.repl.state.session_id or "").endswith("-exec"), "execute mode with the plan attached")
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    assert [s.mode for s in list_sessions(repo)] == ["plan"]
