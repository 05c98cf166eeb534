"""Interrupts that arrive while a job is still building its run, or between two turns.

Building a run takes git calls and the model's constructor (loading the SDK alone can take a
second), so Ctrl+C often comes before there is a turn to interrupt. The builders are held here
until the key has been pressed, so the timing is the same on a loaded machine as on an idle one."""

from __future__ import annotations

import threading

import pytest
from replkit import harness  # noqa: F401  (a fixture)

from cast import runs

PLAN = "# Plan: sub\n\n- [ ] Add sub\n"


class Held:
    """Wraps a run builder: the job blocks inside it until `release()`."""

    def __init__(self, monkeypatch, name: str):
        self.build = getattr(runs, name)
        self.entered = threading.Event()
        self.released = threading.Event()
        monkeypatch.setattr(runs, name, self)

    def __call__(self, *args, **kwargs):
        self.entered.set()
        assert self.released.wait(30), "the test never released the builder"
        return self.build(*args, **kwargs)

    def release(self) -> None:
        self.released.set()


@pytest.mark.parametrize("key", ["\x03", "\x1b"], ids=["ctrl-c", "esc"])
def test_a_key_pressed_while_the_run_is_built_interrupts_the_task(harness, monkeypatch, key):
    held = Held(monkeypatch, "plan_run")
    h = harness([{"text": "Next answer."}])  # a lost interrupt would spend it on the first task
    h.send("write an essay\r")
    h.wait(held.entered.is_set, "the run to be built")
    assert h.repl.state.run is None and h.repl.busy
    h.send(key)
    h.wait_text("interrupting")
    held.release()
    h.wait_text("■ interrupted: interrupted by user")
    h.wait_idle()
    run = h.repl.state.run
    assert run is not None and run.agent.model.requests == []  # nothing was sent to the model
    h.send("another task\r")  # the interrupt was for that task only
    h.wait_text("Next answer.")
    h.wait_text("■ done")


def test_a_key_pressed_while_an_execution_is_built_interrupts_it(harness, monkeypatch, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    held = Held(monkeypatch, "execute_run")
    h = harness(
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Done."},
        ]
    )
    h.send("/execute 2026-01-01-sub\r")
    h.wait(held.entered.is_set, "the run to be built")
    h.send("\x03")
    h.wait_text("interrupting")
    held.release()
    h.wait_text("■ interrupted: interrupted by user")
    h.wait_idle()
    assert h.repl.state.run.agent.model.requests == []
    assert plan.read_text() == PLAN
    from cast.session_list import list_sessions

    recorded = [s for s in list_sessions(repo) if s.id == h.repl.state.session_id]
    assert [s.status for s in recorded] == ["interrupted"]  # the session says what happened


def test_leaving_the_plan_offer_with_ctrl_c_does_not_interrupt_the_next_task(harness):
    write = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}
    h = harness([write, {"text": "Planned."}, {"text": "Kept planning."}])
    h.send("plan it\r")
    h.wait(lambda: h.repl.asker.current is not None, "the plan offer")
    h.send("\x03")  # leaves the offer; the job is still running, so it is interrupted too
    h.wait_text("/execute runs it")
    h.wait_idle()
    h.send("make it smaller\r")
    h.wait_text("Kept planning.")
    h.wait_text("■ done")
    assert "■ interrupted" not in h.out.text()


def test_an_interrupt_between_jobs_is_not_kept(harness):
    h = harness([{"text": "First."}, {"text": "Second."}])
    h.repl.cancel()  # idle: nothing to interrupt, nothing remembered
    h.send("one\r")
    h.wait_text("First.")
    h.wait_idle()
    h.repl.cancel()
    h.send("two\r")
    h.wait_text("Second.")
    h.wait_idle()
    assert "■ interrupted" not in h.out.text()


def test_leaving_mid_run_says_how_to_go_on(harness):
    h = harness([{"tool_uses": [{"name": "bash", "input": {"command": "python3 gen.py --write"}}]}])
    h.send("\x1b[Z")  # execute mode: the command waits for an approval
    h.wait(lambda: h.repl.state.mode == "execute", "execute mode")
    h.send("generate the fixtures\r")
    h.wait(lambda: h.repl.asker.current is not None, "the approval")  # the agent is mid-run
    session = h.repl.state.run.session_id
    assert h.close() == 0
    out = " ".join(h.out.text().split())
    assert "■ interrupted" in out and f"Left mid-run: `cast resume {session}` goes on from here." in out
    assert out.index("■ interrupted") < out.index("Left mid-run")  # after the run's own last word
