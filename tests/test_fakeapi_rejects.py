"""Each request shape a 2025-era client sent, through the real SDK, gets the error today's API
returns: status, error type and message (verbatim where the API reference quotes it). And the
shapes that replace them are accepted."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest
from fakeapi import api, client, note, text, thinking, tool_use  # noqa: F401  (fixtures)

SONNET = "claude-sonnet-5-5"
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "edit_file",
        "description": "Edit a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
]
USER = [{"role": "user", "content": "Plan the change."}]
NOT_SUPPORTED = (
    '"thinking.type.{}" is not supported for this model. '
    'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
)
PREFILL = "This model does not support assistant message prefill. The conversation must end with a user message."
FORCED = 'tool_choice: type "tool" and "any" are not supported for this model.'


def send(client: anthropic.Anthropic, betas: list[str] | None = None, **body: Any) -> Any:
    body.setdefault("model", SONNET)
    body.setdefault("max_tokens", 1024)
    body.setdefault("messages", USER)
    if betas:
        return client.beta.messages.create(betas=betas, **body)
    return client.messages.create(**body)


def rejected(client: anthropic.Anthropic, betas: list[str] | None = None, **body: Any) -> anthropic.APIStatusError:
    with pytest.raises(anthropic.APIStatusError) as caught:
        send(client, betas, **body)
    return caught.value


def assert_400(error: anthropic.APIStatusError, message: str, *, exact: bool = True) -> None:
    assert isinstance(error, anthropic.BadRequestError), error
    assert error.status_code == 400 and error.body["type"] == "error"  # type: ignore[index]
    assert error.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    got = error.body["error"]["message"]  # type: ignore[index]
    assert (got == message) if exact else (message in got), got


# -- models ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "model",
    ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4-20250514", "claude-mythos-preview", "claude-sonnet-9-9"],
)
def test_retired_and_unknown_models_are_404(client, api, model):
    error = rejected(client, model=model)
    assert isinstance(error, anthropic.NotFoundError) and error.status_code == 404
    assert error.body == {"type": "error", "error": {"type": "not_found_error", "message": f"model: {model}"}}
    assert api.rejections()[0].status == 404


def test_a_deprecated_model_still_answers(client, api):
    api.reply(text("still here"))
    assert send(client, model="claude-opus-4-5").content[0].text == "still here"


# -- parameters that no longer exist ------------------------------------------------------------
@pytest.mark.parametrize("name, value", [("temperature", 0.2), ("top_p", 0.9), ("top_k", 40), ("temperature", 1.0)])
def test_sampling_parameters_are_400_even_at_defaults(client, name, value):
    error = rejected(client, extra_body={name: value})
    assert_400(error, f"{name}: this parameter is no longer supported", exact=False)


def test_sampling_parameters_are_400_on_count_tokens_too(client):
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.count_tokens(model=SONNET, messages=USER, extra_body={"temperature": 0.0})
    assert_400(caught.value, "temperature: this parameter is no longer supported", exact=False)


def test_output_format_moved_into_output_config(client):
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    error = rejected(client, extra_body={"output_format": {"type": "json_schema", "schema": schema}})
    assert_400(error, "output_format: Extra inputs are not permitted")


# -- thinking ------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", [SONNET, "claude-opus-5-5", "claude-haiku-5-5", "claude-fable-5-2"])
def test_budget_thinking_is_400_on_every_5x_model(client, model):
    error = rejected(client, model=model, max_tokens=8192, thinking={"type": "enabled", "budget_tokens": 2048})
    assert_400(error, NOT_SUPPORTED.format("enabled"))


def test_disabled_on_sonnet_55_points_to_between_tools(client):
    error = rejected(client, thinking={"type": "disabled"})
    assert_400(
        error,
        'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of {"type": "disabled"}.',
        exact=False,
    )


@pytest.mark.parametrize("model", ["claude-opus-5-5", "claude-fable-5-2"])
def test_disabled_is_400_where_thinking_is_always_on(client, model):
    assert_400(rejected(client, model=model, thinking={"type": "disabled"}), NOT_SUPPORTED.format("disabled"))


def test_disabled_on_haiku_55_only_up_to_high_effort(client, api):
    api.reply(text("ok"))
    send(client, model="claude-haiku-5-5", thinking={"type": "disabled"}, output_config={"effort": "high"})
    error = rejected(client, model="claude-haiku-5-5", thinking={"type": "disabled"}, output_config={"effort": "xhigh"})
    assert_400(error, 'thinking.type "disabled" is not supported with effort "xhigh"', exact=False)


def test_between_tools_takes_no_other_field(client):
    for extra in ({"display": "summarized"}, {"budget_tokens": 2048}, {"block_binding": {}}):
        error = rejected(client, thinking={"type": "between_tools", **extra})
        assert_400(error, '"between_tools" takes no other field', exact=False)


@pytest.mark.parametrize("effort", ["xhigh", "max"])
def test_between_tools_is_400_at_xhigh_and_max(client, effort):
    error = rejected(client, thinking={"type": "between_tools"}, output_config={"effort": effort})
    assert_400(error, f'thinking.type "between_tools" is not supported with effort "{effort}"', exact=False)


def test_between_tools_only_where_the_model_lists_it(client, api):
    assert_400(
        rejected(client, model="claude-opus-5-5", thinking={"type": "between_tools"}), NOT_SUPPORTED.format("between_tools")
    )
    api.reply(note("Reading the config first."), tool_use("toolu_1", "read_file", {"path": "a"}))
    reply = send(client, thinking={"type": "between_tools"}, output_config={"effort": "high"}, tools=TOOLS)
    assert [b.type for b in reply.content] == ["thinking", "tool_use"] and reply.content[
        0
    ].thinking == "Reading the config first."


def test_effort_levels_per_model(client):
    assert_400(
        rejected(client, model="claude-opus-4-5", output_config={"effort": "max"}),
        'output_config.effort: "max" is not supported for this model',
    )
    assert_400(
        rejected(client, model="claude-haiku-4-5", output_config={"effort": "low"}),
        "output_config.effort: effort is not supported for this model",
    )


def test_block_binding_needs_its_beta(client, api):
    binding = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    error = rejected(client, extra_body={"thinking": binding})
    assert_400(
        error,
        'thinking.block_binding: this feature requires the beta header "anthropic-beta: thinking-binding-controls-2026-08-01"',
    )
    api.reply(text("ok"))
    send(client, betas=["thinking-binding-controls-2026-08-01"], thinking=binding)


# -- prefill, forced tools, cache breakpoints ----------------------------------------------------------
def test_assistant_prefill_is_400(client):
    messages = [*USER, {"role": "assistant", "content": '{"verdict": '}]
    assert_400(rejected(client, messages=messages), PREFILL)


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "read_file"}])
@pytest.mark.parametrize("model", [SONNET, "claude-opus-5-5", "claude-fable-5-1", "claude-fable-5-2"])
def test_forced_tool_choice_is_400(client, model, choice):
    assert_400(rejected(client, model=model, tools=TOOLS, tool_choice=choice), FORCED)


def test_forced_tool_choice_on_haiku_55_comes_back_without_thinking(client, api):
    api.reply(thinking("hmm"), tool_use("toolu_1", "read_file", {"path": "a"}))
    reply = send(client, model="claude-haiku-5-5", tools=TOOLS, tool_choice={"type": "any"})
    assert [b.type for b in reply.content] == ["tool_use"]


def test_forced_tool_choice_is_checked_on_count_tokens(client):
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.count_tokens(model=SONNET, messages=USER, tools=TOOLS, tool_choice={"type": "any"})
    assert_400(caught.value, FORCED)


def test_more_than_four_cache_breakpoints(client):
    mark = {"type": "ephemeral"}
    tools = [{**tool, "cache_control": mark} for tool in TOOLS]
    system = [{"type": "text", "text": "a", "cache_control": mark}, {"type": "text", "text": "b", "cache_control": mark}]
    messages = [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": mark}]}]
    error = rejected(client, tools=tools, system=system, messages=messages)
    assert_400(error, "A maximum of 4 blocks with cache_control may be provided. Found 5.")
    error = rejected(client, tools=tools, system=system[:1], messages=messages, cache_control=mark)  # automatic caching: a slot
    assert_400(error, "A maximum of 4 blocks with cache_control may be provided. Found 5.")


def test_a_thinking_block_takes_no_cache_breakpoint_but_an_assistant_tool_use_does(client, api):
    mark = {"type": "ephemeral"}
    opus = "claude-opus-5"
    api.reply(thinking("hmm"), tool_use("toolu_1", "read_file", {"path": "a"}))
    first = send(client, model=opus, tools=TOOLS, messages=USER)  # a signed thinking block to echo
    api.reply(text("ok"))
    thought = next(b.model_dump(exclude_none=True) for b in first.content if b.type == "thinking")
    call = next(b.model_dump(exclude_none=True) for b in first.content if b.type == "tool_use")
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}
    marked = [*USER, {"role": "assistant", "content": [{**thought, "cache_control": mark}, call]}, result]
    error = rejected(client, model=opus, tools=TOOLS, messages=marked)
    assert_400(error, "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted")
    anchored = [*USER, {"role": "assistant", "content": [thought, {**call, "cache_control": mark}]}, result]
    assert send(client, model=opus, tools=TOOLS, messages=anchored).stop_reason == "end_turn"


# -- role: "system" messages and tool changes ------------------------------------------------------
def test_system_message_placement(client, api):
    call = {"role": "assistant", "content": [tool_use("toolu_1", "read_file", {"path": "a"})]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}
    notice = {"role": "system", "content": "The user switched to execute mode."}
    cases = [
        ([notice, *USER], 'messages.0: a "system" message cannot be the first message'),
        ([*USER, call, notice, result], 'messages.2: a "system" message must immediately follow a "user" message'),
        (
            [*USER, notice, {"role": "user", "content": "more"}],
            'messages.1: a "system" message must be the last message or be followed by an "assistant" message',
        ),
    ]
    for messages, message in cases:
        assert_400(rejected(client, tools=TOOLS, messages=messages), message)
    api.reply(text("ok"))
    send(client, tools=TOOLS, messages=[*USER, call, result, notice])
    assert_400(
        rejected(client, model="claude-sonnet-5", messages=[*USER, notice]),
        'messages.1.role: "system" messages are not supported for this model; use the top-level `system` parameter',
    )


def removal(name: str) -> dict[str, Any]:
    return {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": name}}]}


def test_tool_changes_need_the_beta_a_model_that_takes_them_and_a_declared_tool(client, api):
    beta = ["mid-conversation-tool-changes-2026-07-01"]
    assert_400(
        rejected(client, model="claude-opus-5", tools=TOOLS, messages=[*USER, removal("edit_file")]),
        'messages.1.content.0: this feature requires the beta header "anthropic-beta: mid-conversation-tool-changes-2026-07-01"',
    )
    for model in (SONNET, "claude-haiku-5-5"):
        assert_400(
            rejected(client, beta, model=model, tools=TOOLS, messages=[*USER, removal("edit_file")]),
            'messages.1.content.0: "tool_removal" is not supported for this model',
        )
    assert_400(
        rejected(client, beta, model="claude-opus-5", tools=TOOLS, messages=[*USER, removal("write_file")]),
        'messages.1.content.0.tool.name: tool "write_file" is not declared in `tools`',
    )
    api.reply(text("ok"))
    deferred = [TOOLS[0], {**TOOLS[1], "defer_loading": True}]
    send(client, beta, model="claude-opus-5", tools=deferred, messages=[*USER, removal("edit_file")])


def test_per_message_effort_needs_its_beta(client):
    message = {"role": "system", "content": [], "output_config": {"effort": "low"}}
    assert_400(
        rejected(client, messages=[*USER, message]),
        "messages.1.output_config: this feature requires the beta header "
        '"anthropic-beta: mid-conversation-output-config-2026-07-01"',
    )


# -- context management -----------------------------------------------------------------------------
CLEAR = {
    "type": "clear_tool_uses_20250919",
    "trigger": {"type": "input_tokens", "value": 100_000},
    "keep": {"type": "tool_uses", "value": 3},
}


def test_context_management_needs_its_beta(client):
    error = rejected(client, extra_body={"context_management": {"edits": [CLEAR]}})
    assert_400(error, 'context_management: this feature requires the beta header "anthropic-beta: context-management-2025-06-27"')


def test_compaction_trigger_must_be_at_least_50000(client):
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 40_000}}
    error = rejected(client, ["compact-2026-01-12"], context_management={"edits": [edit]})
    assert_400(error, "context_management.edits.0.trigger.value: Input should be greater than or equal to 50000")


def test_compaction_on_demand_does_not_combine_with_context_management(client):
    error = rejected(
        client,
        ["compact-2026-09-04", "context-management-2025-06-27"],
        compaction={"type": "summarize"},
        context_management={"edits": [CLEAR]},
    )
    assert_400(error, "compaction: cannot be combined with context_management")


def test_clear_thinking_goes_first(client):
    edits = [CLEAR, {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]
    error = rejected(client, ["context-management-2025-06-27"], context_management={"edits": edits})
    assert_400(error, "clear_thinking_20251015 must be the first strategy", exact=False)


# -- the window ---------------------------------------------------------------------------------
def test_prompt_is_too_long(client, api):
    api.max_input_tokens[SONNET] = 1000
    error = rejected(client, messages=[{"role": "user", "content": "word " * 2000}])
    assert_400(error, "prompt is too long: ", exact=False)
    assert "tokens > 1000 maximum" in error.body["error"]["message"]  # type: ignore[index]


def test_structured_output_is_accepted(client, api):
    schema = {"type": "object", "properties": {"complete": {"type": "boolean"}}, "required": ["complete"]}
    api.reply(text('{"complete": true}'))
    reply = send(client, output_config={"format": {"type": "json_schema", "schema": schema}})
    assert reply.content[0].text == '{"complete": true}'
