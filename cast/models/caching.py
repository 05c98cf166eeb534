"""Prompt-cache breakpoints on the moving end of the transcript, and where the next batch starts.

The prefix: the system block (marked by the provider; it caches the tools before it), or the last
tool that is not deferred when there is no system (`mark_tools`). Then the anchors the context
economy asks for (`cast/agent/anchor.py`): the last block of an assistant turn just before the old
tool results the next batch will clear, so that batch reads the history up to there from the cache;
the API looks for an earlier entry only 20 blocks back from each breakpoint. Then the last block of
the last two user messages: the newest end, so the next request reads it, and the previous
request's end, so this request reads what the last one wrote. The API allows four breakpoints in
all; the newest end always gets one.
"""

from __future__ import annotations

from typing import Any

MAX_BREAKPOINTS = 4  # the API rejects a request with more cache_control blocks


def mark_tools(tools: tuple[dict[str, Any], ...]) -> tuple[list[dict[str, Any]], int]:
    """Copies of `tools` with a breakpoint on the last tool that is not `defer_loading`, and the
    number of breakpoints used (0 when every tool is deferred). The tool search page: a tool with
    `defer_loading: true` can't also carry `cache_control` (a 400); put the breakpoint on a
    non-deferred tool. Everything before that tool is still cached by it."""
    out = [dict(tool) for tool in tools]
    for index in range(len(out) - 1, -1, -1):
        if not out[index].get("defer_loading"):
            out[index]["cache_control"] = {"type": "ephemeral"}
            return out, 1
    return out, 0


def mark_messages(
    messages: tuple[dict[str, Any], ...], budget: int, anchors: tuple[dict[str, Any], ...] = ()
) -> list[dict[str, Any]]:
    """Copies of `messages` with a cache breakpoint on the last cacheable block of each anchor
    message (given by identity; at most `budget - 1`), then on the last block of each of the last
    two user messages the budget leaves room for. Only the messages that change are copied."""
    out = list(messages)
    wanted = {id(anchor) for anchor in anchors[: max(0, budget - 1)]}
    for index, message in enumerate(out):
        if id(message) in wanted and isinstance(message.get("content"), list):
            turn = list(message["content"])
            last = next((i for i in range(len(turn) - 1, -1, -1) if _cacheable(turn[i])), None)
            if last is not None:
                turn[last] = {**turn[last], "cache_control": {"type": "ephemeral"}}
                out[index] = {**message, "content": turn}
                budget -= 1
    marks = min(budget, 2)
    for index in range(len(out) - 1, -1, -1):
        if marks <= 0:
            break
        message = out[index]
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            if not content:
                continue
            blocks: list[Any] = [{"type": "text", "text": content}]
        else:
            blocks = list(content or [])
        target = next((i for i in range(len(blocks) - 1, -1, -1) if _cacheable(blocks[i])), None)
        if target is None:
            continue
        blocks[target] = {**blocks[target], "cache_control": {"type": "ephemeral"}}
        out[index] = {**message, "content": blocks}
        marks -= 1
    return out


def _cacheable(block: Any) -> bool:
    if not isinstance(block, dict) or "cache_control" in block:
        return False
    if block.get("type") in ("thinking", "redacted_thinking"):
        return False
    return not (block.get("type") == "text" and not block.get("text"))


def count_marks(messages: tuple[dict[str, Any], ...]) -> int:
    """Breakpoints already present in the transcript (cast never adds any; this keeps the limit safe)."""
    return sum(
        1
        for message in messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and "cache_control" in block
    )
