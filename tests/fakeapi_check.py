"""The fake Messages API's request validation: each rule is a 400 (or 404) the real API returns
today, with its message verbatim where the API reference quotes it. One function per rule, run in
the order the API reports them; the first failure is the answer.

Messages the reference quotes verbatim: `thinking.type` not supported, `disabled` on Sonnet 5.5,
forced `tool_choice`, assistant prefill, the invalid thinking signature, `prompt is too long`,
`not_found_error` `model: <id>`. The others are worded for this fake and say what is wrong.

Where each rule comes from (../shared/reference/anthropic-api-2026.md cites the same pages), named
on each check below:
[migration] https://platform.claude.com/docs/en/api/migration-2026-10-21 (sampling parameters, documents
            in assistant turns, citations on user text: 400s under 2026-10-21)
[models]    https://platform.claude.com/docs/en/about-claude/model-deprecations (retired ids: 404
            `not_found_error`) and https://platform.claude.com/docs/en/api/messages (`max_tokens`)
[thinking]  https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide and
            https://platform.claude.com/docs/en/build-with-claude/thinking (types, display, between_tools)
[effort]    https://platform.claude.com/docs/en/build-with-claude/effort and .../effort-per-message
[errors]    https://platform.claude.com/docs/en/api/errors (prefill, the error envelope)
[forced]    reference §4 (forced tool_choice), https://dev.to/sascha-ms/claude-fable-52-migration-for-typescript-backends-44fo
[caching]   https://platform.claude.com/docs/en/build-with-claude/prompt-caching (4 breakpoints, ttl order)
[toolsearch] https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool (no
            `cache_control` on a `defer_loading` tool)
[sysmsg]    https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
[context]   https://platform.claude.com/docs/en/build-with-claude/context-editing and .../compaction
[structured] https://platform.claude.com/docs/en/build-with-claude/structured-outputs
"""

from __future__ import annotations

from typing import Any

from fakeapi_models import EFFORTS, FakeModel, find
from fakeapi_ttl import ttl_error
from fakeapi_wire import blocks_of

BETA_TOOL_CHANGES = "mid-conversation-tool-changes-2026-07-01"
BETA_OUTPUT_CONFIG = "mid-conversation-output-config-2026-07-01"
BETA_CLEAR_AT = "mid-conversation-system-clear-at-2026-08-21"
BETA_BINDING = "thinking-binding-controls-2026-08-01"
BETA_DISPLAY_UPDATES = "thinking-display-updates-2026-08-18"
BETA_CONTEXT = "context-management-2025-06-27"
BETA_COMPACT = "compact-2026-01-12"
BETA_COMPACT_NOW = "compact-2026-09-04"

SAMPLING = ("temperature", "top_p", "top_k")
TOP_LEVEL = frozenset(
    {
        "model",
        "messages",
        "max_tokens",
        "system",
        "tools",
        "tool_choice",
        "thinking",
        "output_config",
        "stream",
        "metadata",
        "stop_sequences",
        "cache_control",
        "context_management",
        "compaction",
        "container",
        "diagnostics",
        "service_tier",
        "inference_geo",
        "speed",
        "user_profile_id",
        "workspace_id",
        "mcp_servers",
    }
)
COUNT_TOKENS_ONLY_ABSENT = frozenset({"max_tokens", "stream", "metadata", "stop_sequences", "service_tier"})


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"type": "error", "error": {"type": self.kind, "message": self.message}}


def bad(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def not_supported(kind: str) -> ApiError:
    return bad(
        f'"thinking.type.{kind}" is not supported for this model. '
        'Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.'
    )


def needs_beta(field: str, beta: str, betas: set[str]) -> None:
    if beta not in betas:
        raise bad(f'{field}: this feature requires the beta header "anthropic-beta: {beta}"')


def validate(
    body: dict[str, Any],
    betas: set[str],
    *,
    count_tokens: bool = False,
    paused: set[str] | None = None,
    extra: dict[str, FakeModel] | None = None,
) -> FakeModel:
    """The model the request names, if the request is one today's API accepts; else ApiError.
    `extra`: models a test added beyond the documented line-up."""
    model = model_of(body, extra or {})
    check_fields(body, count_tokens)
    if not count_tokens:
        check_max_tokens(body, model)
    effort = check_output_config(body, model, betas)
    check_thinking(body, model, betas, effort)
    check_tool_choice(body, model)
    check_tools(body)
    check_messages(body, model, betas, effort, paused or set())
    check_cache_breakpoints(body)
    check_context_management(body, model, betas)
    return model


# Source: [models]
def model_of(body: dict[str, Any], extra: dict[str, FakeModel]) -> FakeModel:
    name = body.get("model")
    if not isinstance(name, str) or not name:
        raise bad("model: Field required")
    model = extra.get(name) or find(name)
    if model is None or model.lifecycle == "retired":
        raise ApiError(404, "not_found_error", f"model: {name}")
    return model


# Source: [migration]
def check_fields(body: dict[str, Any], count_tokens: bool) -> None:
    for key in SAMPLING:
        if key in body:
            raise bad(f"{key}: this parameter is no longer supported (API version 2026-10-21); remove it")
    for key in body:
        if key not in TOP_LEVEL or (count_tokens and key in COUNT_TOKENS_ONLY_ABSENT):
            raise bad(f"{key}: Extra inputs are not permitted")
    if not isinstance(body.get("messages"), list) or not body["messages"]:
        raise bad("messages: at least one message is required")


# Source: [models]: max_tokens above the model's max output is a 400
def check_max_tokens(body: dict[str, Any], model: FakeModel) -> None:
    value = body.get("max_tokens")
    if not isinstance(value, int) or value < 0:
        raise bad("max_tokens: Field required")
    if value > model.max_tokens:
        raise bad(
            f"max_tokens: {value} > {model.max_tokens}, which is the maximum allowed number of output tokens for {model.id}"
        )


# Source: [effort], [structured]
def check_output_config(body: dict[str, Any], model: FakeModel, betas: set[str]) -> str:
    """The effort in effect: the one sent, or '' for the model's default."""
    config = body.get("output_config")
    if config is None:
        return ""
    if not isinstance(config, dict):
        raise bad("output_config: Input should be a valid dictionary")
    for key in config:
        if key not in ("effort", "format"):
            raise bad(f"output_config.{key}: Extra inputs are not permitted")
    effort = config.get("effort") or ""
    if effort:
        check_effort("output_config.effort", effort, model)
    fmt = config.get("format")
    if fmt is not None:
        if not model.structured_outputs:
            raise bad("output_config.format: structured outputs are not supported for this model")
        if not isinstance(fmt, dict) or fmt.get("type") != "json_schema" or not isinstance(fmt.get("schema"), dict):
            raise bad('output_config.format: expected {"type": "json_schema", "schema": {...}}')
    return effort


# Source: [effort]: the levels each model takes (fakeapi_models)
def check_effort(field: str, effort: Any, model: FakeModel) -> None:
    if effort not in EFFORTS:
        raise bad(f"{field}: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")
    if not model.efforts:
        raise bad(f"{field}: effort is not supported for this model")
    if effort not in model.efforts:
        raise bad(f'{field}: "{effort}" is not supported for this model')


def _above(effort: str, limit: str) -> bool:
    return bool(limit) and bool(effort) and EFFORTS.index(effort) > EFFORTS.index(limit)


# Source: [thinking]
def check_thinking(body: dict[str, Any], model: FakeModel, betas: set[str], effort: str) -> None:
    thinking = body.get("thinking")
    if thinking is None:
        return
    if not isinstance(thinking, dict) or "type" not in thinking:
        raise bad("thinking.type: Field required")
    kind = thinking["type"]
    extra = sorted(set(thinking) - {"type"})
    if kind == "enabled":
        if kind not in model.thinking:
            raise not_supported(kind)
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            raise bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if isinstance(body.get("max_tokens"), int) and budget >= body["max_tokens"]:
            raise bad("`max_tokens` must be greater than `thinking.budget_tokens`")
    elif kind == "disabled":
        if model.id == "claude-sonnet-5-5":
            raise bad(
                'To turn thinking off on this model, send "thinking": {"type": "between_tools"} instead of '
                '{"type": "disabled"}. Progress updates between tool calls then come back as thinking blocks.'
            )
        if kind not in model.thinking:
            raise not_supported(kind)
        if _above(effort, model.thinking_off_max_effort):
            raise bad(
                f'thinking.type "disabled" is not supported with effort "{effort}" on this model; '
                f'use effort "{model.thinking_off_max_effort}" or lower, or thinking.type "adaptive"'
            )
    elif kind == "between_tools":
        if kind not in model.thinking:
            raise not_supported(kind)
        if extra:
            raise bad(f'thinking.between_tools.{extra[0]}: Extra inputs are not permitted; "between_tools" takes no other field')
        if _above(effort or "high", model.thinking_off_max_effort):
            raise bad(
                f'thinking.type "between_tools" is not supported with effort "{effort}"; '
                f'use effort "{model.thinking_off_max_effort}" or lower, or thinking.type "adaptive"'
            )
    elif kind == "adaptive":
        if kind not in model.thinking:
            raise bad(
                '"thinking.type.adaptive" is not supported for this model. Use "thinking.type.enabled" with "budget_tokens".'
            )
        for key in extra:
            if key not in ("display", "block_binding"):
                raise bad(f"thinking.adaptive.{key}: Extra inputs are not permitted")
        display = thinking.get("display")
        if display not in (None, "summarized", "omitted", "updates"):
            raise bad("thinking.adaptive.display: Input should be 'summarized', 'omitted' or 'updates'")
        if display == "updates":
            needs_beta("thinking.display", BETA_DISPLAY_UPDATES, betas)
        binding = thinking.get("block_binding")
        if binding is not None:
            needs_beta("thinking.block_binding", BETA_BINDING, betas)
            behavior = binding.get("prefix_mismatch_behavior") if isinstance(binding, dict) else "?"
            if behavior not in (None, "error", "drop_block"):
                raise bad("thinking.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'")
    else:
        raise bad("thinking.type: Input should be 'enabled', 'disabled', 'between_tools' or 'adaptive'")


# Source: [forced]
def check_tool_choice(body: dict[str, Any], model: FakeModel) -> None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool") and not model.forced_tool_choice:
        raise bad('tool_choice: type "tool" and "any" are not supported for this model.')


# Source: [toolsearch]; unique names: [models] (the Messages API reference)
def check_tools(body: dict[str, Any]) -> None:
    names: set[str] = set()
    for i, tool in enumerate(body.get("tools") or []):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not name:
            raise bad(f"tools.{i}.name: Field required")
        if name in names:
            raise bad(f"tools: Tool names must be unique. Duplicate: {name}")
        names.add(name)
        # The tool search page (since 2026-06-30): "A tool with `defer_loading: true` can't also
        # carry `cache_control`: the API returns a 400. Put the cache breakpoint on a non-deferred tool."
        # https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
        if tool.get("defer_loading") and "cache_control" in tool:
            raise bad(
                f"tools.{i}: a tool with `defer_loading: true` can't also carry `cache_control`; "
                "put the cache breakpoint on a non-deferred tool"
            )


# Source: [caching]
def check_cache_breakpoints(body: dict[str, Any]) -> None:
    found = _count_marks(body.get("tools")) + _count_marks(body.get("system")) + _count_marks(body.get("messages"))
    if isinstance(body.get("cache_control"), dict):
        found += 1  # automatic caching takes one of the four slots
    if found > 4:
        raise bad(f"A maximum of 4 blocks with cache_control may be provided. Found {found}.")
    problem = ttl_error(body)
    if problem:
        raise bad(problem)
    # [caching]: "Thinking blocks cannot be cached directly with cache_control"; the SDK's
    # ThinkingBlockParam and RedactedThinkingBlockParam have no such field (types/thinking_block_param.py).
    # A breakpoint goes on any other block, a tool_use in an assistant turn included.
    for i, message in enumerate(body.get("messages") or []):
        for j, block in enumerate(blocks_of(message.get("content")) if isinstance(message, dict) else []):
            if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking") and "cache_control" in block:
                raise bad(f"messages.{i}.content.{j}.{block['type']}.cache_control: Extra inputs are not permitted")


def _count_marks(value: Any) -> int:
    if isinstance(value, dict):
        return int("cache_control" in value) + sum(_count_marks(v) for k, v in value.items() if k != "cache_control")
    if isinstance(value, list):
        return sum(_count_marks(v) for v in value)
    return 0


# -- messages ----------------------------------------------------------------------------------
# Source: [migration] (documents, citations), [errors] (prefill), [sysmsg] (tool changes in system messages only)
def check_messages(body: dict[str, Any], model: FakeModel, betas: set[str], effort: str, paused: set[str]) -> None:
    from fakeapi_wire import canonical

    messages = body["messages"]
    declared = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    between = (body.get("thinking") or {}).get("type") == "between_tools"
    last = len(messages) - 1
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant", "system"):
            raise bad(f"messages.{i}.role: Input should be 'user', 'assistant' or 'system'")
        if role == "system":
            check_system_message(messages, i, model, betas, declared, effort, between)
    for i, message in enumerate(messages):
        role = message.get("role")
        content = blocks_of(message.get("content"))
        if role == "system":
            continue
        if not content and not (role == "assistant" and i == last):
            raise bad(f"messages.{i}: all messages must have non-empty content except for the optional final assistant message")
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if role == "assistant" and kind == "document":
                raise bad(f"messages.{i}.content.{j}: document blocks are not allowed in assistant messages")
            if role == "user" and kind == "text" and block.get("citations"):
                raise bad(f"messages.{i}.content.{j}.citations: citations are not allowed on user text")
            if kind in ("tool_addition", "tool_removal"):
                raise bad(f'messages.{i}.content.{j}: "{kind}" blocks are only allowed in "system" messages')
        check_tool_pairs(messages, i)
    if (
        messages[last].get("role") == "assistant"
        and not model.prefill
        and canonical(blocks_of(messages[last].get("content"))) not in paused
    ):
        raise bad("This model does not support assistant message prefill. The conversation must end with a user message.")


def _neighbour(messages: list[Any], i: int, step: int) -> tuple[int, Any]:
    """The nearest non-system message from i in direction `step` (consecutive system messages
    are one section)."""
    k = i + step
    while 0 <= k < len(messages) and messages[k].get("role") == "system":
        k += step
    return k, (messages[k] if 0 <= k < len(messages) else None)


# Source: [sysmsg]; per-message effort: [effort] (effort-per-message)
def check_system_message(
    messages: list[Any], i: int, model: FakeModel, betas: set[str], declared: set[Any], effort: str, between: bool
) -> None:
    message = messages[i]
    if not model.system_messages:
        raise bad(f'messages.{i}.role: "system" messages are not supported for this model; use the top-level `system` parameter')
    if i == 0:
        raise bad('messages.0: a "system" message cannot be the first message')
    _, before = _neighbour(messages, i, -1)
    if before is None or before.get("role") != "user":
        raise bad(f'messages.{i}: a "system" message must immediately follow a "user" message')
    _, after = _neighbour(messages, i, 1)
    if after is not None and after.get("role") != "assistant":
        raise bad(f'messages.{i}: a "system" message must be the last message or be followed by an "assistant" message')
    for key in message:
        if key not in ("role", "content", "output_config", "clear_at"):
            raise bad(f"messages.{i}.{key}: Extra inputs are not permitted")
    if "clear_at" in message:
        needs_beta(f"messages.{i}.clear_at", BETA_CLEAR_AT, betas)
    config = message.get("output_config")
    content = blocks_of(message.get("content"))
    if config is not None:
        needs_beta(f"messages.{i}.output_config", BETA_OUTPUT_CONFIG, betas)
        if not isinstance(config, dict) or set(config) - {"effort"}:
            raise bad(f"messages.{i}.output_config: only `effort` may be set per message; `format` is top-level only")
        if config.get("effort"):
            check_effort(f"messages.{i}.output_config.effort", config["effort"], model)
            if between and config["effort"] != (effort or "high"):
                raise bad(
                    f'messages.{i}.output_config.effort: with thinking.type "between_tools" a per-message effort '
                    "must match the effort in effect"
                )
    elif not content:
        raise bad(f"messages.{i}: a system message needs content or output_config")
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            continue
        if kind not in ("tool_addition", "tool_removal"):
            raise bad(f"messages.{i}.content.{j}.type: system messages take text, tool_addition and tool_removal blocks")
        needs_beta(f"messages.{i}.content.{j}", BETA_TOOL_CHANGES, betas)
        if not model.tool_changes:
            raise bad(f'messages.{i}.content.{j}: "{kind}" is not supported for this model')
        tool = block.get("tool") or {}
        if tool.get("type") != "tool_reference" or not tool.get("name"):
            raise bad(f'messages.{i}.content.{j}.tool: expected {{"type": "tool_reference", "name": ...}}')
        if tool["name"] not in declared:
            raise bad(f'messages.{i}.content.{j}.tool.name: tool "{tool["name"]}" is not declared in `tools`')


# Source: the Messages API reference's tool_use / tool_result pairing (https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use)
def check_tool_pairs(messages: list[Any], i: int) -> None:
    message = messages[i]
    if message.get("role") == "assistant":
        uses = [b.get("id") for b in blocks_of(message.get("content")) if isinstance(b, dict) and b.get("type") == "tool_use"]
        if not uses or i == len(messages) - 1:
            return
        after = messages[i + 1]
        results = {
            b.get("tool_use_id")
            for b in blocks_of(after.get("content"))
            if isinstance(b, dict) and b.get("type") == "tool_result"
        }
        missing = [u for u in uses if u not in results] if after.get("role") == "user" else uses
        if missing:
            raise bad(
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
            )
    elif message.get("role") == "user":
        before = messages[i - 1] if i > 0 else {}
        uses = (
            {b.get("id") for b in blocks_of(before.get("content")) if isinstance(b, dict) and b.get("type") == "tool_use"}
            if before.get("role") == "assistant"
            else set()
        )
        for j, block in enumerate(blocks_of(message.get("content"))):
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") not in uses:
                raise bad(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )


# -- context management ------------------------------------------------------------------------
# Source: [context]
def check_context_management(body: dict[str, Any], model: FakeModel, betas: set[str]) -> None:
    if "compaction" in body:
        needs_beta("compaction", BETA_COMPACT_NOW, betas)
        if "context_management" in body:
            raise bad("compaction: cannot be combined with context_management")
    config = body.get("context_management")
    if config is None:
        return
    if BETA_CONTEXT not in betas and BETA_COMPACT not in betas:
        needs_beta("context_management", BETA_CONTEXT, betas)
    if not model.context_management:
        raise bad("context_management: not supported for this model")
    edits = config.get("edits") if isinstance(config, dict) else None
    if not isinstance(edits, list):
        raise bad("context_management.edits: Field required")
    seen: set[str] = set()
    for n, edit in enumerate(edits):
        kind = edit.get("type") if isinstance(edit, dict) else None
        where = f"context_management.edits.{n}"
        if kind in seen:
            raise bad(f"{where}: each strategy may appear once")
        seen.add(str(kind))
        if kind == "clear_tool_uses_20250919":
            needs_beta(where, BETA_CONTEXT, betas)
            trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100_000}
            if trigger.get("type") not in ("input_tokens", "tool_uses") or not isinstance(trigger.get("value"), int):
                raise bad(f"{where}.trigger: expected {{'type': 'input_tokens' | 'tool_uses', 'value': int}}")
            keep = edit.get("keep")
            if keep is not None and (keep.get("type") != "tool_uses" or not isinstance(keep.get("value"), int)):
                raise bad(f"{where}.keep: expected {{'type': 'tool_uses', 'value': int}}")
            least = edit.get("clear_at_least")
            if least is not None and least.get("type") != "input_tokens":
                raise bad(f"{where}.clear_at_least: expected {{'type': 'input_tokens', 'value': int}}")
        elif kind == "clear_thinking_20251015":
            needs_beta(where, BETA_CONTEXT, betas)
            if n != 0:
                raise bad(f"{where}: clear_thinking_20251015 must be the first strategy in context_management.edits")
            if (body.get("thinking") or {}).get("type") in ("disabled", "between_tools"):
                raise bad(f"{where}: clear_thinking_20251015 requires thinking to be on")
        elif kind == "compact_20260112":
            needs_beta(where, BETA_COMPACT, betas)
            trigger = edit.get("trigger") or {"type": "input_tokens", "value": 150_000}
            if trigger.get("type") != "input_tokens" or not isinstance(trigger.get("value"), int):
                raise bad(f"{where}.trigger: expected {{'type': 'input_tokens', 'value': int}}")
            if trigger["value"] < 50_000:
                raise bad(f"{where}.trigger.value: Input should be greater than or equal to 50000")
        else:
            raise bad(
                f"{where}.type: Input should be 'clear_tool_uses_20250919', 'clear_thinking_20251015' or 'compact_20260112'"
            )
