"""Server-side tool-result clearing that keeps the prompt cache: the cleared set moves in batches.

`clear_tool_uses_20250919` is applied per request to the history the client sends: once the prompt
is past `trigger`, the API clears every tool result but the last `keep` tool uses
(https://platform.claude.com/docs/en/build-with-claude/context-editing). Sent as declared, every
step past the trigger clears one more result at the old end, so the prompt changes right after the
last result cleared before and everything after it is written to the cache again (the page:
clearing "invalidates cached prompt prefixes"). Measured in bench/bench_cache.py on a 40-step
session at Sonnet 5.5's prices: 0.178x a naive agent's bill, against 0.114x for cast's own aging in
epochs.

So `keep` is chosen per request to clear in batches, the way cast's own aging works
(`agent/context.py`): past the trigger, the results older than the declared `keep` are cleared
together once they add up to `clear_at_least` (the declared batch size), and nothing more is
cleared until the uncleared part has grown past the trigger again with another such batch. Between
batches `keep` grows with the conversation, so the same results stay cleared, the prompt keeps its
prefix and every request reads the last one's from the cache.

Stateless: the cleared count is recomputed from the messages alone, walking them as the
conversation grew (sizes in chars/4, as the aging estimate counts), so an append-only history
always gives the same answer for the same turns, a resumed session included. `clear_at_least` is
not sent on: the batching already makes each clearing worth its cache write, and a server count a
little under cast's estimate must not turn a batch down.
"""

from __future__ import annotations

import json
from typing import Any

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CHARS_PER_TOKEN = 4


def hold(context_management: dict[str, Any], messages: Any) -> dict[str, Any]:
    """`context_management` with each `clear_tool_uses` edit's `keep` set so that the results
    cleared change only in batches (see the module's docstring); other edits unchanged."""
    edits = []
    for edit in context_management.get("edits") or []:
        if not isinstance(edit, dict) or edit.get("type") != CLEAR_TOOL_USES or not _by_input_tokens(edit):
            edits.append(edit)
            continue
        uses, cleared = cleared_uses(
            messages, _value(edit, "keep", 3), _value(edit, "trigger", 100_000), _value(edit, "clear_at_least", 0)
        )
        held = {key: value for key, value in edit.items() if key != "clear_at_least"}
        held["keep"] = {"type": "tool_uses", "value": uses - cleared}
        edits.append(held)
    return {**context_management, "edits": edits}


def first_kept(context_management: dict[str, Any], messages: Any) -> int | None:
    """Index of the assistant turn holding the oldest tool use whose result the API keeps in this
    request (cleared as `hold` has it cleared): the next batch starts clearing at that result, so
    the turn is where a cache anchor keeps the history before it (`agent/anchor.py`)."""
    for edit in context_management.get("edits") or []:
        if isinstance(edit, dict) and edit.get("type") == CLEAR_TOOL_USES and _by_input_tokens(edit):
            _, cleared = cleared_uses(
                messages, _value(edit, "keep", 3), _value(edit, "trigger", 100_000), _value(edit, "clear_at_least", 0)
            )
            seen = 0
            for index, message in enumerate(messages):
                if message.get("role") == "assistant" and isinstance(message.get("content"), list):
                    seen += sum(1 for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use")
                    if seen > cleared:
                        return index
    return None


def cleared_uses(messages: Any, keep: int, trigger: int, batch: int) -> tuple[int, int]:
    """(tool uses in `messages`, how many of the oldest the API should clear)."""
    seen: list[str] = []
    sizes: dict[str, int] = {}
    chars = gone = cleared = 0
    for message in messages:
        chars += len(json.dumps(message, sort_keys=True))
        content = message.get("content") if isinstance(message.get("content"), list) else []
        blocks = [block for block in content if isinstance(block, dict)]
        if message.get("role") == "assistant":
            seen += [str(block.get("id")) for block in blocks if block.get("type") == "tool_use"]
            continue
        results = [block for block in blocks if block.get("type") == "tool_result"]
        for block in results:
            sizes[str(block.get("tool_use_id"))] = len(json.dumps(block.get("content"), sort_keys=True))
        if not results or (chars - gone) // CHARS_PER_TOKEN <= trigger:
            continue
        clearable = max(cleared, len(seen) - keep)
        freed = sum(sizes.get(use, 0) for use in seen[cleared:clearable])
        if clearable > cleared and freed // CHARS_PER_TOKEN >= batch:
            cleared, gone = clearable, gone + freed
    return len(seen), cleared


def _by_input_tokens(edit: dict[str, Any]) -> bool:
    trigger = edit.get("trigger")
    return trigger is None or (isinstance(trigger, dict) and trigger.get("type") == "input_tokens")


def _value(edit: dict[str, Any], key: str, default: int) -> int:
    value = edit.get(key)
    if isinstance(value, dict) and isinstance(value.get("value"), int):
        return int(value["value"])
    return default
