"""A program drives a run's questions: `cast --json execute --answers stdin` prints each command
approval and each changed-plan question as an `asked` event, reads the answer as one JSON line on
stdin, and prints what was answered. Real processes on a real git repository."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import cast_env, git, invoke_cast, write_script

SESSION = "2026-01-01-made"
VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def plan(repo: Path) -> Path:
    path = repo / ".cast" / "plans" / SESSION / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntask: made\nsession: {SESSION}\n---\n# Plan\n\n- [ ] Create made.txt\n- [ ] Say done in README.md\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plan")
    return path


def script(tmp_path: Path, turns: list[dict]) -> str:
    return "script:" + str(write_script(tmp_path / "script.jsonl", turns))


TURNS = [
    {"tool_uses": [use("update_task", id=1, status="in_progress")]},
    {"tool_uses": [use("bash", command="touch made.txt")]},
    {"tool_uses": [use("update_task", id=1, status="done")]},
    {"tool_uses": [use("update_task", id=2, status="in_progress")]},
    {"text": "Stopped: the plan changed."},
    VERDICT,
]


def answering(repo: Path, model: str, *command: str) -> subprocess.Popen[str]:
    """`cast --json --model MODEL COMMAND… --answers stdin` (by default `execute SESSION`), its three
    pipes open, as an editor runs it."""
    return subprocess.Popen(
        [sys.executable, "-m", "cast", "--json", "--model", model, *(command or ("execute", SESSION)), "--answers", "stdin"],
        cwd=repo,
        env=cast_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def converse(process: subprocess.Popen[str], answer: Callable[[dict[str, Any]], str]) -> tuple[list[dict[str, Any]], int, str]:
    """Read `process`'s events to the end, answering each question with `answer(event)` as it
    comes: (the events, the exit code, what it said on stderr)."""
    assert process.stdin is not None and process.stdout is not None
    events = []
    for line in process.stdout:
        event = json.loads(line)
        events.append(event)
        if event["type"] == "asked":
            process.stdin.write(json.dumps({"id": event["id"], "answer": answer(event)}) + "\n")
            process.stdin.flush()
    process.stdin.close()
    stderr = process.stderr.read() if process.stderr is not None else ""
    return events, process.wait(timeout=60), stderr


def test_a_program_answers_a_command_approval_and_a_changed_plan_on_stdin(repo, tmp_path):
    """The program reads the stream and answers as it goes: yes to the command (and, meanwhile,
    the plan gains an item), no to going on with the changed plan."""
    path = plan(repo)

    def answer(event: dict[str, Any]) -> str:
        if event["kind"] == "command":
            path.write_text(path.read_text() + "- [ ] A third item\n")  # the plan changes while the question waits
            return "yes"
        return "no"  # to going on with the changed plan

    events, code, stderr = converse(answering(repo, script(tmp_path, TURNS)), answer)
    assert code == 1, stderr

    asked = [e for e in events if e["type"] == "asked"]
    answered = [e for e in events if e["type"] == "answered"]
    assert [(e["id"], e["kind"]) for e in asked] == [("q1", "command"), ("q2", "revision")]
    command, revision = asked[0], asked[1]
    assert command["request"]["command"] == "touch made.txt" and command["request"]["always"] == "exactly this command"
    assert command["call_id"] and command["call_id"] == next(
        e["id"] for e in events if e["type"] == "tool_call" and e["name"] == "bash"
    )
    assert any("A third item" in change for change in revision["request"]["changes"])
    assert [(e["id"], e["answer"]["value"]) for e in answered] == [("q1", "yes"), ("q2", "no")]
    assert (repo / "made.txt").exists()  # approved, so it ran
    assert "- [x] Create made.txt" in path.read_text() and "- [ ] Say done in README.md" in path.read_text()
    result = events[-1]
    assert result["type"] == "result" and result["exit_code"] == 1


def test_without_answers_a_json_run_asks_nothing_and_refuses_the_command(repo, tmp_path):
    plan(repo)
    done = invoke_cast(repo, "--json", "--model", script(tmp_path, TURNS), "execute", SESSION)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert not [e for e in events if e["type"] in ("asked", "answered")]
    assert not (repo / "made.txt").exists()
    ran = next(e for e in events if e["type"] == "tool_result" and e["name"] == "bash")
    assert "approval needed" in ran["text"]


def test_an_answer_that_is_not_one_is_a_no_and_said(repo, tmp_path):
    plan(repo)
    lines = json.dumps({"id": "q0", "answer": "yes"}) + "\n"  # answers another question
    done = invoke_cast(repo, "--json", "--model", script(tmp_path, TURNS), "execute", SESSION, "--answers", "stdin", stdin=lines)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    answered = [e for e in events if e["type"] == "answered"]
    asked = answered[0]["id"]  # numbered per process: this one may not be the first
    assert answered[0]["answer"]["value"] == "no"
    assert f"no usable answer to {asked} (it answers 'q0', and the question is {asked}): taken as no" in done.stderr
    assert not (repo / "made.txt").exists()


def test_end_of_input_is_a_no(repo, tmp_path):
    plan(repo)
    done = invoke_cast(repo, "--json", "--model", script(tmp_path, TURNS), "execute", SESSION, "--answers", "stdin", stdin="")
    assert re.search(r"no usable answer to q\d+ \(end of input\): taken as no", done.stderr)
    assert not (repo / "made.txt").exists()


def test_answers_need_json_and_come_from_stdin(repo, tmp_path):
    plan(repo)
    without = invoke_cast(repo, "--model", script(tmp_path, TURNS), "execute", SESSION, "--answers", "stdin")
    assert without.returncode == 2 and "--answers stdin needs --json" in without.stderr
    elsewhere = invoke_cast(repo, "--json", "--model", script(tmp_path, TURNS), "execute", SESSION, "--answers", "file")
    assert elsewhere.returncode == 2 and "--answers reads from stdin only, not 'file'" in elsewhere.stderr


def test_a_program_answers_the_trust_question_before_the_run(repo, tmp_path):
    from cast.trust import decision

    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text("sandbox_network = true\n")
    model = script(tmp_path, [{"text": "Nothing to plan."}])
    refused = invoke_cast(repo, "--json", "--model", model, "plan", "x", "--answers", "stdin", stdin='{"answer": "no"}\n')
    asked = json.loads(refused.stdout.splitlines()[0])
    assert asked["type"] == "asked" and asked["kind"] == "trust" and asked["request"]["keys"] == ["sandbox_network"]
    assert decision(repo) is None  # only a yes is kept: asked again next time
    trusted = invoke_cast(
        repo, "--json", "--model", model, "plan", "x", "--answers", "stdin", stdin=json.dumps({"answer": "yes"}) + "\n"
    )
    answered = [json.loads(line) for line in trusted.stdout.splitlines() if '"answered"' in line]
    assert answered[0]["kind"] == "trust" and answered[0]["answer"]["value"] == "yes"
    assert decision(repo) == "trusted"
