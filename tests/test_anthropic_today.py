"""AnthropicModel sends today's request shapes and reads today's replies: effort, structured
output, betas, drop_block, stop reasons with their details, the fallback rule, a bad base URL.
Every request goes through the strict fake, so a shape today's API rejects fails the test."""

from __future__ import annotations

from dataclasses import replace

import pytest
from fakeapi import (  # noqa: F401  (fake_api is a fixture)
    Stream,
    Turn,
    error_event,
    fake_api,
    note,
    refusal,
    text,
    thinking,
    tool_use,
)

from cast.config import Config
from cast.models import base as m
from cast.models.anthropic import AnthropicModel
from cast.models.catalog import ModelSpec

FAST = Config(retries=2, retry_after_cap=0.05, model_timeout=5.0)
TOOLS = (
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
)
GO = ({"role": "user", "content": [{"type": "text", "text": "go"}]},)


def model(name: str = "claude-sonnet-5-5", config: Config = FAST, **kwargs) -> AnthropicModel:
    return AnthropicModel(name, config, backoff_base=0.001, **kwargs)


def run(chat: AnthropicModel, request: m.Request) -> list:
    return list(chat.stream(request))


def test_effort_is_sent_as_output_config(fake_api):
    fake_api.reply(text("ok"))
    run(model(), m.Request("s", TOOLS, GO, effort="xhigh"))
    body = fake_api.requests[0].body
    assert body["output_config"] == {"effort": "xhigh"}
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert "anthropic-beta" not in fake_api.requests[0].headers


def test_an_effort_the_model_lacks_is_lowered_to_one_it_has(fake_api):
    fake_api.reply(text("ok"))
    spec = ModelSpec(
        "claude-opus-4-5",
        "Opus 4.5",
        thinking_types=frozenset({"enabled", "disabled"}),
        efforts=frozenset({"low", "medium", "high"}),
        max_tokens=64_000,
    )
    run(model("claude-opus-4-5", spec=spec), m.Request("s", TOOLS, GO, effort="max"))
    assert fake_api.requests[0].body["output_config"] == {"effort": "high"}
    assert fake_api.requests[0].status == 200


def test_the_catalog_decides_for_a_known_model(fake_api):
    fake_api.reply(text("ok"))
    run(model("claude-haiku-4-5"), m.Request("s", TOOLS, GO, effort="high", max_tokens=100_000))
    body = fake_api.requests[0].body
    assert "thinking" not in body and "output_config" not in body and body["max_tokens"] == 64_000
    assert fake_api.requests[0].status == 200


def test_structured_output_goes_in_output_config_format(fake_api):
    schema = {"type": "object", "properties": {"complete": {"type": "boolean"}}, "required": ["complete"]}
    fake_api.reply(text('{"complete": true}'))
    events = run(model(), m.Request("Judge.", (), GO, output_schema=schema))
    assert fake_api.requests[0].body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert events[-1].content == (text('{"complete": true}'),)
    assert "tool_choice" not in fake_api.requests[0].body


def test_drop_block_asks_for_it_with_its_beta_and_reports_the_drops(fake_api):
    fake_api.reply(thinking("plan"), tool_use("toolu_1", "read_file", {"path": "a"}))
    chat = model()
    first = run(chat, m.Request("s", TOOLS, GO))[-1]
    fake_api.reply(text("ok"))
    aged = (
        {"role": "user", "content": [{"type": "text", "text": "go (aged)"}]},
        {"role": "assistant", "content": list(first.content)},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "[aged]"}]},
    )
    stop = run(chat, m.Request("s", TOOLS, aged, drop_block=True))[-1]
    sent = fake_api.requests[1]
    assert sent.status == 200, sent.error
    assert sent.body["thinking"] == {
        "type": "adaptive",
        "display": "summarized",
        "block_binding": {"prefix_mismatch_behavior": "drop_block"},
    }
    assert sent.headers["anthropic-beta"] == "thinking-binding-controls-2026-08-01"
    assert stop.details["input_transformations"] == [
        {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}
    ]


def test_without_drop_block_a_rewritten_history_is_the_apis_400(fake_api):
    fake_api.reply(thinking("plan"), tool_use("toolu_1", "read_file", {"path": "a"}))
    chat = model()
    first = run(chat, m.Request("s", TOOLS, GO))[-1]
    aged = (
        {"role": "user", "content": [{"type": "text", "text": "go (aged)"}]},
        {"role": "assistant", "content": list(first.content)},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "[aged]"}]},
    )
    with pytest.raises(m.ModelError, match="Invalid `signature` in `thinking` block") as caught:
        run(chat, m.Request("s", TOOLS, aged))
    assert not caught.value.retryable and len(fake_api.requests) == 2


def test_context_management_is_sent_with_its_beta_and_edits_come_back(fake_api):
    edits = {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": 50},
                "keep": {"type": "tool_uses", "value": 1},
            }
        ]
    }
    history = GO
    chat = model()
    for n in range(3):
        fake_api.reply(tool_use(f"toolu_{n}", "read_file", {"path": f"f{n}.py"}))
        stop = run(chat, m.Request("s", TOOLS, history, context_management=edits))[-1]
        history += (
            {"role": "assistant", "content": list(stop.content)},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "x" * 800}]},
        )
    fake_api.reply(text("done"))
    stop = run(chat, m.Request("s", TOOLS, history, context_management=edits))[-1]
    assert fake_api.requests[-1].headers["anthropic-beta"] == "context-management-2025-06-27"
    assert fake_api.requests[-1].body["context_management"] == edits
    assert stop.details["applied_edits"][0]["type"] == "clear_tool_uses_20250919"
    assert stop.details["applied_edits"][0]["cleared_tool_uses"] == 2


def test_tool_changes_in_a_system_message_get_their_beta(fake_api):
    fake_api.reply(text("ok"))
    messages = GO + (
        {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "read_file"}}]},
    )
    run(model("claude-opus-5"), m.Request("s", TOOLS, messages))
    assert fake_api.requests[0].headers["anthropic-beta"] == "mid-conversation-tool-changes-2026-07-01"
    assert fake_api.requests[0].status == 200


# -- stop reasons --------------------------------------------------------------------------------
def test_a_refusal_is_a_stop_with_its_category_and_is_not_retried(fake_api):
    fake_api.reply(text("I can't help with that."), stop_reason="refusal", stop_details=refusal("cyber", "Exploit code."))
    stop = run(model(), m.Request("s", TOOLS, GO))[-1]
    assert stop.reason == "refusal" and stop.refused
    assert stop.details["category"] == "cyber" and stop.details["explanation"] == "Exploit code."
    assert len(fake_api.requests) == 1


@pytest.mark.parametrize("reason", ["pause_turn", "model_context_window_exceeded", "max_tokens"])
def test_other_stop_reasons_reach_the_loop(fake_api, reason):
    fake_api.reply(note("Working."), text("partial"), stop_reason=reason)
    stop = run(model(), m.Request("s", TOOLS, GO))[-1]
    assert stop.reason == reason and [b["type"] for b in stop.content] == ["thinking", "text"]


def test_a_paused_turn_continues_when_sent_back_as_is(fake_api):
    fake_api.reply(note("Searching."), stop_reason="pause_turn")
    chat = model()
    paused = run(chat, m.Request("s", TOOLS, GO))[-1]
    fake_api.reply(text("found it"))
    stop = run(chat, m.Request("s", TOOLS, GO + ({"role": "assistant", "content": list(paused.content)},)))[-1]
    assert stop.content == (text("found it"),) and fake_api.requests[1].status == 200


def test_a_midstream_error_on_a_rendered_turn_is_retried(fake_api):
    fake_api.push(
        Stream(turn=Turn([text("half a reply that never ends")]), cut_after=5, then=error_event("overloaded_error", "Overloaded"))
    )
    fake_api.reply(text("whole"))
    events = run(model(), m.Request("s", TOOLS, GO))
    assert any(isinstance(e, m.Retrying) and e.partial for e in events) and events[-1].content == (text("whole"),)


# -- the fallback model ----------------------------------------------------------------------------
def overloaded(api, times: int) -> None:
    for _ in range(times):
        api.fail(529, "overloaded_error", "Overloaded")


def history_with_thinking(api) -> tuple:
    api.reply(thinking("plan"), tool_use("toolu_1", "read_file", {"path": "a"}))
    first = run(model(), m.Request("s", TOOLS, GO))[-1]
    return GO + (
        {"role": "assistant", "content": list(first.content)},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]},
    )


def test_fallback_from_sonnet_55_to_opus_55_keeps_the_thinking(fake_api):
    messages = history_with_thinking(fake_api)
    overloaded(fake_api, 2)
    fake_api.reply(text("from opus"))
    events = run(model(config=replace(FAST, fallback_model="claude-opus-5-5")), m.Request("s", TOOLS, messages))
    assert events[-1].content == (text("from opus"),)
    assert fake_api.requests[-1].body["model"] == "claude-opus-5-5" and fake_api.requests[-1].status == 200


def test_no_fallback_to_a_model_that_cannot_read_the_thinking(fake_api):
    messages = history_with_thinking(fake_api)
    overloaded(fake_api, 2)
    with pytest.raises(
        m.ModelError, match="not switching to the fallback model claude-haiku-5-5: it cannot read claude-sonnet-5-5's thinking"
    ):
        run(model(config=replace(FAST, fallback_model="claude-haiku-5-5")), m.Request("s", TOOLS, messages))
    assert [r.body["model"] for r in fake_api.requests[1:]] == ["claude-sonnet-5-5"] * 2


def test_fallback_with_drop_block_or_without_thinking_is_fine(fake_api):
    messages = history_with_thinking(fake_api)
    overloaded(fake_api, 2)
    fake_api.reply(text("from haiku"))
    chat = model(config=replace(FAST, fallback_model="claude-haiku-5-5"))
    assert run(chat, m.Request("s", TOOLS, messages, drop_block=True))[-1].content == (text("from haiku"),)
    overloaded(fake_api, 2)
    fake_api.reply(text("fresh"))
    assert run(chat, m.Request("s", TOOLS, GO))[-1].content == (text("fresh"),)


# -- configuration -----------------------------------------------------------------------------------
@pytest.mark.parametrize("url", ["htp:/x", "api.anthropic.com", "http://", "https://host:notaport"])
def test_a_malformed_base_url_is_a_configuration_error(fake_api, monkeypatch, url):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    with pytest.raises(m.ModelError) as caught:
        run(model(), m.Request("s", TOOLS, GO))
    assert caught.value.exit_code == 2 and "ANTHROPIC_BASE_URL" in str(caught.value) and url in str(caught.value)
    assert fake_api.requests == []
