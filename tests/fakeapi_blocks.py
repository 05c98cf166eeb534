"""Content blocks and server-sent events of the fake Messages API's replies: what a test scripts
(`text`, `thinking`, `note`, `tool_use`...), and how a scripted turn is shown for one request's
thinking settings (`adapt`) and streamed (`message_events`).

Sources: the streaming format https://platform.claude.com/docs/en/build-with-claude/streaming (event
names, `content_block_*` deltas, the first empty `input_json_delta`); thinking display and progress
notes between tool calls https://platform.claude.com/docs/en/build-with-claude/thinking and the
Sonnet 5.5 migration guide `#text-between-tool-calls` (empty under `omitted`, filled under
`summarized`, `updates`, `between_tools`; text when thinking is off); a forced tool call comes back
without thinking on Haiku 5.5 (its migration guide, reference §4)."""

from __future__ import annotations

import json
from typing import Any

from fakeapi_ttl import delta_usage

Event = tuple[str, dict[str, Any]]
DEFAULT_MODEL = "claude-sonnet-5-5"


# -- content blocks, as the complete block the model "writes" ---------------------------------
def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str, signature: str = "") -> dict[str, Any]:
    """Reasoning. A scripted reply signs it afresh (`signature` is kept only in verbatim streams)."""
    return {"type": "thinking", "thinking": value, "signature": signature}


def note(value: str) -> dict[str, Any]:
    """A progress update between tool calls: a thinking block on the 5.5 models."""
    return {"type": "thinking", "thinking": value, "signature": "", "_note": True}


def redacted(data: str = "") -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


def tool_use(id: str, name: str, input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def refusal(category: str | None = "cyber", explanation: str | None = None) -> dict[str, Any]:
    return {"type": "refusal", "category": category, "explanation": explanation}


def error_event(error_type: str, message: str) -> Event:
    return ("error", {"type": "error", "error": {"type": error_type, "message": message}})


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _chunks(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def message_events(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    output_tokens: int = 17,
    chunk: int = 4,
    model: str = DEFAULT_MODEL,
    message_id: str = "msg_fake",
    stop_details: dict[str, Any] | None = None,
    extra_start: dict[str, Any] | None = None,
    extra_delta: dict[str, Any] | None = None,
) -> list[Event]:
    """The SSE events of one reply made of `blocks`, each streamed in chunks of `chunk` chars."""
    start_usage: dict[str, Any] = {
        "input_tokens": 100,
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    start_usage.update(usage or {})
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
        **(extra_start or {}),
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": message}), ("ping", {"type": "ping"})]
    for index, block in enumerate(blocks):
        kind = block["type"]
        deltas: list[dict[str, Any]]
        if kind == "text":
            start, deltas = (
                {"type": "text", "text": ""},
                [{"type": "text_delta", "text": c} for c in _chunks(block["text"], chunk)],
            )
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"], chunk) if c]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": ""}]  # the API's first chunk is empty
            deltas += [{"type": "input_json_delta", "partial_json": c} for c in _chunks(json.dumps(block["input"]), chunk)]
        else:  # redacted_thinking and anything else: complete in its start event
            start, deltas = block, []
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    end_usage = delta_usage(start_usage)
    end_usage["output_tokens"] = output_tokens
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None, "stop_details": stop_details},
                "usage": end_usage,
                **(extra_delta or {}),
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def adapt(blocks: list[dict[str, Any]], body: dict[str, Any], model: Any) -> list[dict[str, Any]]:
    """The scripted blocks as this request's thinking settings show them."""
    config = body.get("thinking") or {}
    kind = config.get("type") or ("adaptive" if "adaptive" in model.thinking else "off")
    if (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
        kind = "off"  # a forced tool call comes back without thinking
    display = config.get("display") or model.display_default
    out: list[dict[str, Any]] = []
    for block in blocks:
        is_note = bool(block.get("_note"))
        block = {k: v for k, v in block.items() if k != "_note"}
        if block["type"] not in ("thinking", "redacted_thinking"):
            out.append(block)
        elif kind in ("off", "disabled"):
            if is_note:
                out.append(text(block["thinking"]))
        elif kind == "between_tools":
            if is_note:
                out.append(block)
        elif block["type"] == "redacted_thinking" or display == "summarized" or (display == "updates" and is_note):
            out.append(block)
        else:
            out.append({**block, "thinking": ""})
    return out
