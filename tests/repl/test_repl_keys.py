"""Keys and slash commands at the real prompt, fed through prompt-toolkit's pipe input."""

from __future__ import annotations

import threading

import pytest
from replkit import harness  # noqa: F401  (a fixture)

from cast.repl import commands
from cast.safety.approval_scope import scope_of
from cast.safety.decision import ApprovalRequest


def request(command: str) -> ApprovalRequest:
    return ApprovalRequest(command, "/work", "not provably read-only", scope_of(command))


SHIFT_TAB = "\x1b[Z"


def test_shift_tab_toggles_plan_and_execute(harness):
    h = harness()
    assert h.repl.state.mode == "plan"
    assert ("class:mode.plan", "plan ›") in h.repl.view.message()
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "execute", "execute mode")
    assert ("class:mode.execute", "execute ›") in h.repl.view.message()
    toolbar = "".join(text for _, text in h.repl.view.toolbar())
    assert "EXECUTE" in toolbar
    assert "plan mode ·" not in h.out.text()
    h.send(SHIFT_TAB)
    h.wait(lambda: h.repl.state.mode == "plan", "plan mode again")
    h.wait_text("plan mode · read-only: the agent explores and writes a plan, nothing else")


@pytest.mark.parametrize("columns", [80, 120])
def test_help_keeps_its_descriptions_wide_and_whole(columns):
    from types import SimpleNamespace

    from cast.ui.console import render_text

    shown: list = []
    commands._help(SimpleNamespace(view=SimpleNamespace(show=shown.append)), "")  # type: ignore[arg-type]
    lines = "".join(render_text(r, columns - 1, terminal=False) for r in shown).splitlines()
    assert max(map(len, lines)) < columns
    column = lines[0].index(commands.COMMANDS[0].help[:10])  # where the descriptions start
    assert column <= 26  # not pushed right by the longest usage (/permissions and its arguments)
    for command in commands.COMMANDS:
        at = next(i for i, line in enumerate(lines) if line.startswith(f"/{command.name}"))
        rows = lines[at : next((i for i in range(at + 1, len(lines)) if lines[i][:1] in ("/", "")), len(lines))]
        assert " ".join(row[column:].strip() for row in rows).strip() == command.help  # wrapped at spaces only
        usage = " ".join(row[:column].strip() for row in rows)
        assert usage.split() == f"/{command.name} {command.args}".split()
    left = [line[:column].rstrip() for line in lines]
    assert "  [revoke N|all]" in left and "  [edits ask|auto]" in left  # broken between arguments, never inside one
    assert any(line.startswith("Esc, Ctrl+C") and "interrupt the agent" in line for line in lines)
    from cast.sandbox.policy import describe, detect

    sandbox = lines[next(i for i, line in enumerate(lines) if line.startswith("sandbox: ")) :]
    assert " ".join(line.strip() for line in sandbox) == describe()  # wrapped at spaces only
    assert len(sandbox) <= 2 and (not detect().binary or detect().binary not in describe())  # `cast doctor` names it


def test_help_lists_every_command(harness):
    h = harness()
    h.send("/help\r")
    h.wait_text("/exit")
    text = h.out.text()
    for command in commands.COMMANDS:
        assert f"/{command.name}" in text
    assert "Shift+Tab" in text
    assert "sandbox: " in text  # which kernel layer holds plan-mode commands


def test_unknown_command_says_so(harness):
    h = harness()
    h.send("/frobnicate\r")
    h.wait_text("unknown command /frobnicate")


def test_unique_prefix_runs_the_command(harness):
    h = harness()
    h.send("/pla\r")  # /plan and /plans share it: the completion menu's first entry wins
    h.send("/he\r")
    h.wait_text("/compact")


def test_exit_command_returns_zero(harness):
    h = harness()
    h.send("/exit\r")
    h.thread.join(20)
    assert h.code == 0


def test_ctrl_d_exits(harness):
    h = harness()
    h.send("\x04")
    h.thread.join(20)
    assert h.code == 0


def test_ctrl_c_twice_at_empty_prompt_exits(harness):
    h = harness()
    h.send("\x03")
    h.wait_text("press Ctrl+C again")
    assert h.thread.is_alive()
    h.send("\x03")
    h.thread.join(20)
    assert h.code == 0


def test_ctrl_c_with_text_clears_the_line_and_stays(harness):
    h = harness()
    h.send("half a thought")
    h.wait(lambda: h.repl.buffer_text() == "half a thought", "typed text")
    h.send("\x03")
    h.wait(lambda: h.repl.buffer_text() == "", "cleared line")
    assert h.thread.is_alive()


def test_escape_enter_and_ctrl_j_insert_newlines(harness, monkeypatch):
    h = harness()
    sent: list[str] = []
    monkeypatch.setattr(h.repl, "start_task", sent.append)
    h.send("line one\x1b\rline two\nline three\r")
    h.wait(lambda: sent, "a submitted task")
    assert sent == ["line one\nline two\nline three"]


def test_slash_command_completion_offers_commands_with_help(harness):
    h = harness()
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    found = list(h.repl.session.completer.get_completions(Document("/c"), CompleteEvent()))
    assert [c.text for c in found] == ["cost", "compact", "clear"]
    assert all(c.display_meta_text for c in found)


def test_commands_that_change_the_run_wait_while_busy(harness):
    h = harness([{"text": "slow " * 2000, "delay": 0.05}])  # half a minute unless interrupted
    h.send("think slowly\r")
    h.wait(lambda: h.repl.busy, "the agent to start")
    h.send("/clear\r")
    h.wait_text("/clear waits until the agent is done")
    h.send("/cost\r")
    h.wait_text("tokens:")
    h.send("\x1b")  # Esc interrupts
    h.wait_text("■ interrupted")


def test_approval_is_asked_at_the_prompt(harness):
    h = harness()
    answers: list[str] = []
    worker = threading.Thread(target=lambda: answers.append(h.repl.approver.ask(request("make install")).value))
    worker.start()
    h.wait(lambda: h.repl.asker.current is not None, "the question")
    text = "".join(t for _, t in h.repl.view.message())
    assert "make install" in text and "[y]es" in text and "[a]lways this session: make install …" in text
    h.send("a")  # a key alone is not yet an answer: Enter confirms it
    h.wait(lambda: "Enter: [a]lways" in "".join(t for _, t in h.repl.view.message()), "the choice to be shown")
    assert h.repl.asker.current is not None and not answers
    h.send("\r")
    worker.join(20)
    assert answers == ["always"]
    h.wait_text("approved for this session (make install …): make install")


def test_interrupting_an_approval_answers_no(harness):
    h = harness()
    for key in ("\x03", "\x1b"):
        answers: list[str] = []
        worker = threading.Thread(
            target=lambda answers=answers: answers.append(h.repl.approver.ask(request("rm -rf build")).value)
        )
        worker.start()
        h.wait(lambda: h.repl.asker.current is not None, "the question")
        h.send(key)
        worker.join(20)
        assert answers == ["no"]
    assert h.thread.is_alive()  # leaving a question never exits cast


def test_typed_answer_while_text_is_in_the_buffer(harness):
    h = harness()
    answers: list[str] = []
    worker = threading.Thread(target=lambda: answers.append(h.repl.approver.ask(request("make")).value))
    worker.start()
    h.wait(lambda: h.repl.asker.current is not None, "the question")
    h.send("yes\r")  # the word is as good as the key
    worker.join(20)
    assert answers == ["yes"]


def test_interrupted_work_is_kept_and_the_conversation_goes_on(harness):
    h = harness([{"text": "First half of a long answer " * 300, "delay": 0.05}, {"text": "Carrying on."}])
    h.send("explain\r")
    h.wait(lambda: "First half" in "".join(t for _, t in h.repl.view.message()), "streamed text")
    h.send("\x03")
    h.wait_text("■ interrupted: interrupted by user")
    h.wait_idle()
    assert "First half" in h.out.text()  # what was streamed stays on screen
    h.send("go on\r")
    h.wait_text("Carrying on.")
    request = h.repl.state.run.agent.model.requests[-1]
    said = [m for m in request.messages if m["role"] == "assistant"][-1]
    assert "First half" in said["content"][0]["text"] and "interrupted by user" in said["content"][0]["text"]


def test_history_is_kept_per_project_in_the_private_state_dir(repo):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cast.repl.app import Repl
    from cast.runs import Options

    with create_pipe_input() as pipe:
        pipe.send_text("/cost\r/exit\r")
        repl = Repl(
            Options(model="script:none.jsonl", cwd=repo),
            input=pipe,
            output=DummyOutput(),
            out=__import__("io").StringIO(),
            color=False,
        )
        assert repl.run() == 0
    from cast.state import private_dir

    history = private_dir(repo, "history") / "prompts"
    assert "/cost" in history.read_text() and history.stat().st_mode & 0o077 == 0
    assert not (repo / ".cast" / "history").exists()
