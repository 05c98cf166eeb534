"""The Anthropic provider driven by cast's own loop (and CLI), against the fake Messages API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import cast_env, run_cast
from fakeapi import fake_api, note, redacted, text, thinking, tool_use  # noqa: F401  (fake_api is a fixture)

from cast.agent import events as ev
from cast.agent.loop import Agent
from cast.config import Config
from cast.models.anthropic import AnthropicModel
from cast.tools.base import ToolContext
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.workspace import Workspace

FAST = Config(retries=3, retry_after_cap=0.05, model_timeout=5.0)
SYSTEM = "You are cast, planning read-only."


def agent_for(root: Path, config: Config = FAST) -> Agent:
    model = AnthropicModel("claude-sonnet-5-5", config, backoff_base=0.001)
    ctx = ToolContext(workspace=Workspace(root))
    return Agent(model=model, tools=[READ_FILE, LIST_FILES, GREP], system=SYSTEM, ctx=ctx, max_tokens=config.max_tokens)


def last(events, kind):
    return [e for e in events if isinstance(e, kind)][-1]


def cache_marks(body: dict) -> int:
    return json.dumps(body).count('"cache_control"')


def test_tool_result_reaches_the_next_request(fake_api, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    fake_api.reply(text("I'll read the notes."), tool_use("toolu_01", "read_file", {"path": "notes.txt"}), chunk=3)
    fake_api.reply(text("The notes say alpha and beta."))
    agent = agent_for(tmp_path)
    events = list(agent.run("What do the notes say?"))
    stopped = last(events, ev.Stopped)
    assert stopped.status == "done", stopped.reason
    assert "".join(e.text for e in events if isinstance(e, ev.TextDelta)) == "I'll read the notes.The notes say alpha and beta."
    second = fake_api.requests[1].body["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    result = second[2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_01"
    assert "alpha" in result["content"] and "beta" in result["content"]
    assert result.get("cache_control") == {"type": "ephemeral"}
    assert last(events, ev.UsageUpdate).usage.output_tokens == 34  # two replies of 17 tokens


def test_thinking_blocks_round_trip_through_the_loop(fake_api, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_api.reply(
        thinking("I need to look at a.py before I can say anything about it."),
        redacted(),
        note("Reading a.py."),
        tool_use("toolu_01", "read_file", {"path": "a.py"}),
        chunk=7,
    )
    fake_api.reply(thinking("It sets x."), text("a.py sets x to 1."))
    events = list(agent_for(tmp_path).run("Explain a.py"))
    assert last(events, ev.Stopped).status == "done", last(events, ev.Stopped).reason
    thought = "".join(e.text for e in events if isinstance(e, ev.ThinkingDelta))
    assert thought.startswith("I need to look") and "Reading a.py." in thought
    first_turn = fake_api.requests[0].reply
    sent = fake_api.requests[1]
    assert sent.status == 200, sent.error  # the fake's signature check passed
    assert sent.body["messages"][1] == {"role": "assistant", "content": first_turn}
    raw = sent.raw.decode()
    for block in first_turn[:3]:
        assert json.dumps(block, separators=(",", ":")) in raw  # byte for byte, in the API's field order
    assert sent.body["thinking"] == {"type": "adaptive", "display": "summarized"}


def test_prefix_stays_identical_and_breakpoints_stay_within_four(fake_api, tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / "b.py").write_text("print('b')\n")
    fake_api.reply(tool_use("toolu_01", "list_files", {}))
    fake_api.reply(tool_use("toolu_02", "read_file", {"path": "a.py"}), tool_use("toolu_03", "read_file", {"path": "b.py"}))
    fake_api.reply(text("Both print their names."))
    events = list(agent_for(tmp_path).run("What do the files do?"))
    assert last(events, ev.Stopped).status == "done"
    bodies = fake_api.bodies()
    assert len(bodies) == 3
    for body in bodies:
        assert json.dumps(body["system"]) == json.dumps(bodies[0]["system"])
        assert json.dumps(body["tools"]) == json.dumps(bodies[0]["tools"])
        assert "cache_control" not in json.dumps(body["tools"])  # the system block caches them
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
        assert cache_marks(body) <= 4
    third = bodies[2]["messages"]
    assert cache_marks(bodies[2]) == 3  # the system, the newest end, the previous request's end
    assert third[-3]["content"][-1]["cache_control"] == {"type": "ephemeral"}  # the previous request's end is read
    assert [r["tool_use_id"] for r in third[-1]["content"]] == ["toolu_02", "toolu_03"]


def test_the_loop_carries_on_through_a_retry(fake_api, tmp_path):
    fake_api.fail(529, "overloaded_error", "Overloaded", headers={"retry-after": "2"})
    fake_api.reply(text("Fine now."))
    events = list(agent_for(tmp_path).run("hello"))
    assert last(events, ev.Stopped).status == "done"
    assert len(fake_api.requests) == 2


def test_a_spent_budget_stops_the_run_with_the_reason(fake_api, tmp_path):
    for _ in range(3):
        fake_api.fail(529, "overloaded_error", "Overloaded")
    stopped = last(list(agent_for(tmp_path).run("hello")), ev.Stopped)
    assert stopped.status == "failed" and "overloaded" in stopped.reason and "3 attempts" in stopped.reason


def test_cast_plan_through_the_fake_api(fake_api, repo):
    plan = "# Plan: Add a subtract function\n\n- [ ] Add `sub` to app.py\n- [ ] Test it\n"
    fake_api.reply(text("Looking at app.py."), tool_use("toolu_01", "read_file", {"path": "app.py"}))
    fake_api.reply(tool_use("toolu_02", "write_plan", {"name": "plan", "content": plan}))
    fake_api.reply(text("The plan is written."))
    done = run_cast(
        repo,
        "plan",
        "Add a subtract function",
        ANTHROPIC_BASE_URL=fake_api.url,
        ANTHROPIC_API_KEY="test-key",
        CAST_MODEL="claude-sonnet-5-5",
    )
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip().splitlines()[-1])
    if not path.is_absolute():
        path = repo / path
    assert path.is_file() and path.read_text().endswith(plan)
    assert len(fake_api.requests) == 3
    assert {t["name"] for t in fake_api.requests[0].body["tools"]} >= {"read_file", "write_plan"}
    assert fake_api.requests[0].body["model"] == "claude-sonnet-5-5"


def test_cast_plan_without_a_key_says_which_variable_to_set(fake_api, repo):
    env = cast_env(ANTHROPIC_BASE_URL=fake_api.url, CAST_MODEL="claude-sonnet-5-5")
    env.pop("ANTHROPIC_AUTH_TOKEN", None)
    done = subprocess.run(
        [sys.executable, "-m", "cast", "plan", "anything"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr
    assert fake_api.requests == []
    assert os.environ.get("ANTHROPIC_API_KEY") == "test-key"  # the fixture's key, untouched


def test_empty_thinking_blocks_go_back_too(fake_api, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_api.reply(thinking(""), note(""), tool_use("toolu_01", "read_file", {"path": "a.py"}))
    fake_api.reply(thinking(""), text("a.py sets x to 1."))
    events = list(agent_for(tmp_path).run("Explain a.py"))
    assert last(events, ev.Stopped).status == "done", last(events, ev.Stopped).reason
    first_turn = fake_api.requests[0].reply
    assert [b["thinking"] for b in first_turn[:2]] == ["", ""] and all(b["signature"] for b in first_turn[:2])
    assert fake_api.requests[1].body["messages"][1]["content"] == first_turn and fake_api.requests[1].status == 200
