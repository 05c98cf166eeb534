"""One streamed Messages API reply, assembled into plain content blocks exactly as the API sent
them, so thinking blocks and tool calls go back unmodified."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from cast.models.base import ModelEvent, Stop, TextDelta, ThinkingDelta, ToolUse, Usage

WIRE_ORDER = {
    "text": ("type", "text", "citations"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
    "tool_use": ("type", "id", "name", "input"),
}


class Transient(Exception):
    """A failure worth another attempt. `kind` picks the words of the final report."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None):
        super().__init__(detail)
        self.kind = kind  # overloaded, rate-limited, server error, timed out, unreachable, stream cut
        self.detail = detail
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.kind} ({self.detail})"


class Reply:
    """Accumulates one streamed reply into plain content blocks, exactly as the API sent them."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_json: dict[int, list[str]] = {}
        self.usage = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        self.long_writes = 0  # cache writes with the 1-hour TTL (message_start's `cache_creation`)
        self.stop_reason: str | None = None
        self.details: dict[str, Any] = {}
        self.started = False
        self.stopped = False

    def feed(self, event: Any) -> Iterator[ModelEvent]:
        kind = event.type
        if kind == "message_start":
            self.started = True
            self._usage(event.message.usage)
            self._detail("input_transformations", getattr(event.message, "input_transformations", None))
        elif kind == "content_block_start":
            self.blocks[event.index] = _wire(event.content_block)
        elif kind == "content_block_delta":
            block = self.blocks.get(event.index)
            if block is None:
                raise Transient("stream cut", f"a delta for content block {event.index}, which never started")
            delta = event.delta
            if delta.type == "text_delta":
                block["text"] = block.get("text", "") + delta.text
                yield TextDelta(delta.text)
            elif delta.type == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + delta.thinking
                yield ThinkingDelta(delta.thinking)
            elif delta.type == "signature_delta":
                block["signature"] = delta.signature  # the whole signature, as the SDK treats it
            elif delta.type == "input_json_delta":
                self.partial_json.setdefault(event.index, []).append(delta.partial_json)
            elif delta.type == "citations_delta":
                block.setdefault("citations", []).append(_wire(delta.citation))
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self._usage(event.usage)
            details = getattr(event.delta, "stop_details", None)
            if details is not None:
                self.details.update((k, v) for k, v in _wire(details).items() if k != "type")
            self._detail("input_transformations", getattr(event, "input_transformations", None))
            edits = getattr(event, "context_management", None)
            if edits is not None:
                self._detail("applied_edits", getattr(edits, "applied_edits", None))
        elif kind == "message_stop":
            self.stopped = True

    def _detail(self, key: str, values: Any) -> None:
        if values:  # a later non-empty list replaces an earlier one (the API's fallback rule)
            self.details[key] = [_wire(v) for v in values]

    def _usage(self, usage: Any) -> None:
        split = getattr(usage, "cache_creation", None)  # which TTL the writes had (message_start's usage)
        if isinstance(split, dict):  # a field the SDK's type for this event lacks arrives as a plain dict
            split = SimpleNamespace(**split)
        long_writes = getattr(split, "ephemeral_1h_input_tokens", None)
        if long_writes is not None:
            self.long_writes = long_writes
        for key in self.usage:
            value = getattr(usage, key, None)
            if value is not None:  # message_delta counts are cumulative; absent ones keep message_start's
                self.usage[key] = value

    def finish(self) -> Iterator[ModelEvent]:
        content: list[dict[str, Any]] = []
        calls: list[ToolUse] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if index in self.partial_json:
                text = "".join(self.partial_json[index])
                try:
                    block["input"] = json.loads(text) if text.strip() else {}
                    given: Any = copy.deepcopy(block["input"])
                except json.JSONDecodeError:
                    block["input"] = {}  # the API needs an object back; the call itself fails as an observation
                    given = text
            else:
                given = copy.deepcopy(block.get("input", {}))
            if block.get("type") == "tool_use":
                calls.append(ToolUse(block.get("id", ""), block.get("name", ""), given))
            content.append(block)
        yield from calls
        u = self.usage
        writes = u["cache_creation_input_tokens"]
        usage = Usage(u["input_tokens"], u["output_tokens"], u["cache_read_input_tokens"], writes, min(self.long_writes, writes))
        if self.stop_reason == "refusal" and not content:
            # Refused before any output: not billed (https://platform.claude.com/docs/en/models/fable-5/
            # introducing-claude-fable-5-and-claude-mythos-5, "Billing"), so it costs nothing here either.
            self.details["unbilled"] = usage.to_dict()
            usage = Usage()
        yield usage
        yield Stop(self.stop_reason or "end_turn", tuple(content), dict(self.details))


def _wire(model: Any) -> dict[str, Any]:
    """An SDK object as the JSON the API sent: only the fields it set, top-level `None`s dropped
    (optional fields; leaving them out is always accepted on input). The SDK's models keep fields
    in alphabetical order, so the API's own order is restored for the common block types."""
    data = model.to_dict(mode="json", exclude_unset=True) if hasattr(model, "to_dict") else dict(model)
    order = WIRE_ORDER.get(str(data.get("type")), ("type",))
    block = {key: data[key] for key in order if data.get(key) is not None}
    block.update((key, value) for key, value in data.items() if value is not None and key not in block)
    return block
