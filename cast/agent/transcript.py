"""The conversation as the API sees it, kept valid at every moment.

Invariants the API enforces and a crash or Ctrl+C must not break: user and assistant turns
alternate, and every tool_use is answered by a tool_result in the next user message. `Transcript`
merges consecutive user content and is the only writer of `messages`, so a listener (the session
file) sees each message exactly once, in order.

Append-only: today's models sign every thinking block against everything before it (system,
tools, earlier messages), and a request whose prefix differs is a 400. So harness notices (mode
switches, guidance, files changed on disk, plan edits) are appended as `role: "system"` messages,
placed where the API accepts them: right after a user turn, never first, never between a tool_use
and its result; a notice with no user turn to follow waits for the next one. The `Prefix` (system
prompt and tool declarations) is declared once per conversation and journalled; the two things
that still change what was sent are explicit: `rewrite` (aging old results: the prefix switches to
`drop_block` for the rest of the conversation) and `restart` (compaction: a new conversation).

`chars` is a running total of the messages' serialized size, kept as they are added: sizing the
context must not cost a pass over the whole history every step.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

Message = dict[str, Any]
NO_REPLY = "[no reply: the request was interrupted or failed]"


@dataclass(frozen=True)
class Prefix:
    """What a conversation declares once: the system prompt and the tools (with `defer_loading` on
    those offered later), plus how the API treats it. `drop_block` is set once the history was
    rewritten: thinking blocks signed against the old prefix are then dropped instead of refused.
    `context_management`: the API clears old tool results itself (server-side context editing).
    `effort`: the conversation's `output_config.effort` ("" the model's default; None: not fixed,
    the agent's): a changed effort does not preserve the cached prefix, so it holds for the whole
    conversation and a mode's own effort applies from the next one."""

    system: str
    tools: tuple[dict[str, Any], ...]
    drop_block: bool = False
    context_management: dict[str, Any] | None = None
    effort: str | None = None

    def record(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "tools": list(self.tools),
            "drop_block": self.drop_block,
            "context_management": self.context_management,
            "effort": self.effort,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Prefix:
        effort = data.get("effort")
        return cls(
            str(data.get("system", "")),
            tuple(data.get("tools") or ()),
            bool(data.get("drop_block")),
            data.get("context_management") or None,
            str(effort) if effort is not None else None,
        )


def size(value: Any) -> int:
    """Characters of `value` as JSON, the unit the context estimate counts in."""
    return len(json.dumps(value))


class Transcript:
    def __init__(
        self,
        messages: list[Message] | None = None,
        on_append: Callable[[Message], None] | None = None,
        prefix: Prefix | None = None,
    ):
        self.messages: list[Message] = list(messages or [])
        self.on_append = on_append
        self.chars = size(self.messages)
        self.prefix = prefix
        self._waiting: list[dict[str, Any]] = []  # system blocks waiting for a user turn to follow
        # What a new conversation starts with now (the current mode's tool layout and notice),
        # for `restart`; None keeps the current prefix.
        self.fresh: tuple[Prefix, list[dict[str, Any]]] | None = None
        self.cache_anchors: tuple[int, ...] = ()  # turns to mark for the cache (agent/anchor.py)

    def declare(self, prefix: Prefix) -> None:
        """Set the conversation's prefix; journalled, so a resume sends exactly this again."""
        self.prefix = prefix
        self._notify({"role": "meta", "prefix": prefix.record()})

    def add_user(self, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        last = self.messages[-1]["role"] if self.messages else None
        if last == "system":  # a notice already went out with no reply after it: close that turn
            self._append({"role": "assistant", "content": [{"type": "text", "text": NO_REPLY}]})
        elif last == "user":
            self.messages[-1]["content"].extend(blocks)
            self.chars += size(blocks)
            self._notify({"role": "user", "content": blocks, "merged": True})
            self._release()
            return
        self._append({"role": "user", "content": list(blocks)})
        self._release()

    def add_system(self, blocks: list[dict[str, Any]]) -> None:
        """A harness notice as a `role: "system"` message after the latest user turn, or, when
        the model spoke last (or nothing was said yet), right after the next user turn."""
        if not blocks:
            return
        last = self.messages[-1]["role"] if self.messages else None
        if last == "system":
            self.messages[-1]["content"].extend(blocks)
            self.chars += size(blocks)
            self._notify({"role": "system", "content": blocks, "merged": True})
        elif last == "user":
            self._append({"role": "system", "content": list(blocks)})
        else:
            self._waiting.extend(blocks)

    def notice(self, text: str) -> None:
        self.add_system([{"type": "text", "text": text}])

    def _release(self) -> None:
        waiting, self._waiting = self._waiting, []
        self.add_system(waiting)

    def add_assistant(self, blocks: list[dict[str, Any]]) -> None:
        """A reply; one that continues a paused turn (`pause_turn`) joins that turn's message."""
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == "assistant":
            self.messages[-1]["content"].extend(blocks)
            self.chars += size(blocks)
            self._notify({"role": "assistant", "content": blocks, "merged": True})
            return
        self._append({"role": "assistant", "content": list(blocks)})

    def note(self, text: str) -> None:
        """Harness text the model must answer (a self-check's findings): joins the next user message.
        Notices that only inform go through `notice`."""
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
        """Swap in another history; listeners get a marker so a replay can do the same."""
        self.messages = list(messages)
        self.chars = size(self.messages)
        self._notify({"role": "meta", "replace": messages})

    def rewrite(self, messages: list[Message]) -> None:
        """Change what was already sent (aging old results). Thinking blocks signed against the old
        history would be refused, so from now on the conversation asks the API to drop them."""
        if self.prefix is not None and not self.prefix.drop_block:
            self.declare(replace(self.prefix, drop_block=True))
        self.replace(messages)

    def restart(self, messages: list[Message]) -> None:
        """Begin a new conversation (compaction): nothing signed before is sent again, so the old
        prefix's `drop_block` is not needed. With `fresh` set, the new conversation gets the
        current mode's declaration and notice, as if it had started in that mode."""
        prefix, notice = self.fresh if self.fresh is not None else (self.prefix, [])
        new = replace(prefix, drop_block=False) if prefix is not None else None
        if new is not None and new != self.prefix:
            self.declare(new)
        self._waiting = []
        self.replace(messages)
        self.add_system(list(notice))

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


def final_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last assistant message: the model's closing account of its turn."""
    for msg in reversed(messages):
        if msg["role"] == "assistant":
            return "\n".join(b.get("text", "") for b in msg["content"] if isinstance(b, dict) and b.get("type") == "text")
    return ""
