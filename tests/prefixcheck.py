"""A scripted model that checks requests the way today's API does: it signs every thinking block
it writes against the prefix it was written after (system, tools, earlier messages), and refuses
a request in which a block's prefix has changed, unless the request asks for drop_block. It also
refuses misplaced `role: "system"` messages and tool references to undeclared tools.

It keeps a snapshot of every request as sent, so a test can also assert the append-only
invariant directly (`assert_append_only`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from cast.models.base import ModelError, ModelEvent, Request, Stop
from cast.models.scripted import ScriptedModel


def _strip(value: Any) -> Any:
    """cache_control markers move from request to request and are not part of the prefix."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def signature(system: str, tools: Any, messages: list[dict[str, Any]], before: list[dict[str, Any]]) -> str:
    data = json.dumps(_strip([system, list(tools), messages, before]), sort_keys=True)
    return "sig:" + hashlib.sha256(data.encode()).hexdigest()[:24]


def placement_error(messages: list[dict[str, Any]], tools: Any) -> str | None:
    """The API's rules for system messages and tool references (None when the request is fine)."""
    declared = {t.get("name") for t in tools}
    for index, message in enumerate(messages):
        if message["role"] != "system":
            continue
        if index == 0:
            return "messages.0: a system message cannot be first"
        before = index - 1
        while before >= 0 and messages[before]["role"] == "system":
            before -= 1
        if before < 0 or messages[before]["role"] != "user":
            return f"messages.{index}: a system message must immediately follow a user turn"
        after = messages[index + 1]["role"] if index + 1 < len(messages) else None
        if after not in (None, "assistant", "system"):
            return f"messages.{index}: a system message must be last or be followed by an assistant turn"
        for block in message["content"]:
            if block.get("type") in ("tool_addition", "tool_removal") and block["tool"]["name"] not in declared:
                return f"messages.{index}: tool {block['tool']['name']!r} is not declared in tools"
    if messages and messages[-1]["role"] == "assistant":
        return "the conversation must end with a user message"
    return None


class SigningModel(ScriptedModel):
    """ScriptedModel with the API's prefix check. `spec` is what cast reads for capabilities."""

    def __init__(self, turns: list[dict[str, Any]], spec: Any = None, name: str = "signing"):
        super().__init__(turns, name=name)
        self.spec = spec
        self.sent: list[dict[str, Any]] = []  # every request as sent (JSON snapshots)
        self.rejected: list[str] = []
        self.dropped = 0  # thinking blocks the API would have dropped (drop_block)

    def check(self, request: Request) -> str | None:
        messages = _strip(json.loads(json.dumps(list(request.messages))))
        paused = bool(self.turns) and self.position > 0 and self.turns[self.position - 1].get("stop") == "pause_turn"
        problem = placement_error(messages, request.tools)
        if problem and not (paused and problem.startswith("the conversation must end")):
            return problem
        for i, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            for j, block in enumerate(message["content"]):
                if block.get("type") != "thinking":
                    continue
                if block.get("signature") != signature(request.system, request.tools, messages[:i], message["content"][:j]):
                    if request.drop_block:
                        self.dropped += 1
                        continue
                    return (
                        f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block. "
                        "The block is bound to a different conversation."
                    )
        return None

    def stream(self, request: Request) -> Iterator[ModelEvent]:
        wire = request.wire()
        self.sent.append(json.loads(json.dumps({**wire, "messages": list(wire["messages"]), "tools": list(wire["tools"])})))
        if request.tools:  # side calls (summary, verdict) carry no thinking of their own
            problem = self.check(request)
            if problem:
                self.rejected.append(problem)
                raise ModelError(f"the API rejected the request (400 invalid_request_error): {problem}")
        turn = self.turns[self.position] if self.position < len(self.turns) else {}
        messages = _strip(json.loads(json.dumps(list(request.messages))))
        paused = bool(messages) and messages[-1]["role"] == "assistant"
        for item in super().stream(request):
            if isinstance(item, Stop):
                content = [dict(b) for b in item.content]
                base = messages[:-1] if paused else messages
                earlier = list(messages[-1]["content"]) if paused else []
                for j, block in enumerate(content):
                    if block.get("type") == "thinking":
                        block["signature"] = signature(request.system, request.tools, base, earlier + content[:j])
                item = Stop(item.reason, tuple(content), dict(turn.get("details") or {}))
            yield item


def assert_append_only(sent: list[dict[str, Any]], allow: set[int] = frozenset()) -> None:  # type: ignore[assignment]
    """Each request extends the previous one: the same system and tools, every earlier message byte
    for byte (the previous last message may have grown: a user turn still being assembled).
    `allow` lists request indexes where the prefix may change (a rewrite recorded with the
    session: drop_block or a new conversation)."""
    calls = [r for r in sent if r["tools"]]
    for index in range(1, len(calls)):
        if index in allow:
            continue
        before, after = _strip(calls[index - 1]), _strip(calls[index])
        assert after["system"] == before["system"], f"system changed at request {index}"
        assert after["tools"] == before["tools"], f"tools changed at request {index}"
        old, new = before["messages"], after["messages"]
        assert len(new) >= len(old), f"messages dropped at request {index}"
        assert new[: len(old) - 1] == old[:-1], f"an earlier message changed at request {index}"
        last, same = old[-1], new[len(old) - 1]
        assert same["role"] == last["role"] and same["content"][: len(last["content"])] == last["content"], (
            f"the last message changed at request {index}"
        )


def thinking_turn(text: str, tool: str | None = None, **args: Any) -> dict[str, Any]:
    turn: dict[str, Any] = {"thinking": f"I consider {text}.", "text": text}
    if tool:
        turn["tool_uses"] = [{"name": tool, "input": args}]
    return turn
