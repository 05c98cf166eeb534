"""The fake Messages API's usage (emulated prompt caching, context editing, count_tokens) and its
Models API, through the real SDK."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from fakeapi import FakeAPI, api, client, text, thinking  # noqa: F401  (fixtures)

SONNET = "claude-sonnet-5-5"
MARK = {"type": "ephemeral"}
TOOLS = [{"name": "read_file", "description": "Read a file. " * 40, "input_schema": {"type": "object"}, "cache_control": MARK}]
SYSTEM = [{"type": "text", "text": "You are cast, a coding agent. " * 120, "cache_control": MARK}]


def ask(client: anthropic.Anthropic, api: FakeAPI, messages: list[dict[str, Any]], **body: Any) -> Any:
    api.reply(text("ok"))
    body = {"model": SONNET, "max_tokens": 1024, "tools": TOOLS, "system": SYSTEM, "messages": messages, **body}
    usage = client.messages.create(**body).usage
    count = client.messages.count_tokens(**{k: v for k, v in body.items() if k != "max_tokens"}).input_tokens
    assert usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens == count
    return usage


def user(text_: str, marked: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text_}
    if marked:
        block["cache_control"] = MARK
    return {"role": "user", "content": [block]}


def test_a_prefix_is_written_once_then_read(client, api):
    first = ask(client, api, [user("Plan the change. " * 30)])
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 1000 and first.input_tokens == 0
    again = ask(client, api, [user("Plan the change. " * 30)])
    assert again.cache_read_input_tokens == first.cache_creation_input_tokens and again.cache_creation_input_tokens == 0
    longer = ask(
        client, api, [user("Plan the change. " * 30, marked=False), {"role": "assistant", "content": "ok"}, user("Go on. " * 40)]
    )
    # Moving the breakpoint changes nothing cached: the earlier request's prefix is found by the
    # lookback and read whole; only the new turns are written.
    assert longer.cache_read_input_tokens == first.cache_creation_input_tokens
    assert longer.cache_creation.ephemeral_5m_input_tokens == longer.cache_creation_input_tokens > 0


def test_a_short_prefix_is_not_cached(client, api):
    short = {"model": SONNET, "tools": [], "system": [{"type": "text", "text": "Be brief.", "cache_control": MARK}]}
    for _ in range(2):
        usage = ask(client, api, [user("hi")], **short)
        assert usage.cache_creation_input_tokens == 0 and usage.cache_read_input_tokens == 0


def test_one_hour_writes_are_split_out(client, api):
    tools = [{**TOOLS[0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    usage = ask(client, api, [user("task " * 200)], tools=tools)
    split = usage.cache_creation
    assert split.ephemeral_1h_input_tokens > 0 and split.ephemeral_5m_input_tokens > 0
    assert split.ephemeral_1h_input_tokens + split.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens


def test_changing_effort_misses_on_the_messages_only(client, api):
    first = ask(client, api, [user("task " * 400)], output_config={"effort": "high"})
    other = ask(client, api, [user("task " * 400)], output_config={"effort": "low"})
    assert 0 < other.cache_read_input_tokens < first.cache_creation_input_tokens
    assert other.cache_creation_input_tokens == first.cache_creation_input_tokens - other.cache_read_input_tokens


def test_automatic_caching_marks_the_last_block(client, api):
    body = {"tools": [{k: v for k, v in TOOLS[0].items() if k != "cache_control"}], "system": "You are cast. " * 200}
    first = ask(client, api, [user("task " * 50, marked=False)], cache_control=MARK, **body)
    again = ask(client, api, [user("task " * 50, marked=False)], cache_control=MARK, **body)
    assert first.cache_creation_input_tokens > 0 and again.cache_read_input_tokens == first.cache_creation_input_tokens


def test_cleared_tool_results_are_not_counted(client, api):
    messages: list[dict[str, Any]] = [{"role": "user", "content": "read everything"}]
    for n in range(5):
        messages += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "line\n" * 400}]},
        ]
    plain = ask(client, api, messages)
    edits = {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 1000},
                "keep": {"type": "tool_uses", "value": 2},
            }
        ]
    }
    api.reply(text("ok"))
    reply = client.beta.messages.create(
        model=SONNET,
        max_tokens=1024,
        tools=TOOLS,
        system=SYSTEM,
        messages=messages,
        context_management=edits,
        betas=["context-management-2025-06-27"],
    )
    cleared = reply.context_management.applied_edits[0]
    assert cleared.cleared_tool_uses == 3 and cleared.cleared_input_tokens > 1000

    def total(u):
        return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens

    assert total(reply.usage) == total(plain) - cleared.cleared_input_tokens


# -- the Models API ------------------------------------------------------------------------------
def test_models_are_not_served_until_asked(client, api):
    with pytest.raises(anthropic.APIStatusError) as caught:
        client.models.retrieve(SONNET)
    assert caught.value.status_code == 503


def test_models_list_pages_through_current_and_deprecated(client, api):
    api.serve_models()
    ids = [m.id for m in client.models.list(limit=3)]  # the SDK follows `has_more` / `last_id`
    assert len(ids) == len(set(ids)) > 3
    assert {"claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-fable-5-2", "claude-opus-4-5"} <= set(ids)
    assert "claude-sonnet-4-5" not in ids
    assert ids.index("claude-fable-5-2") < ids.index("claude-sonnet-5-5")  # newest first
    retired = [m.id for m in client.models.list(lifecycle=["retired"])]
    assert "claude-sonnet-4-5" in retired and SONNET not in retired


def test_a_model_in_todays_shape(client, api):
    api.serve_models()
    info = client.models.retrieve(SONNET)
    assert info.lifecycle == "active" and info.max_input_tokens == 1_000_000 and info.max_tokens == 128_000
    types = info.capabilities.thinking.types
    assert types.adaptive.supported and types.between_tools.supported and not types.enabled.supported
    assert not types.disabled.supported and info.capabilities.effort.xhigh.supported
    assert not client.models.retrieve("claude-opus-5-5").capabilities.thinking.types.between_tools.supported
    old = client.models.retrieve("claude-opus-4-5")
    assert old.lifecycle == "deprecated" and old.retires_at.date().isoformat() == "2027-01-22"
    gone = client.models.retrieve("claude-sonnet-4-5")
    assert gone.lifecycle == "retired" and gone.retires_at.date().isoformat() == "2026-11-30"
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-sonnet-9-9")


def test_server_side_compaction_replaces_what_came_before(client, api):
    beta = ["compact-2026-01-12"]
    edits = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]}
    big = [{"role": "user", "content": "context " * 30_000}]
    api.reply(thinking("next step"), text("continuing"))
    reply = client.beta.messages.create(model=SONNET, max_tokens=1024, messages=big, context_management=edits, betas=beta)
    assert [b.type for b in reply.content] == ["compaction", "thinking", "text"]
    history = [*big, {"role": "assistant", "content": api.requests[-1].reply}, {"role": "user", "content": "go on"}]
    api.reply(text("ok"))
    after = client.beta.messages.create(model=SONNET, max_tokens=1024, messages=history, context_management=edits, betas=beta)
    assert after.usage.input_tokens + after.usage.cache_read_input_tokens + after.usage.cache_creation_input_tokens < 1000
    api.reply(text("still ok"))  # what came before the compaction block may change or go: thinking still checks
    shortened = [{"role": "user", "content": "context"}, *history[1:]]
    client.beta.messages.create(model=SONNET, max_tokens=1024, messages=shortened, context_management=edits, betas=beta)
    assert api.requests[-1].status == 200, api.requests[-1].error
    edits["edits"][0]["pause_after_compaction"] = True
    api.reply(text("unused"))
    paused = client.beta.messages.create(model=SONNET, max_tokens=1024, messages=big, context_management=edits, betas=beta)
    assert paused.stop_reason == "compaction" and [b.type for b in paused.content] == ["compaction"]
