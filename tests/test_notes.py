"""The agent's notes between tool calls (thinking blocks with text, where today's models put
them) are shown dimmed, in order, in one-shot output and as `note` events with --json; empty
thinking blocks show nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import cast_env, make_agent, run_all, run_cast, write_script
from fakeapi import fake_api, model_info, text, thinking, tool_use  # noqa: F401  (fake_api is a fixture)

from cast.agent import events as ev

NOTE = "Reading app.py first to see what add does."
PLAN = "# Plan: sub\n\n- [ ] Add sub to app.py\n"
TURNS = [
    {"thinking": NOTE, "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
    {"thinking": "", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]},
    {"thinking": "Plan written; nothing else to check.", "text": "Done."},
]


def plan(repo, tmp_path, *extra: str) -> subprocess.CompletedProcess[str]:
    script = write_script(tmp_path / "notes.jsonl", TURNS)
    return subprocess.run(
        [sys.executable, "-m", "cast", "--model", f"script:{script}", "plan", *extra, "add sub"],
        cwd=repo,
        env=cast_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_loop_emits_a_note_per_thinking_block_with_text(tmp_path):
    from cast.tools.files import READ_FILE

    agent, _ = make_agent(tmp_path, [TURNS[0], {"thinking": "   ", "text": "ok"}], [READ_FILE])
    (tmp_path / "app.py").write_text("x = 1\n")
    events = run_all(agent)
    notes = [e for e in events if isinstance(e, ev.Note)]
    assert [n.text for n in notes] == [NOTE]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("Note") < kinds.index("ToolCall")
    assert ev.to_json(notes[0]) == {"type": "note", "text": NOTE}


def test_one_shot_output_shows_notes_between_tool_lines(repo, tmp_path):
    done = plan(repo, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    note = lines.index(NOTE)
    read = next(i for i, line in enumerate(lines) if line.startswith("✓ read_file app.py"))
    write = next(i for i, line in enumerate(lines) if line.startswith("✓ write_plan"))
    assert note < read < write
    assert lines.index("Plan written; nothing else to check.") > write
    assert sum(1 for line in lines if not line.strip()) <= 2  # an empty thinking block prints nothing


def test_json_output_has_note_events(repo, tmp_path):
    done = plan(repo, tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    notes = [e["text"] for e in events if e["type"] == "note"]
    assert notes == [NOTE, "Plan written; nothing else to check."]
    assert kinds.index("note") < kinds.index("tool_call")


def test_notes_from_the_api_are_shown_and_empty_blocks_are_not(fake_api, repo):
    fake_api.models = {"claude-sonnet-5-5": model_info("claude-sonnet-5-5", thinking=("adaptive", "between_tools"))}
    fake_api.reply(
        thinking("", "c2lnLWVtcHR5"),
        thinking("Looking at app.py.", "c2lnLW9uZQ=="),
        tool_use("toolu_1", "read_file", {"path": "app.py"}),
    )
    fake_api.reply(tool_use("toolu_2", "write_plan", {"name": "plan", "content": PLAN}))
    fake_api.reply(text("Done."))
    done = run_cast(repo, "plan", "add sub", ANTHROPIC_BASE_URL=fake_api.url, ANTHROPIC_API_KEY="test-key")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines.index("Looking at app.py.") < next(i for i, line in enumerate(lines) if line.startswith("✓ read_file"))
    assert fake_api.requests[0].body["model"] == "claude-sonnet-5-5"
    reply = next(m for m in fake_api.requests[1].body["messages"] if m["role"] == "assistant")
    empty = reply["content"][0]  # the empty block goes back too
    assert empty["type"] == "thinking" and empty["thinking"] == "" and empty["signature"]
