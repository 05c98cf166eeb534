"""The fake Messages API's thinking signatures, prefix check, drop_block, model binding and
progress notes, driven through the real SDK."""

from __future__ import annotations

import copy
from typing import Any

import anthropic
import pytest
from fakeapi import FakeAPI, api, client, note, redacted, text, thinking, tool_use  # noqa: F401  (fixtures)

SONNET = "claude-sonnet-5-5"
BINDING = "thinking-binding-controls-2026-08-01"
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]
SYSTEM = [{"type": "text", "text": "You are cast."}]
SUMMARIZED = {"type": "adaptive", "display": "summarized"}


def send(client: anthropic.Anthropic, messages: list[dict[str, Any]], *, betas: list[str] | None = None, **body: Any) -> Any:
    body = {"model": SONNET, "max_tokens": 1024, "system": SYSTEM, "tools": TOOLS, "messages": messages, **body}
    if betas:
        return client.beta.messages.create(betas=betas, **body)
    return client.messages.create(**body)


def first_turn(client: anthropic.Anthropic, api: FakeAPI, **body: Any) -> list[dict[str, Any]]:
    """A conversation of one user message, one assistant turn with thinking and a tool call,
    and the tool's result: what the next request sends."""
    api.reply(thinking("Which file?"), note("Reading a.py."), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    user = {"role": "user", "content": "Explain a.py"}
    send(client, [user], **body)
    return [
        user,
        {"role": "assistant", "content": api.requests[-1].reply},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1"}]},
    ]


def invalid(i: int, j: int) -> str:
    return f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block. The block is bound to a different conversation."


def test_an_unchanged_history_passes_the_prefix_check(client, api):
    history = first_turn(client, api)
    api.reply(text("It sets x."))
    assert send(client, history).content[0].text == "It sets x."
    assert api.requests[-1].status == 200


@pytest.mark.parametrize("change", ["system", "tools", "earlier message", "thinking text"])
def test_a_changed_prefix_fails_with_the_apis_400(client, api, change):
    history = first_turn(client, api)
    body: dict[str, Any] = {}
    if change == "system":
        body["system"] = [{"type": "text", "text": "You are cast, now executing."}]
    elif change == "tools":
        body["tools"] = [*TOOLS, {"name": "grep", "description": "Search.", "input_schema": {"type": "object"}}]
    elif change == "earlier message":
        history[0] = {"role": "user", "content": "Explain a.py briefly"}
    else:
        history[1]["content"][0] = {**history[1]["content"][0], "thinking": "Something else."}
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(client, history, **body)
    assert caught.value.body["error"]["message"].startswith(invalid(1, 0))  # type: ignore[index]
    assert caught.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]


def test_effort_tool_choice_and_cache_control_do_not_touch_the_prefix(client, api):
    history = first_turn(client, api)
    history = copy.deepcopy(history)
    history[2]["content"][0]["cache_control"] = {"type": "ephemeral"}
    api.reply(text("fine"))
    tools = [{**TOOLS[0], "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    send(client, history, tools=tools, output_config={"effort": "low"}, tool_choice={"type": "auto"}, thinking=SUMMARIZED)
    assert api.requests[-1].status == 200


def test_appending_a_system_message_keeps_the_prefix(client, api):
    history = first_turn(client, api)
    api.reply(text("ok"))
    send(client, [*history, {"role": "system", "content": "Files changed on disk: a.py."}])
    assert api.requests[-1].status == 200


def test_drop_block_drops_the_turns_thinking_and_lists_it(client, api):
    history = first_turn(client, api)
    history[0] = {"role": "user", "content": "Explain a.py briefly"}
    api.reply(text("ok"))
    binding = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    reply = send(client, history, betas=[BINDING], thinking=binding)
    assert [(t.path, t.reason, t.type) for t in reply.input_transformations] == [
        ("messages.1.content.0", "prefix_binding_mismatch", "thinking_dropped"),
        ("messages.1.content.1", "prefix_binding_mismatch", "thinking_dropped"),
    ]
    kept = api.requests[-1]
    assert kept.status == 200


def test_dropped_blocks_are_not_billed(client, api):
    history = first_turn(client, api)
    api.reply(text("a"))
    full = send(client, history).usage
    history[0] = {"role": "user", "content": "Explain a.py, please"}
    api.reply(text("b"))
    binding = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    dropped = send(client, history, betas=[BINDING], thinking=binding).usage

    def total(u):
        return u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens

    assert total(dropped) < total(full)


def test_without_drop_block_a_later_turn_fails_too(client, api):
    history = first_turn(client, api)
    api.reply(thinking("Now b."), tool_use("toolu_2", "read_file", {"path": "b.py"}))
    send(client, history)
    history += [
        {"role": "assistant", "content": api.requests[-1].reply},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "y = 2"}]},
    ]
    history[2] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "[aged]"}]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(client, history)
    assert caught.value.body["error"]["message"].startswith(invalid(3, 0))  # type: ignore[index]


def test_model_binding_sonnet_55_blocks_go_to_opus_55_only(client, api):
    history = first_turn(client, api)
    api.reply(text("opus reads it"))
    reply = send(client, history, model="claude-opus-5-5", betas=[BINDING])
    assert reply.input_transformations == []
    api.reply(text("haiku drops it"))
    reply = send(client, history, model="claude-haiku-5-5", betas=[BINDING])
    assert {(t.path, t.reason) for t in reply.input_transformations} == {
        ("messages.1.content.0", "model_binding_mismatch"),
        ("messages.1.content.1", "model_binding_mismatch"),
    }
    api.reply(text("silently, without the beta"))
    assert send(client, history, model="claude-fable-5-2").content[0].text == "silently, without the beta"


def test_a_block_signed_elsewhere_fails_on_a_model_that_enforces_the_check(client, api):
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}, text("hello")],
        },
        {"role": "user", "content": "again"},
    ]
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(client, messages)
    assert caught.value.body["error"]["message"].startswith(invalid(1, 0))  # type: ignore[index]
    api.reply(text("an older model lets it through"))
    reply = send(client, messages, model="claude-opus-4-8", betas=[BINDING])
    assert [(t.type, t.path) for t in reply.input_transformations] == [("thinking_mismatch_allowed", "messages.1.content.0")]


# -- progress notes ------------------------------------------------------------------------------
def kinds(reply: Any) -> list[tuple[str, str]]:
    return [(b.type, getattr(b, "thinking", getattr(b, "text", ""))) for b in reply.content]


def test_notes_are_empty_thinking_under_the_default_display(client, api):
    api.reply(thinking("reasoning"), note("Reading a.py."), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    reply = send(client, [{"role": "user", "content": "go"}])
    assert kinds(reply)[:2] == [("thinking", ""), ("thinking", "")]
    assert all(b.signature.startswith("fk1.") for b in reply.content[:2])


def test_notes_are_filled_under_summarized_and_between_tools(client, api):
    blocks = (thinking("reasoning"), note("Reading a.py."), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    api.reply(*blocks)
    assert kinds(send(client, [{"role": "user", "content": "go"}], thinking=SUMMARIZED))[:2] == [
        ("thinking", "reasoning"),
        ("thinking", "Reading a.py."),
    ]
    api.reply(*blocks)
    assert kinds(send(client, [{"role": "user", "content": "go"}], thinking={"type": "between_tools"}))[:1] == [
        ("thinking", "Reading a.py.")
    ]


def test_redacted_thinking_is_signed_and_checked(client, api):
    api.reply(redacted(), text("hi"))
    reply = send(client, [{"role": "user", "content": "go"}])
    assert reply.content[0].data.startswith("fk1.")
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": api.requests[-1].reply},
        {"role": "user", "content": "more"},
    ]
    api.reply(text("ok"))
    send(client, messages)
    messages[0] = {"role": "user", "content": "go!"}
    with pytest.raises(anthropic.BadRequestError):
        send(client, messages)


def test_a_paused_turn_may_come_back_as_the_last_message(client, api):
    api.reply(note("Searching."), stop_reason="pause_turn")
    paused = send(client, [{"role": "user", "content": "go"}])
    assert paused.stop_reason == "pause_turn"
    api.reply(text("done"))
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": api.requests[-1].reply}]
    assert send(client, messages).content[0].text == "done"
    with pytest.raises(anthropic.BadRequestError, match="prefill"):
        send(client, [{"role": "user", "content": "go"}, {"role": "assistant", "content": "Sure"}])
