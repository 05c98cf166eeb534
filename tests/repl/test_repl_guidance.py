"""Guidance typed while the agent works reaches the model at its next step, or is shown back as
not delivered — at each moment it can be typed: during a command, before an interrupt, during a
final reply. It never rides along with the user's next, unrelated message."""

from __future__ import annotations

import json

from replkit import harness  # noqa: F401  (a fixture)

PLAN = "# Plan: wait\n\n- [ ] Wait for the build\n"
WAIT = "while [ ! -e release ]; do sleep 0.05; done; echo built"  # runs until the test says so
SPARE = [{"text": '{"complete": true, "missing": []}'}] * 2


def execute_with_a_waiting_command(h, repo) -> None:
    plan = repo / ".cast" / "plans" / "2026-01-01-wait" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h.send("/execute\r")
    h.wait(lambda: h.repl.asker.current is not None, "the approval")
    h.send("y\r")
    h.wait(lambda: "⋯ bash" in "".join(t for _, t in h.repl.view.message()), "the command to run")


def requests(h) -> list[str]:
    return [json.dumps(r.messages) for r in h.repl.state.run.agent.model.requests]


def test_guidance_typed_during_a_command_reaches_the_next_step(harness, repo):
    h = harness([{"tool_uses": [{"name": "bash", "input": {"command": WAIT}}]}, {"text": "Using tabs."}, *SPARE])
    execute_with_a_waiting_command(h, repo)
    h.send("please use tabs\r")
    h.wait_text("queued for the agent's next step: please use tabs")
    (repo / "release").touch()
    h.wait_text("Using tabs.")
    h.wait_idle()
    sent = requests(h)
    assert "please use tabs" not in sent[0] and "please use tabs" in sent[1]
    assert "not delivered" not in h.out.text()


def test_guidance_typed_before_an_interrupt_is_shown_back(harness, repo):
    h = harness([{"tool_uses": [{"name": "bash", "input": {"command": WAIT}}]}, {"text": "Next."}, *SPARE])
    execute_with_a_waiting_command(h, repo)
    h.send("run it with -x instead\r")
    h.wait_text("queued for the agent's next step")
    h.send("\x03")
    h.wait_text("■ interrupted")
    h.wait_text("not delivered — the agent was interrupted before its next step:\n  run it with -x instead")
    h.wait_idle()
    assert h.repl.state.run.agent.take_guidance() == []  # taken back: nothing is left to leak


def test_guidance_typed_during_a_final_reply_is_not_glued_to_the_next_message(harness):
    h = harness([{"text": "A long final answer " * 60, "delay": 0.03}, {"text": "It is noon."}])
    h.send("explain the code\r")
    h.wait(lambda: "A long final" in "".join(t for _, t in h.repl.view.message()), "the reply to stream")
    h.send("mention the tests too\r")
    h.wait_text("queued for the agent's next step")
    h.wait_text("not delivered — the agent had finished its turn:\n  mention the tests too")
    h.wait_idle()
    h.send("what time is it\r")
    h.wait_text("It is noon.")
    assert "mention the tests too" not in requests(h)[-1]


def test_a_running_command_shows_its_time_and_ctrl_o_shows_its_output(harness, repo):
    command = WAIT.replace("echo built", "seq 1 50")
    h = harness([{"tool_uses": [{"name": "bash", "input": {"command": command}}]}, {"text": "Built."}, *SPARE])
    plan = repo / ".cast" / "plans" / "2026-01-01-wait" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h.send("/execute\r")
    h.wait(lambda: h.repl.asker.current is not None, "the approval")
    h.send("y\r")
    h.wait(lambda: "s\n" in "".join(t for _, t in h.repl.view.message()).split("⋯ bash", 1)[-1], "the elapsed time")
    (repo / "release").touch()
    h.wait_text("Built.")
    h.wait_idle()
    assert "\n25\n" not in h.out.text()  # the output is not in the scrollback by itself
    h.send("\x0f")  # Ctrl+O
    h.wait_text("── output of bash")
    h.wait_text("\n25\n")
