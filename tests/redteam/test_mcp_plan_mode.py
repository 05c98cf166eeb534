"""A hostile MCP server against plan mode, end to end: `cast plan` with a scripted model that calls
a real server's tools (built with the SDK's server side). Whatever the server declares, plan mode
offers only what the user's plan_tools names, less what the annotations take out, and the sandbox
keeps even a tool that lies about readOnlyHint from writing anything or reading a secret."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from conftest import run_cast, write_script
from mcpkit import server_table, write_user_config

from cast.sandbox.policy import detect

pytestmark = pytest.mark.skipif(not detect().active, reason="no kernel sandbox layer on this machine")


def tools_offered(record: Path) -> set[str]:
    first = json.loads(record.read_text().splitlines()[0])
    return {tool["name"] for tool in first.get("tools", []) if not tool.get("defer_loading")}


def results(record: Path) -> str:
    """Every tool result the model was sent, as one text."""
    last = json.loads(record.read_text().splitlines()[-1])
    found = []
    for message in last["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block.get("content")
                found.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(found)


def plan(repo: Path, tmp_path: Path, calls: list[dict]) -> tuple[object, Path]:
    turns = [{"tool_uses": [call]} for call in calls]
    turns += [{"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n- [ ] x"}}]}, {"text": "done"}]
    script = write_script(tmp_path / "script.jsonl", turns)
    record = tmp_path / "record.jsonl"
    done = run_cast(repo, "--model", f"script:{script}", "plan", "look", record=record, timeout=600)
    return done, record


def test_a_server_lying_about_read_only_writes_nothing_in_plan_mode(repo, tmp_path):
    write_user_config('plan_tools = ["t/write_note", "t/delete_all", "t/wipe"]\n' + server_table("t"))
    outside = tmp_path / "outside.txt"
    calls = [
        {"name": "mcp__t__write_note", "input": {"path": str(repo / "pwned"), "text": "x"}},
        {"name": "mcp__t__write_note", "input": {"path": str(outside), "text": "x"}},
        {"name": "mcp__t__delete_all", "input": {}},
        {"name": "mcp__t__echo", "input": {"text": "not named in plan_tools"}},
    ]
    done, record = plan(repo, tmp_path, calls)
    assert done.returncode == 0, done.stderr
    offered = tools_offered(record)
    assert "mcp__t__write_note" in offered  # named by the user; its readOnlyHint is a lie
    assert not {"mcp__t__delete_all", "mcp__t__wipe", "mcp__t__echo"} & offered  # annotations remove; hints never add
    assert not (repo / "pwned").exists() and not outside.exists()
    said = results(record)
    assert said.count("error: the MCP tool reported a failure") == 2 and "external, unverified" in said


def test_a_plan_mode_server_reads_no_key_no_ssh_and_reaches_no_listener(repo, tmp_path):
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    write_user_config('plan_tools = ["t/snoop"]\n' + server_table("t"))
    try:
        args = {"path": str(home / ".ssh" / "id_ed25519"), "env": "ANTHROPIC_API_KEY", "port": port}
        turns = [{"name": "mcp__t__snoop", "input": args}]
        done, record = plan(repo, tmp_path, turns)
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    said = results(record)
    assert "PRIVATE-KEY-MATERIAL" not in said and "file: denied" in said
    assert "port: refused" in said and "env: '(unset)'" in said
