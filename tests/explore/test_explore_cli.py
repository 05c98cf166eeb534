"""`cast plan` delegating to explore end to end, with the scripted model for the parent (`--model
script:…`) and its own script for every child (`explore_model = "script:…"` in the user's config)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import invoke_cast, write_script

from cast import session_children
from cast.sessions import sessions_dir

SECRET = "ONLY_THE_CHILD_READ_THIS"
PARENT = [
    {"tool_uses": [{"name": "explore", "input": {"task": "where is add defined?"}}]},
    {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: add\n\n- [ ] Change add in app.py\n"}}]},
    {"text": "The plan is written: add lives in app.py."},
]
CHILD = [
    {"tool_uses": [{"name": "grep", "input": {"pattern": "def add"}}, {"name": "read_file", "input": {"path": "notes.py"}}]},
    {"tool_uses": [{"name": "bash", "input": {"command": "git log --oneline -1"}}]},
    {"text": "add is defined at app.py:1."},
]


def configure(tmp_path: Path, child: list[dict], **keys: object) -> None:
    script = write_script(tmp_path / "child.jsonl", child)
    lines = [f'explore_model = "script:{script}"', 'plan_commands = "proven"'] + [
        f"{k} = {json.dumps(v)}" for k, v in keys.items()
    ]
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")


def test_a_plan_run_delegates_and_its_transcript_holds_the_answer_not_the_reads(repo, tmp_path):
    (repo / "notes.py").write_text(f"# {SECRET}\n" * 30)
    configure(tmp_path, CHILD)
    parent = write_script(tmp_path / "parent.jsonl", PARENT)
    done = invoke_cast(repo, "--model", f"script:{parent}", "--json", "plan", "change add")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    call = next(r for r in rows if r["type"] == "tool_call" and r["name"] == "explore" and "parent_tool_use_id" not in r)
    nested = [r for r in rows if r.get("parent_tool_use_id") == call["id"]]
    assert [r["name"] for r in nested if r["type"] == "tool_call"] == ["grep", "read_file", "bash"]
    assert nested[-1]["type"] == "stopped" and nested[-1]["status"] == "done"
    answer = next(r for r in rows if r["type"] == "tool_result" and r["id"] == call["id"] and "parent_tool_use_id" not in r)
    assert answer["result"]["type"] == "explored" and answer["result"]["files"] == ["notes.py"]
    result = rows[-1]
    assert result["type"] == "result" and result["exit_code"] == 0
    assert list(result["usage"]["subagents"]) == ["explore-1"]
    assert result["usage"]["subagents"]["explore-1"]["calls"] == 3
    assert sum(1 for c in result["usage"]["calls"] if c.get("agent") == "explore-1") == 3
    session = sessions_dir(repo) / result["session"]
    parent_transcript = (session / "transcript.jsonl").read_text()
    assert "add is defined at app.py:1." in parent_transcript and SECRET not in parent_transcript
    ((meta, messages),) = session_children.children(session)
    assert meta["parent_call"] == call["id"] and meta["status"] == "done" and SECRET in json.dumps(messages)
    assert result["report"]["explored"][0]["task"] == "where is add defined?"


def test_an_execute_run_offers_explore_too_and_its_child_still_only_reads(repo, tmp_path):
    from conftest import commit_plan

    commit_plan(repo, "# Plan\n\n- [ ] look around\n")
    child = [
        {"tool_uses": [{"name": "write_file", "input": {"path": "pwned.txt", "content": "x"}}]},
        {"tool_uses": [{"name": "edit_file", "input": {"path": "app.py", "old_string": "a + b", "new_string": "0"}}]},
        {"tool_uses": [{"name": "bash", "input": {"command": "echo hi > pwned.txt"}}]},
        {"text": "I could not write anything."},
    ]
    configure(tmp_path, child)
    parent = write_script(
        tmp_path / "parent.jsonl",
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
            {"tool_uses": [{"name": "explore", "input": {"task": "try to write"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "blocked", "note": "only looked"}}]},
            {"text": "Blocked."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    done = invoke_cast(repo, "--model", f"script:{parent}", "--json", "execute", "--yes")
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    child_results = [r for r in rows if r["type"] == "tool_result" and r.get("parent_tool_use_id")]
    assert [r["name"] for r in child_results] == ["write_file", "edit_file", "bash"]
    assert not any(r["ok"] for r in child_results[:2]) and "no tool named" in child_results[0]["text"]
    assert child_results[2]["result"]["type"] == "declined"
    assert not (repo / "pwned.txt").exists() and "a + b" in (repo / "app.py").read_text()
