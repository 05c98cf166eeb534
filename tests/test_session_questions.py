"""A session's record says which approvals its runs rest on: each question asked (a command, a
changed plan, the trust question and a project hook's approval at start-up) and its answer are
journalled as meta records, read back by `session_records.questions`, and skipped by replay, so a
resume sends what it always did and a session from before them reads as it did."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import cast_env, invoke_cast
from test_answers_stdin import TURNS, answering, converse, plan, script

from cast.session_records import questions, read_records, replay
from cast.sessions import TRANSCRIPT, Session, sessions_dir


def records_of(repo, session: str) -> list[dict]:
    return read_records(sessions_dir(repo) / session / TRANSCRIPT)


def test_an_execute_run_answered_on_stdin_journals_each_question_and_its_answer(repo, tmp_path):
    path = plan(repo)
    model = script(tmp_path, TURNS)

    def answer(event: dict) -> str:
        if event["kind"] == "command":
            path.write_text(path.read_text() + "- [ ] A third item\n")  # so a changed-plan question follows
            return "yes"
        return "no"

    events, code, stderr = converse(answering(repo, model), answer)
    assert code == 1, stderr

    result = events[-1]
    recorded = questions(records_of(repo, result["session"]))
    asked = [e for e in events if e["type"] == "asked"]
    answers = {e["id"]: e["answer"] for e in events if e["type"] == "answered"}
    assert [(q["kind"], q["answer"]["value"]) for q in recorded] == [("command", "yes"), ("revision", "no")]
    assert recorded == [{k: e[k] for k in ("id", "kind", "request", "call_id")} | {"answer": answers[e["id"]]} for e in asked]
    assert recorded[0]["request"]["command"] == "touch made.txt" and recorded[0]["call_id"]

    session, messages = Session.resume(repo, result["session"])  # replay skips them: the conversation as sent
    session.close()
    assert messages and not any(m["role"] == "meta" or "question" in m for m in messages)


def test_the_trust_question_asked_before_the_run_is_in_its_session(repo, tmp_path):
    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text("sandbox_network = true\n")
    model = script(tmp_path, [{"text": "Nothing to plan."}])
    done = invoke_cast(repo, "--json", "--model", model, "plan", "x", "--answers", "stdin", stdin='{"answer": "yes"}\n')
    result = json.loads(done.stdout.splitlines()[-1])
    trust = [q for q in questions(records_of(repo, result["session"])) if q["kind"] == "trust"]
    assert len(trust) == 1 and trust[0]["answer"]["value"] == "yes" and trust[0]["request"]["keys"] == ["sandbox_network"]


def test_replay_is_the_same_with_and_without_question_records():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "make"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ]
    asked = {"role": "meta", "question": {"type": "asked", "id": "q1", "kind": "command", "request": {}, "call_id": "t1"}}
    answered = {"role": "meta", "question": {"type": "answered", "id": "q1", "kind": "command", "answer": {"value": "yes"}}}
    with_questions = [messages[0], messages[1], asked, answered, messages[2]]
    assert replay(with_questions) == replay(messages) == messages
    assert questions(messages) == []  # a session from before questions were journalled
    again = [asked, answered, dict(asked), {**answered, "question": {**answered["question"], "answer": {"value": "no"}}}]
    assert [q["answer"]["value"] for q in questions(again)] == ["yes", "no"]  # ids repeat across processes


def test_an_mcp_servers_approval_asked_while_the_run_is_built_is_printed_answered_and_journalled(repo, tmp_path):
    """The question comes before the run has a stream: a program still sees it on stdout, its yes
    starts the server, and the session's record keeps it."""
    from mcpkit import STARTUP, server_argv

    from cast.trust import record

    argv = server_argv()
    entry = {"command": argv[0], "args": argv[1:], "startup_timeout_sec": STARTUP}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": entry}}))
    record(repo, trusted=True)
    model = script(tmp_path, [{"text": "Nothing to plan."}])
    done = invoke_cast(repo, "--json", "--model", model, "plan", "x", "--answers", "stdin", stdin='{"answer": "yes"}\n')
    events = [json.loads(line) for line in done.stdout.splitlines()]
    asked = next(e for e in events if e["type"] == "asked")
    assert "MCP server 'cloned'" in asked["request"]["command"] and events.index(asked) == 0
    assert "not started" not in done.stdout + done.stderr
    recorded = [q for q in questions(records_of(repo, events[-1]["session"])) if q["id"] == asked["id"]]
    assert len(recorded) == 1 and recorded[0]["answer"]["value"] == "yes"


def answer_hook_question(repo, tmp_path, answer: str) -> tuple[list[dict], Path]:
    """A trusted workspace whose config declares a pre_tool_use hook; `cast --json plan --answers
    stdin` in a real process, the program answering each question it prints with `answer`."""
    from cast.trust import record

    marker = tmp_path / "hook-ran"
    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text(f'[[hooks]]\nevent = "pre_tool_use"\ncommand = "echo ran >> {marker}"\n')
    record(repo, trusted=True)
    model = script(tmp_path, [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}, {"text": "Nothing to plan."}])
    events, _, stderr = converse(answering(repo, model, "plan", "look"), lambda event: answer)
    assert events and events[-1]["type"] == "result", stderr
    return events, marker


def test_a_projects_hook_is_asked_about_on_stdin_approved_run_and_journalled(repo, tmp_path):
    from cast.hooks.config import declared
    from cast.hooks.project import is_approved

    events, marker = answer_hook_question(repo, tmp_path, "yes")
    asked = [e for e in events if e["type"] == "asked"]
    assert len(asked) == 1 and events.index(asked[0]) == 0  # before the run: trust was given already
    request = asked[0]["request"]
    assert asked[0]["kind"] == "hook" and request["name"] == "project hooks[0]" and request["event"] == "pre_tool_use"
    assert request["command"] == f"echo ran >> {marker}" and request["root"] == str(repo.resolve())
    assert marker.read_text() == "ran\n"  # the approved hook ran before read_file
    assert is_approved(repo, declared(repo)[0])  # pinned: not asked again
    recorded = questions(records_of(repo, events[-1]["session"]))
    answered = next(e for e in events if e["type"] == "answered")
    assert recorded == [{k: asked[0][k] for k in ("id", "kind", "request", "call_id")} | {"answer": answered["answer"]}]
    assert recorded[0]["answer"]["value"] == "yes"


def test_a_projects_hook_refused_on_stdin_does_not_run_and_the_no_is_journalled(repo, tmp_path):
    from cast.hooks.config import declared
    from cast.hooks.project import is_approved

    events, marker = answer_hook_question(repo, tmp_path, "no")
    asked = [e for e in events if e["type"] == "asked"]
    assert [e["kind"] for e in asked] == ["hook"]
    assert not marker.exists()  # read_file ran; the refused hook did not
    assert any(e["type"] == "tool_result" and e["name"] == "read_file" for e in events)
    assert not is_approved(repo, declared(repo)[0])  # a no pins nothing: asked again next time
    recorded = questions(records_of(repo, events[-1]["session"]))
    assert [(q["kind"], q["request"]["command"], q["answer"]["value"]) for q in recorded] == [
        ("hook", f"echo ran >> {marker}", "no")
    ]


def yes_on_the_terminal(repo: Path, model: str, question: str) -> str:
    """`cast --model MODEL plan x` on a pseudo-terminal, answering y to `question` (a pattern): the session it ran."""
    import pexpect

    child = pexpect.spawn(
        sys.executable, ["-m", "cast", "--model", model, "plan", "x"], cwd=str(repo), env=cast_env(), encoding="utf-8", timeout=60
    )
    child.expect(question)
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    (session,) = [d.name for d in sessions_dir(repo).iterdir()]
    return session


def test_the_trust_question_answered_on_the_terminal_is_in_the_session_too(repo, tmp_path):
    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text("sandbox_network = true\n")
    session = yes_on_the_terminal(repo, script(tmp_path, [{"text": "Nothing to plan."}]), r"Trust it\? ")
    trust = [q for q in questions(records_of(repo, session)) if q["kind"] == "trust"]
    assert len(trust) == 1 and trust[0]["answer"]["value"] == "yes" and trust[0]["request"]["keys"] == ["sandbox_network"]


def test_a_projects_hook_approved_on_the_terminal_is_in_the_session_too(repo, tmp_path):
    from cast.trust import record

    marker = tmp_path / "hook-ran"
    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text(f'[[hooks]]\nevent = "pre_tool_use"\ncommand = "echo ran >> {marker}"\n')
    record(repo, trusted=True)
    model = script(tmp_path, [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}, {"text": "Nothing to plan."}])
    session = yes_on_the_terminal(repo, model, r"Approve it ")
    hook = [q for q in questions(records_of(repo, session)) if q["kind"] == "hook"]
    assert len(hook) == 1 and hook[0]["answer"]["value"] == "yes" and hook[0]["request"]["command"] == f"echo ran >> {marker}"
    assert marker.read_text() == "ran\n"
