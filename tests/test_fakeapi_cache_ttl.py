"""The fake Messages API reports 1-hour and 5-minute cache writes in today's shape, through the
real SDK: `usage.cache_creation` is an `anthropic.types.CacheCreation` whose two counts add up to
`cache_creation_input_tokens`, in a plain answer and in a stream (where the split comes in
`message_start`, and `message_delta` carries only what `MessageDeltaUsage` declares). A request
whose lifetimes the API refuses (an unknown `ttl`, a 1-hour breakpoint after a 5-minute one) is a
400 that uses up no scripted reply."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from anthropic.types import CacheCreation, MessageDeltaUsage
from fakeapi import FakeAPI, api, client, text  # noqa: F401  (fixtures)

SONNET = "claude-sonnet-5-5"
HOUR = {"type": "ephemeral", "ttl": "1h"}
FIVE = {"type": "ephemeral"}
TOOL = {"name": "read_file", "description": "Read a file. " * 40, "input_schema": {"type": "object"}}


def body(tool_mark: dict[str, Any] | None, system_mark: dict[str, Any] | None, task: str = "Plan the change. ") -> dict[str, Any]:
    tool = {**TOOL, **({"cache_control": tool_mark} if tool_mark else {})}
    system = {
        "type": "text",
        "text": "You are cast, a coding agent. " * 120,
        **({"cache_control": system_mark} if system_mark else {}),
    }
    user = {"role": "user", "content": [{"type": "text", "text": task * 60, "cache_control": FIVE}]}
    return {"model": SONNET, "max_tokens": 1024, "tools": [tool], "system": [system], "messages": [user]}


def test_one_hour_and_five_minute_writes_are_split_in_a_plain_answer(client, api):
    api.reply(text("ok"))
    usage = client.messages.create(**body(HOUR, HOUR)).usage
    split = usage.cache_creation
    assert isinstance(split, CacheCreation)
    assert split.ephemeral_1h_input_tokens > 0 and split.ephemeral_5m_input_tokens > 0
    assert split.ephemeral_1h_input_tokens + split.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens
    # tools and system (1h) outweigh the one user turn (5m)
    assert split.ephemeral_1h_input_tokens > split.ephemeral_5m_input_tokens


def test_the_split_comes_in_the_streams_message_start(client, api):
    api.reply(text("ok"))
    with client.messages.stream(**body(HOUR, HOUR)) as stream:
        final = stream.get_final_message()
    split = final.usage.cache_creation
    assert isinstance(split, CacheCreation) and split.ephemeral_1h_input_tokens > 0
    assert split.ephemeral_1h_input_tokens + split.ephemeral_5m_input_tokens == final.usage.cache_creation_input_tokens
    api.reply(text("ok"))
    events = list(client.messages.create(**body(HOUR, HOUR, task="Another change. "), stream=True))
    start = next(e for e in events if e.type == "message_start")
    delta = next(e for e in events if e.type == "message_delta")
    assert start.message.usage.cache_creation is not None
    assert start.message.usage.cache_creation.ephemeral_1h_input_tokens == 0  # tools and system were written above: read now
    assert start.message.usage.cache_read_input_tokens == split.ephemeral_1h_input_tokens
    # the delta repeats the cumulative counts and nothing the SDK's MessageDeltaUsage doesn't declare
    assert set(delta.usage.model_dump(exclude_none=True)) <= set(MessageDeltaUsage.model_fields)
    assert delta.usage.cache_creation_input_tokens == start.message.usage.cache_creation_input_tokens


def test_only_five_minute_breakpoints_write_nothing_for_an_hour(client, api):
    api.reply(text("ok"))
    usage = client.messages.create(**body(FIVE, FIVE)).usage
    assert usage.cache_creation is not None and usage.cache_creation_input_tokens > 0
    assert usage.cache_creation.ephemeral_1h_input_tokens == 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens


def test_a_one_hour_write_is_read_back_by_the_next_request(client, api):
    api.reply(text("ok"))
    first = client.messages.create(**body(HOUR, HOUR)).usage
    api.reply(text("ok"))
    again = client.messages.create(**body(HOUR, HOUR)).usage
    assert again.cache_read_input_tokens == first.cache_creation_input_tokens
    assert again.cache_creation is not None and again.cache_creation_input_tokens == 0
    assert (again.cache_creation.ephemeral_1h_input_tokens, again.cache_creation.ephemeral_5m_input_tokens) == (0, 0)


@pytest.mark.parametrize(
    ("tool_mark", "system_mark", "message"),
    [
        (FIVE, HOUR, "must not come after a ttl='5m'"),
        ({"type": "ephemeral", "ttl": "2h"}, None, "tools.0.cache_control.ttl: Input should be '5m' or '1h'"),
    ],
)
def test_lifetimes_the_api_refuses_are_a_400(client, api, tool_mark, system_mark, message):
    api.reply(text("never sent"))
    with pytest.raises(anthropic.BadRequestError, match=message):
        client.messages.create(**body(tool_mark, system_mark))
    assert [r.status for r in api.requests] == [400]
    assert len(api.responses) == 1  # the scripted reply is still there for the next request


def test_a_one_hour_automatic_breakpoint_after_a_five_minute_one_is_refused(client, api: FakeAPI):
    request = body(FIVE, None)
    request["messages"][0]["content"][0].pop("cache_control")
    with pytest.raises(anthropic.BadRequestError, match="must not come after"):
        client.messages.create(**request, extra_body={"cache_control": HOUR})
    api.reply(text("ok"))
    usage = client.messages.create(**request, extra_body={"cache_control": FIVE}).usage
    assert usage.cache_creation is not None and usage.cache_creation.ephemeral_5m_input_tokens > 0
