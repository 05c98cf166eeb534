"""One task, one plan: a task typed after an execute run (finished, resumed, or left with Shift+Tab)
gets its own session and plan, and the task list and toolbar read the plan file as it is now."""

from __future__ import annotations

from pathlib import Path

from replkit import harness  # noqa: F401  (a fixture)

SHIFT_TAB = "\x1b[Z"
VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}
PLAN_A = "# Plan: sub\n\n- [ ] Add sub to `app.py`\n"
PLAN_B = "# Plan: div\n\n- [ ] Add div to app.py\n- [ ] Test div\n- [ ] Document div\n"


def write(content: str) -> dict:
    return {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": content}}]}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


EXECUTE_A = [
    {"tool_uses": [use("update_task", id=1, status="in_progress")]},
    {
        "tool_uses": [
            use(
                "edit_file",
                path="app.py",
                old_string="    return a + b\n",
                new_string="    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
            )
        ]
    },
    {"tool_uses": [use("update_task", id=1, status="done", note="a one-line function")]},
    {"text": "Added sub."},
    VERDICT,
]


def toolbar(h) -> str:
    return "".join(t for _, t in h.repl.view.toolbar())


def session_of(h, line: str, done: str) -> str:
    """Send `line` to the REPL `h`, wait for `done`, close it: the session it ran in."""
    h.send(line + "\r")
    h.wait_text(done)
    h.wait_idle()
    session = h.repl.state.session_id
    h.close()
    return session


def resume(h, session: str) -> None:
    """/resume SESSION in the REPL `h`, and wait until it is back at the prompt."""
    h.send(f"/resume {session}\r")
    h.wait_text("Type to continue.")
    h.wait_idle()


def plans(repo: Path) -> dict[str, str]:
    return {p.parent.name: p.read_text() for p in (repo / ".cast" / "plans").glob("*/plan.md")}


def test_plan_execute_undo_then_a_new_task_gets_its_own_plan(harness, repo):
    h = harness([write(PLAN_A), {"text": "Planned sub."}, *EXECUTE_A, write(PLAN_B), {"text": "Planned div."}])
    h.send("add sub\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off")
    h.send("a\r")  # execute, edits auto-approved
    h.wait_text("Plan: 1/1 items done")  # the closing report
    h.wait_idle()
    exec_session = h.repl.state.session_id
    assert exec_session.endswith("-exec") and "add-sub 1/1" in toolbar(h)
    said = " ".join(h.out.text().split())
    assert "/diff ITEM shows them, /undo ITEM reverts them" in said and "cast undo" not in said  # REPL commands
    h.send("/undo 1 --yes\r")
    h.wait_text("undo done")
    assert "- [ ] Add sub" in next(iter(plans(repo).values()))
    h.wait(lambda: "add-sub 0/1" in toolbar(h), "the toolbar to show the undone tick")
    h.send("/tasks\r")
    h.wait_text("Tasks 0/1 done")
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "plan", "plan mode")
    h.send("add div\r")
    h.wait(lambda: h.repl.asker.current is not None and "3 items" in h.repl.asker.current.title, "the hand-off of plan B")
    found = plans(repo)
    assert len(found) == 2, found
    [(new_session, text)] = [(s, t) for s, t in found.items() if "div" in t]
    assert "exec" not in new_session and "task: add div" in text and f"session: {new_session}" in text
    assert h.repl.state.session_id == new_session != exec_session
    h.send("n\r")
    h.wait_idle()
    h.send("/tasks\r")
    h.wait_text("The plan written in this session")  # plan B's checklist, never plan A's
    h.wait_idle()
    shown = h.out.text().rsplit("The plan written in this session", 1)[1]
    assert "div" in shown and "Add sub to app.py" not in shown
    assert "add-sub" not in toolbar(h)  # the executed plan is not the current one


def test_a_task_typed_in_plan_mode_after_a_direct_execute_task_gets_its_own_plan(harness, repo):
    h = harness([{"text": "The ticker ran."}, write(PLAN_B), {"text": "Planned div."}], mode="execute")
    h.wait_text("cannot execute: no plan with unticked items")  # execute mode at start-up looks for a plan first
    h.wait_idle()
    h.send("run the ticker\r")
    h.wait_text("The ticker ran.")
    h.wait_idle()
    direct = h.repl.state.session_id
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "plan", "plan mode")
    h.send("add div\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off of plan B")
    [(new_session, text)] = plans(repo).items()
    assert "task: add div" in text and "run the ticker" not in text and f"session: {new_session}" in text
    assert h.repl.state.session_id == new_session != direct
    h.send("n\r")
    h.wait_idle()
    h.send("/plans\r")
    h.wait(lambda: "add div" in h.out.text().rsplit("when you are ready.", 1)[-1], "the list of plans")
    h.wait_idle()
    listed = h.out.text().rsplit("when you are ready.", 1)[1]
    assert "add div" in listed and "run the ticker" not in listed, listed


def test_a_task_typed_in_plan_mode_after_resuming_a_direct_execute_session_gets_its_own_plan(harness, repo):
    first = harness([{"text": "The ticker ran."}], mode="execute")
    first.wait_text("cannot execute: no plan with unticked items")  # execute mode at start-up looks for a plan first
    first.wait_idle()
    direct = session_of(first, "run the ticker", "The ticker ran.")
    h = harness([write(PLAN_B), {"text": "Planned div."}])
    resume(h, direct)
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "plan", "plan mode")
    h.send("add div\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off of plan B")
    [(new_session, text)] = plans(repo).items()
    assert "task: add div" in text and h.repl.state.session_id == new_session != direct
    h.send("n\r")
    h.wait_idle()
    h.send("/execute no-such-plan\r")  # the lookup's advice, in the REPL's words
    h.wait_text("cannot execute: no plan file or session")
    h.wait_idle()
    said = " ".join(h.out.text().split())
    assert "(/plans lists them all)" in said and "cast plans" not in said, said


def test_plan_with_a_task_after_a_resumed_execute_run_starts_a_new_plan(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("---\ntask: add sub\nsession: 2026-01-01-sub\n---\n" + PLAN_A)
    first = harness(EXECUTE_A)
    exec_session = session_of(first, "/execute 2026-01-01-sub", "Plan: 1/1 items done")
    h = harness([write(PLAN_B), {"text": "Planned div."}])
    resume(h, exec_session)
    assert h.repl.state.mode == "execute"
    h.send("/plan add div\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off of plan B")
    found = plans(repo)
    assert len(found) == 2 and found["2026-01-01-sub"].count("- [x]") == 1, found
    [(new_session, text)] = [(s, t) for s, t in found.items() if s != "2026-01-01-sub"]
    assert "exec" not in new_session and "task: add div" in text and "3 items" in h.repl.asker.current.title
    h.send("n\r")
    h.wait_idle()


def test_a_follow_up_that_finishes_the_plan_ends_with_the_closing_report(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-two" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] First\n- [ ] Second\n")
    h = harness(
        [
            {"tool_uses": [use("update_task", id=1, status="done", note="nothing to change")]},
            {"text": "Paused after the first."},
            VERDICT,  # the self-check sends it back once: item 2 is left
            {"text": "Stopping here for now."},
            VERDICT,
            {"tool_uses": [use("update_task", id=2, status="done", note="nothing to change")]},
            {"text": "Both done."},
            VERDICT,
        ]
    )
    h.send("/execute 2026-01-01-two\r")
    h.wait_text("Plan: 1/2 items done")
    h.wait_idle()
    h.send("continue\r")
    h.wait_text("Both done.")
    h.wait_text("Plan: 2/2 items done")
    h.wait_idle()
    out = h.out.text()
    assert out.index("Plan: 2/2 items done") > out.index("Both done.")


def test_esc_at_an_approval_is_no_and_the_run_goes_on(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-make" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Make the file\n")
    h = harness(
        [
            {"tool_uses": [use("bash", command="touch made.txt")]},
            {"text": "Skipped it, as you said no."},
            VERDICT,
            {"text": "Still skipped."},
            VERDICT,
        ]
    )
    h.send("/execute 2026-01-01-make\r")
    h.wait(lambda: h.repl.asker.current is not None and "touch made.txt" in h.repl.asker.current.detail, "the approval")
    h.send("\x1b")
    h.wait_text("Skipped it, as you said no.")
    h.wait_idle()
    out = h.out.text()
    assert "declined (left the question): touch made.txt" in out and "interrupted" not in out
    assert not (repo / "made.txt").exists()


def test_the_toolbar_and_banner_tell_the_truth(harness, repo):
    h = harness([write(PLAN_A), {"text": "Planned sub."}])
    h.send("add sub\r")
    h.wait(lambda: h.repl.asker.current is not None, "the hand-off")
    h.repl.view.columns = lambda: 200  # room for the hint
    assert h.repl.busy and "working" not in toolbar(h) and "answer above" in toolbar(h)
    h.send("n\r")
    h.wait_idle()
    session = h.repl.state.session_id
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    assert "ctx 0/" in toolbar(h)
    resume(h, session)
    assert "ctx 0/" not in toolbar(h), toolbar(h)  # the resumed conversation's size, before any new request
    other = harness(mode="execute")
    other.wait_text("/help lists commands")
    said = " ".join(other.out.text().split())
    assert "describe a task to plan it" not in said and "/execute runs a plan" in said
