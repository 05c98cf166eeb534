"""Slash commands, each through the prompt: they do what they say or say clearly why not."""

from __future__ import annotations

from fakeapi import fake_api  # noqa: F401  (a fixture)
from replkit import harness  # noqa: F401  (a fixture)

from cast.repl import commands
from cast.sessions import sessions_dir

PLAN = "# Plan: sub\n\n- [ ] Add sub\n- [x] Already there\n"


def test_every_command_has_help_and_a_handler():
    assert [c.name for c in commands.COMMANDS] == [
        "plan",
        "execute",
        "replan",
        "tasks",
        "plans",
        "cost",
        "skills",
        "mcp",
        "compact",
        "resume",
        "clear",
        "model",
        "permissions",
        "undo",
        "redo",
        "diff",
        "help",
        "exit",
    ]
    for command in commands.COMMANDS:
        assert command.help and callable(command.handler)
        assert "TODO" not in command.help
    assert commands.lookup("quit").name == "exit" and commands.lookup("he").name == "help"
    assert commands.lookup("pl") is None  # ambiguous: plan, plans


def test_commands_before_any_task(harness):
    h = harness()
    for line, expected in [
        ("/plan", "Already in plan mode: type a task to plan it"),  # not a silent no-op
        ("/tasks", "No task list"),
        ("/plans", "No plans yet"),
        ("/cost", "tokens: 0 in, 0 out"),
        ("/compact", "Nothing to compact yet"),
        ("/resume", "No sessions to resume yet"),
        ("/model", "model: script:script.jsonl"),
        ("/execute", "cannot execute: no plan with unticked items"),
        ("/execute 2026-01-01-nothing", "cannot execute: no plan file or session"),
    ]:
        h.send(line + "\r")
        h.wait_text(expected)
        h.wait_idle()
    said = " ".join(h.out.text().split())  # the REPL's own way, not the command line's
    assert said.count("describe a task to plan it first (or /plan TASK)") == 2 and "cast plan" not in said, said


def test_plan_with_a_task_plans_it_and_plans_lists_it(harness):
    h = harness([{"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}, {"text": "Planned."}])
    h.send("\x1b[Z")
    h.wait(lambda: h.repl.state.mode == "execute", "execute mode")
    h.send("/plan add sub\r")
    h.wait(lambda: h.repl.asker.current is not None, "the plan offer")
    assert h.repl.state.mode == "plan"
    h.send("n\r")
    h.wait_idle()
    h.send("/plans\r")
    h.wait_text("1/2")
    assert "add sub" in h.out.text()
    h.send("/cost\r")
    h.wait_text("context:")
    assert "cost: $0 (a scripted model is free)" in h.out.text()


def test_execute_with_a_session_id_shows_the_task_list(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h = harness(
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Done."},
        ]
    )
    h.send("/execute 2026-01-01-sub\r")
    h.wait_text("■ done")
    h.wait_idle()
    assert h.repl.state.mode == "execute"
    h.send("/tasks\r")
    h.wait_text("Tasks 2/2 done")
    assert plan.read_text() == PLAN.replace("- [ ] Add sub", "- [x] Add sub")
    from cast import runs

    if hasattr(runs, "finish"):  # the evidence report follows an execution
        assert "Plan: 2/2 items done" in h.out.text()


def test_undo_diff_and_redo_of_an_executed_item(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    h = harness(
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
            {"tool_uses": [{"name": "write_file", "input": {"path": "sub.py", "content": "def sub(a, b):\n    return a - b\n"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "checked by hand"}}]},
            {"text": "Done."},
            {"text": '{"complete": true, "missing": []}'},
        ]
    )
    h.send("/execute 2026-01-01-sub\r")
    h.wait(lambda: h.repl.asker.current is not None and "sub.py" in h.repl.asker.current.title, "the edit question")
    h.send("y\r")
    h.wait_text("■ done")
    h.wait_idle()
    assert (repo / "sub.py").exists()
    h.send("/diff 1\r")
    h.wait_text("+    return a - b")
    for n, line in enumerate(("/undo one", "/undo 1 2", "/redo 1", "/diff all"), 1):  # a word it does not take: said, not done
        h.send(line + "\r")
        h.wait(lambda n=n: h.out.text().count(" did nothing: it takes /") == n, line)
        h.wait_idle()
        assert h.repl.asker.current is None and "Undo this?" not in h.out.text()
    assert (repo / "sub.py").exists()
    h.send("/undo\r")  # shows what would change and asks
    h.wait(lambda: h.repl.asker.current is not None and h.repl.asker.current.title == "Undo this?", "the undo question")
    h.send("n\r")
    h.wait_text("not changed")
    h.wait_idle()
    assert (repo / "sub.py").exists()
    h.send("/undo 1\r")
    h.wait(lambda: h.repl.asker.current is not None, "the undo question")
    h.send("y\r")
    h.wait_text("undo done")
    h.wait_idle()
    assert "`/redo` reverses it" in h.out.text() and "cast redo" not in h.out.text()
    assert not (repo / "sub.py").exists() and plan.read_text() == PLAN  # item 2 was ticked before: it stays
    h.send("/redo --yes\r")
    h.wait_text("redo done")
    assert (repo / "sub.py").exists() and plan.read_text() == PLAN.replace("- [ ] Add sub", "- [x] Add sub")


def test_clear_starts_a_new_session_and_model_switches(harness, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text('{"text": "from the other script"}\n')
    h = harness([{"text": "first answer"}])
    h.send("hello\r")
    h.wait_text("first answer")
    h.wait_idle()
    first = h.repl.state.session_id
    assert first
    h.send(f"/model script:{other}\r")
    h.wait_text("model: script:other.jsonl")
    h.send("again\r")
    h.wait_text("from the other script")
    h.wait_idle()
    assert h.repl.state.session_id == first  # same conversation, other model
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    assert h.repl.state.run is None and h.repl.state.session_id == ""


def test_resume_without_support_says_so(harness):
    h = harness()
    h.send("/resume 2026-01-01-nothing\r")
    h.wait_text("cannot resume 2026-01-01-nothing")
    h.wait_idle()
    said = " ".join(h.out.text().split())
    assert "(/resume alone lists the recent ones)" in said and "cast sessions" not in said, said


def test_resume_brings_back_an_earlier_conversation(harness):
    h = harness([{"text": "first answer"}])
    h.send("remember the word tangerine\r")
    h.wait_text("first answer")
    h.wait_idle()
    first = h.repl.state.session_id
    h.send("/clear\r")
    h.wait_text("Conversation cleared")
    h.send("/resume\r")
    h.wait_text(first)  # listed
    h.send(f"/resume {first}\r")
    h.wait_text("Last reply:\nfirst answer")
    h.wait_idle()
    assert h.repl.state.session_id == first
    h.send("what was the word?\r")
    h.wait(lambda: h.out.text().count("■ done") == 2, "the second answer")
    h.wait_idle()
    import json

    sent = json.dumps(h.repl.state.run.agent.model.requests[-1].messages)
    assert "tangerine" in sent and "what was the word?" in sent


def test_execute_of_a_fully_ticked_plan_keeps_the_conversation(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN.replace("- [ ] Add sub", "- [x] Add sub"))
    h = harness([{"text": "first answer"}, {"text": "second answer"}])
    h.send("hello\r")
    h.wait_text("first answer")
    h.wait_idle()
    run, session = h.repl.state.run, h.repl.state.session_id
    h.send("/execute 2026-01-01-sub\r")
    h.wait_text("is ticked; nothing to do")
    h.wait_idle()
    assert h.repl.state.run is run and h.repl.state.session_id == session
    assert h.repl.state.mode == "plan"
    assert not list(sessions_dir(repo).glob("*-exec*"))  # nothing recorded for it
    h.send("and then?\r")  # the planning conversation goes on
    h.wait_text("second answer")
    h.wait_idle()
    assert "hello" in str(run.agent.model.requests[-1].messages)


def test_model_retargets_the_whole_run(harness, repo, tmp_path):
    """The next request goes to the new model, and compaction and the session's record follow."""
    from cast.sessions import load

    other = tmp_path / "other.jsonl"
    other.write_text('{"text": "from the other script"}\n')
    h = harness([{"text": "first answer"}])
    h.send("hello\r")
    h.wait_text("first answer")
    h.wait_idle()
    run = h.repl.state.run
    first = run.model
    h.send(f"/model script:{other}\r")
    h.wait_text("model: script:other.jsonl")
    h.send("and now?\r")
    h.wait_text("from the other script")
    h.wait_idle()
    assert h.repl.state.run is run and run.model is not first
    assert len(first.requests) == 1 and len(run.model.requests) == 1  # the second request went to the other model
    assert "and now?" in str(run.model.requests[0].messages) and "hello" in str(run.model.requests[0].messages)
    assert run.agent.hooks.prepare.model is run.model  # compaction summarises with it too
    assert load(repo, run.session_id)[0]["model"] == "script:other.jsonl"


def test_a_model_lookup_note_is_said_above_the_prompt_not_written_under_it(harness, fake_api, capsys, monkeypatch):
    """The Models API can't be asked (503): the note says so in the scrollback; written raw to
    stderr it would land in the middle of the prompt prompt-toolkit is drawing."""
    monkeypatch.setattr("cast.models.lookup._said", set())
    h = harness([{"text": "first answer"}])
    h.send("hello\r")
    h.wait_text("first answer")
    h.wait_idle()
    h.send("/model claude-newer-than-cast-9\r")
    h.wait_text("cast: note: the Models API could not be asked about claude-newer-than-cast-9")
    h.wait_text("model: claude-newer-than-cast-9")
    assert "could not be asked" not in capsys.readouterr().err


def test_words_after_a_command_that_takes_none_are_said_to_be_ignored(harness):
    h = harness()
    h.send("/compact keep the API notes\r")  # instructions a user may expect /compact to follow
    h.wait_text("Nothing to compact yet")
    assert "/compact takes no argument; ignored: keep the API notes" in h.out.text()
    h.send("/model\r")  # a command that takes one says nothing of the kind
    h.wait_text("model: script:")
    assert h.out.text().count("takes no argument") == 1
