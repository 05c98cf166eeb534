"""The conversation as the API sees it, kept valid at every moment.

Invariants the API enforces and a crash or Ctrl+C must not break: roles alternate, and every
tool_use is answered by a tool_result in the next user message. `Transcript` merges consecutive
user content and is the only writer of `messages`, so a listener (the session file) sees each
message exactly once, in order.

`chars` is a running total of the messages' serialized size, kept as they are added: sizing the
context must not cost a pass over the whole history every step.
"""
from __future__ import annotations

import json
from typing import Any, Callable

Message = dict[str, Any]


def size(value: Any) -> int:
    """Characters of `value` as JSON, the unit the context estimate counts in."""
    return len(json.dumps(value))


class Transcript:
    def __init__(self, messages: list[Message] | None = None, on_append: Callable[[Message], None] | None = None):
        self.messages: list[Message] = list(messages or [])
        self.on_append = on_append
        self.chars = size(self.messages)

    def add_user(self, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].extend(blocks)
            self.chars += size(blocks)
            self._notify({"role": "user", "content": blocks, "merged": True})
            return
        self._append({"role": "user", "content": list(blocks)})

    def add_assistant(self, blocks: list[dict[str, Any]]) -> None:
        if blocks:
            self._append({"role": "assistant", "content": list(blocks)})

    def note(self, text: str) -> None:
        """Harness text for the model (guidance, stale files): joins the next user message."""
        self.add_user([{"type": "text", "text": text}])

    def pending_tool_uses_unanswered(self) -> list[dict[str, Any]]:
        """tool_use blocks of the latest assistant message that have no tool_result yet."""
        last = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i]["role"] == "assistant"), None)
        if last is None:
            return []
        answered = {
            block.get("tool_use_id")
            for message in self.messages[last + 1 :]
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        }
        return [b for b in self.messages[last]["content"] if b.get("type") == "tool_use" and b["id"] not in answered]

    def replace(self, messages: list[Message]) -> None:
        """Swap in a compacted history; listeners get a marker so a replay can do the same."""
        self.messages = list(messages)
        self.chars = size(self.messages)
        self._notify({"role": "meta", "replace": messages})

    def _append(self, message: Message) -> None:
        self.messages.append(message)
        self.chars += size(message) + 2
        self._notify(message)

    def _notify(self, message: Message) -> None:
        if self.on_append:
            self.on_append(message)


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_result_block(tool_use_id: str, text: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": text}
    if is_error:
        block["is_error"] = True
    return block
