"""Requests built for today's models, each sent through the strict fake (a shape the docs say is
rejected fails the test): the cache breakpoint never on a deferred tool, `max_tokens` from the
effort and the model, a refusal before any output not billed."""

from __future__ import annotations

from fakeapi import fake_api, refusal, text  # noqa: F401  (fake_api is a fixture)

from cast.config import Config
from cast.models import base as m
from cast.models.anthropic import AnthropicModel

FAST = Config(retries=1, retry_after_cap=0.05, model_timeout=5.0)
GO = ({"role": "user", "content": [{"type": "text", "text": "go"}]},)


def tool(name: str, deferred: bool = False) -> dict:
    spec = {"name": name, "description": f"{name}.", "input_schema": {"type": "object", "properties": {}}}
    return {**spec, "defer_loading": True} if deferred else spec


def send(fake_api, name: str, request: m.Request) -> dict:
    fake_api.reply(text("ok"))
    events = list(AnthropicModel(name, FAST, backoff_base=0.001).stream(request))
    sent = fake_api.requests[-1]
    assert sent.status == 200, sent.error
    assert isinstance(events[-1], m.Stop)
    return sent.body


def test_with_no_system_the_tools_breakpoint_goes_on_the_last_tool_that_is_not_deferred(fake_api):
    tools = (tool("read_file"), tool("bash"), tool("edit_file", deferred=True), tool("update_task", deferred=True))
    body = send(fake_api, "claude-opus-5", m.Request("", tools, GO))
    marked = [t["name"] for t in body["tools"] if "cache_control" in t]
    assert marked == ["bash"]
    assert all("cache_control" not in t for t in body["tools"] if t.get("defer_loading"))


def test_every_tool_deferred_leaves_the_breakpoint_to_the_system_block(fake_api):
    body = send(fake_api, "claude-opus-4-8", m.Request("s", (tool("a", deferred=True),), GO))
    assert "cache_control" not in body["tools"][0] and body["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_max_tokens_by_default_follows_the_effort_within_the_models_limit(fake_api):
    assert send(fake_api, "claude-sonnet-5-5", m.Request("s", (), GO, 0, effort="xhigh"))["max_tokens"] == 64_000
    assert send(fake_api, "claude-sonnet-5-5", m.Request("s", (), GO, 0, effort="medium"))["max_tokens"] == 32_000
    assert send(fake_api, "claude-haiku-4-5", m.Request("s", (), GO, 100_000))["max_tokens"] == 64_000
    assert send(fake_api, "claude-sonnet-5-5", m.Request("s", (), GO, 5_000, effort="max"))["max_tokens"] == 5_000


def test_xhigh_reaches_opus_4_7_and_4_8_and_is_lowered_on_4_6(fake_api):
    for name in ("claude-opus-4-8", "claude-opus-4-7"):
        assert send(fake_api, name, m.Request("s", (), GO, effort="xhigh"))["output_config"] == {"effort": "xhigh"}
    assert send(fake_api, "claude-opus-4-6", m.Request("s", (), GO, effort="xhigh"))["output_config"] == {"effort": "high"}


def test_a_refusal_before_any_output_is_not_billed(fake_api):
    fake_api.reply(stop_reason="refusal", stop_details=refusal("cyber"))
    events = list(AnthropicModel("claude-fable-5", FAST).stream(m.Request("s", (), GO)))
    usage = next(e for e in events if isinstance(e, m.Usage))
    stop = events[-1]
    assert isinstance(stop, m.Stop) and stop.refused and stop.content == ()
    assert usage == m.Usage() and stop.details["unbilled"]["input_tokens"] > 0


def test_a_refusal_after_some_output_is_billed(fake_api):
    fake_api.reply(text("Here is how"), stop_reason="refusal", stop_details=refusal("cyber"))
    events = list(AnthropicModel("claude-fable-5", FAST).stream(m.Request("s", (), GO)))
    usage = next(e for e in events if isinstance(e, m.Usage))
    assert usage.input_tokens > 0 and "unbilled" not in events[-1].details


def test_a_refused_reply_is_discarded_not_sent_back(fake_api, tmp_path):
    """The refusals page: discard the partial reply; the conversation goes on without it."""
    from cast.agent import events as ev
    from cast.agent.loop import Agent
    from cast.tools.base import ToolContext
    from cast.workspace import Workspace

    fake_api.reply(text("Step one is to"), stop_reason="refusal", stop_details=refusal("cyber"))
    agent = Agent(AnthropicModel("claude-fable-5", FAST), [], "s", ToolContext(workspace=Workspace(tmp_path)))
    stop = [e for e in agent.run("do the thing") if isinstance(e, ev.Stopped)][-1]
    assert stop.status == "failed" and stop.details["refusal"] == "cyber"
    assert [m["role"] for m in agent.transcript.messages] == ["user"]
    fake_api.reply(text("Sure."))
    list(agent.run("something else"))
    sent = fake_api.requests[-1]
    assert sent.status == 200 and "Step one is to" not in str(sent.body["messages"])


def test_an_effort_the_model_does_not_take_is_lowered_and_said_once(fake_api, repo, monkeypatch):
    from cast import conversation, runs
    from cast.agent import events as ev
    from cast.options import Options

    monkeypatch.setattr(conversation, "_NOTED", set())
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text('effort = "xhigh"\n')
    said = []
    for task in ("one", "two"):
        fake_api.reply(text("ok"))
        run = runs.plan_run(task, Options(cwd=repo, model="claude-opus-4-6"))
        seen: list = []
        stopped = run.turn(task, seen.append) if hasattr(run, "turn") else runs.turn(run, task, seen.append)
        assert stopped.status == "done", stopped.reason
        said += [e.text for e in seen if isinstance(e, ev.Notice) and "effort" in e.text]
    assert said == ['claude-opus-4-6 does not take effort "xhigh"; using "high"']
    assert [r.body["output_config"] for r in fake_api.requests] == [{"effort": "high"}] * 2
