"""The body of one Messages API request, shaped for the model it goes to.

Today's API rejects what a 2025 client sent (temperature, `thinking.type: "enabled"` with a
budget on the 5.x models, assistant prefill, forced `tool_choice`), and which `thinking` and
`effort` values a model takes is a per-model fact. This module reads those facts from the
model's spec (cast's catalog, refreshed from the Models API) and never from the model id.

Thinking: `{"type": "adaptive", "display": "summarized"}` wherever the model takes adaptive
thinking. Why that and not `between_tools` (Sonnet 5.5 only): it is accepted by every 5.x model,
so a fallback or a `/model` switch sends the same shape; it is the only type that takes
`block_binding` (`drop_block`), which a rewritten history needs; thinking stays on (no quality
cost), and the progress notes the 5.5 models write between tool calls come back filled instead of
empty. A model without adaptive thinking (Haiku 4.5, Opus 4.5) gets no `thinking` field: off.
`budget_tokens` is never sent.

Effort: `output_config.effort` from the request, lowered to the nearest level the model takes
(none if it takes none). Structured output: `output_config.format` with the request's schema.

Betas: exactly the ones the body uses, found by looking at it (tool changes and per-message
output_config in `role: "system"` messages, `block_binding`, `context_management` and its
compaction edit), so a feature never goes without its header and no header goes without need.

Notices: a model that refuses `role: "system"` inside `messages` (spec `system_messages`) gets
cast's notices as labelled user text instead (`as_user_notices`).
"""

from __future__ import annotations

from typing import Any

from cast.models.base import Request
from cast.models.catalog import ModelSpec, builtin

EFFORTS = ("low", "medium", "high", "xhigh", "max")
BETA_TOOL_CHANGES = "mid-conversation-tool-changes-2026-07-01"
BETA_OUTPUT_CONFIG = "mid-conversation-output-config-2026-07-01"
BETA_CLEAR_AT = "mid-conversation-system-clear-at-2026-08-21"
BETA_BINDING = "thinking-binding-controls-2026-08-01"
BETA_CONTEXT = "context-management-2025-06-27"
BETA_COMPACT = "compact-2026-01-12"
BETA_COMPACT_NOW = "compact-2026-09-04"


def spec_for(model: str) -> ModelSpec | None:
    """cast's catalog entry for `model`, or None for an id cast doesn't know (then the request
    takes the shape every current model accepts)."""
    return builtin(model)


def thinking_types(spec: ModelSpec | None) -> frozenset[str]:
    return spec.thinking_types if spec is not None else frozenset({"adaptive"})


def effort_for(spec: ModelSpec | None, wanted: str | None) -> str:
    """The effort to send: `wanted`, or the nearest lower level the model takes ('' for none)."""
    if not wanted or wanted not in EFFORTS:
        return ""
    return spec.effort_or_default(wanted) if spec is not None else wanted


def thinking_for(spec: ModelSpec | None, drop_block: bool) -> dict[str, Any] | None:
    if "adaptive" not in thinking_types(spec):
        return None
    config: dict[str, Any] = {"type": "adaptive", "display": "summarized"}
    if drop_block:
        config["block_binding"] = {"prefix_mismatch_behavior": "drop_block"}
    return config


def shape(request: Request, spec: ModelSpec | None, params: dict[str, Any]) -> dict[str, Any]:
    """Adds thinking, output_config and the betas to `params` (which already holds max_tokens,
    tools, system and messages with their cache breakpoints)."""
    thinking = thinking_for(spec, request.drop_block)
    if thinking is not None:
        params["thinking"] = thinking
    output: dict[str, Any] = {}
    effort = effort_for(spec, request.effort)
    if effort:
        output["effort"] = effort
    if request.output_schema is not None:
        output["format"] = {"type": "json_schema", "schema": request.output_schema}
    if output:
        params["output_config"] = output
    if request.context_management is not None:
        params["context_management"] = request.context_management
    params["max_tokens"] = output_limit(spec, effort, params["max_tokens"])
    return params


def output_limit(spec: ModelSpec | None, effort: str, configured: int) -> int:
    """`max_tokens`: the configured value (0: 64k at xhigh/max, 32k otherwise, the effort
    page's advice now that thinking counts toward it), never above the model's max output."""
    if spec is not None:
        return spec.output_limit(effort, configured)
    return configured if configured > 0 else (64_000 if effort in ("xhigh", "max") else 32_000)


def betas(params: dict[str, Any]) -> list[str]:
    """The `anthropic-beta` values the body needs, in a stable order."""
    found: set[str] = set()
    for message in params.get("messages") or []:
        if message.get("role") != "system":
            continue
        if message.get("output_config") is not None:
            found.add(BETA_OUTPUT_CONFIG)
        if "clear_at" in message:
            found.add(BETA_CLEAR_AT)
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_addition", "tool_removal") for b in content
        ):
            found.add(BETA_TOOL_CHANGES)
    thinking = params.get("thinking") or {}
    if thinking.get("block_binding") is not None:
        found.add(BETA_BINDING)
    edits = (params.get("context_management") or {}).get("edits") or []
    for edit in edits:
        kind = edit.get("type") if isinstance(edit, dict) else ""
        found.add(BETA_COMPACT if kind == "compact_20260112" else BETA_CONTEXT)
    if "compaction" in params:
        found.add(BETA_COMPACT_NOW)
    return sorted(found)


def reads_thinking_of(fallback_spec: ModelSpec | None, model: str) -> bool:
    """Whether the fallback model can read `model`'s thinking blocks (reference: only Sonnet 5.5
    to Opus 5.5 keeps reasoning among the current models)."""
    if fallback_spec is None:
        return False
    return model in fallback_spec.reads_thinking_of or fallback_spec.id == model


def has_thinking(messages: Any) -> bool:
    return any(
        isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")
        for message in messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
        for block in message["content"]
    )


NOTICE_LABEL = "[cast notice] "


def as_user_notices(messages: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """For a model that refuses `role: "system"` inside messages (the 4.x line, Sonnet 5): each
    harness notice goes as a user turn of labelled text instead (the API merges it with the user
    turn it follows). The same messages always become the same turns, so what was sent stays a
    prefix of what is sent next."""
    out = []
    for message in messages:
        if message.get("role") != "system":
            out.append(message)
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text" and b.get("text")]
        if texts:
            out.append({"role": "user", "content": [{"type": "text", "text": NOTICE_LABEL + text} for text in texts]})
    return tuple(out)
