"""MCP calls in execute mode, end to end with a real server: approved like a command, their
output made harmless, a changed definition refused, a hanging server a failed observation."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cast, write_script
from mcpkit import server_table, write_user_config

VERDICT = {"text": json.dumps({"complete": True, "missing": [], "claims": []})}


def with_plan(root: Path) -> Path:
    path = root / ".cast" / "plans" / "s1" / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ntask: Check\nsession: s1\n---\n# Plan: Check\n\n- [ ] Ask the server\n")
    return path


def results(record: Path) -> str:
    last = json.loads(record.read_text().splitlines()[-1])
    found = []
    for message in last["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                found.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(found)


def execute(repo: Path, tmp_path: Path, calls: list[dict], *flags: str):
    with_plan(repo)
    turns = [{"tool_uses": [call]} for call in calls] + [{"text": "done"}, VERDICT]
    script = write_script(tmp_path / "script.jsonl", turns)
    record = tmp_path / "record.jsonl"
    done = run_cast(repo, "--model", f"script:{script}", "execute", *flags, record=record, timeout=600)
    return done, record


def test_headless_without_yes_refuses_naming_the_allow_rule(repo, tmp_path):
    write_user_config(server_table("t"))
    done, record = execute(repo, tmp_path, [{"name": "mcp__t__echo", "input": {"text": "hi"}}])
    assert "approval needed for mcp__t__echo" in results(record) and 'allow = ["mcp__t__echo"]' in results(record)


def test_an_allow_pattern_runs_it_and_terminal_text_stays_text(repo, tmp_path):
    write_user_config('allow = ["mcp__t__*"]\n' + server_table("t"))
    calls = [{"name": "mcp__t__hostile_text", "input": {}}, {"name": "mcp__t__flood", "input": {"size": 200_000}}]
    done, record = execute(repo, tmp_path, calls)
    said = results(record)
    assert "^[]52;c;ZXZpbA==^G" in said and "\x1b" not in said
    assert "[truncated: showed 30000 of 200000 chars]" in said
    assert "\x1b]52" not in done.stdout and "\x1b[2J" not in done.stdout and "\x1b]52" not in done.stderr


def test_a_changed_definition_is_refused_and_a_hanging_call_fails(repo, tmp_path):
    write_user_config(server_table("t", extra="tool_timeout_sec = 3"))
    calls = [
        {"name": "mcp__t__rename", "input": {}},
        {"name": "mcp__t__rename", "input": {}},
        {"name": "mcp__t__slow", "input": {"seconds": 600}},
        {"name": "mcp__t__echo", "input": {"text": "still answering"}},
    ]
    done, record = execute(repo, tmp_path, calls, "--yes")
    said = results(record)
    assert "its definition changed since this conversation started" in said
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" not in record.read_text()
    assert "the MCP call timed out" in said and "still answering" in said


def test_undo_names_mcp_calls_it_cannot_revert_and_verify_skips_them(repo, tmp_path):
    write_user_config(server_table("t"))
    calls = [
        {"name": "update_task", "input": {"id": 1, "status": "in_progress"}},
        {"name": "mcp__t__echo", "input": {"text": "filed the ticket"}},
        {"name": "update_task", "input": {"id": 1, "status": "done", "note": "asked the server"}},
    ]
    done, _ = execute(repo, tmp_path, calls, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    undo = run_cast(repo, "undo", "1")  # no --yes and no terminal: the preview only
    assert "cannot revert (MCP calls act outside the workspace): mcp__t__echo" in undo.stdout
    verified = run_cast(repo, "verify", "--json", timeout=600)
    items = [json.loads(line) for line in verified.stdout.splitlines() if '"type": "item"' in line]
    assert items and items[0]["status"] == "SKIP"
    assert any("SKIP mcp__t__echo: MCP calls act outside the tree" in reason for reason in items[0]["reasons"])
