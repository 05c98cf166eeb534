"""Server-side context editing in the fake Messages API: what `clear_tool_uses_20250919` and
`clear_thinking_20251015` do to the prompt the model sees, and so to the usage the fake reports.

The request's `messages` are never rewritten (the client's history stays as sent, and its thinking
signatures stay valid); the edits change the items the fake counts and caches. A cleared tool
result is counted as `{"type": "tool_result", "tool_use_id": ..., "content": "[cleared]"}`; with
`clear_tool_inputs` the tool call's input is counted as `{}`. `clear_thinking_20251015` removes
the thinking blocks of all but the last `keep` assistant turns (default 1). `compact_20260112`
past its trigger makes the reply start with a `compaction` block (the scripted turn's
`compaction` text); with `pause_after_compaction` the reply is that block alone, stop reason
`compaction`. Later requests count from the last compaction block on.

Sources: https://platform.claude.com/docs/en/build-with-claude/context-editing (the two strategies,
their triggers, `keep`, `clear_at_least`, `clear_tool_inputs`, `applied_edits` in the reply) and
https://platform.claude.com/docs/en/build-with-claude/compaction (`compact_20260112`, trigger at
least 50,000, `pause_after_compaction`).
"""

from __future__ import annotations

from typing import Any

from fakeapi_wire import THINKING_KINDS, Item, effective

CLEARED = "[cleared]"


def compaction_due(body: dict[str, Any], items: list[Item]) -> dict[str, Any] | None:
    """The `compact_20260112` edit, when the prompt has passed its trigger (default 150,000)."""
    for edit in ((body.get("context_management") or {}).get("edits")) or []:
        if edit.get("type") == "compact_20260112":
            trigger = (edit.get("trigger") or {}).get("value", 150_000)
            return edit if _total(items) > trigger else None
    return None


def apply_edits(body: dict[str, Any], items: list[Item]) -> tuple[list[Item], list[dict[str, Any]]]:
    items = effective(items)
    edits = ((body.get("context_management") or {}).get("edits")) or []
    applied: list[dict[str, Any]] = []
    for edit in edits:
        if edit.get("type") == "clear_thinking_20251015":
            items, report = _clear_thinking(items, edit)
        elif edit.get("type") == "clear_tool_uses_20250919":
            items, report = _clear_tool_uses(items, edit)
        else:
            continue
        if report:
            applied.append(report)
    return items, applied


def _total(items: list[Item]) -> int:
    return sum(item.tokens for item in items)


def _clear_thinking(items: list[Item], edit: dict[str, Any]) -> tuple[list[Item], dict[str, Any] | None]:
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or (isinstance(keep, dict) and keep.get("type") == "all"):
        return items, None
    turns = sorted(
        {
            it.path[0]
            for it in items
            if it.kind == "assistant" and it.path and isinstance(it.block, dict) and it.block.get("type") in THINKING_KINDS
        }
    )
    cleared_turns = set(turns[: max(0, len(turns) - int(keep.get("value", 1)))])
    if not cleared_turns:
        return items, None
    kept = [
        it
        for it in items
        if not (
            it.path
            and it.path[0] in cleared_turns
            and it.kind == "assistant"
            and isinstance(it.block, dict)
            and it.block.get("type") in THINKING_KINDS
        )
    ]
    return kept, {
        "type": "clear_thinking_20251015",
        "cleared_thinking_turns": len(cleared_turns),
        "cleared_input_tokens": _total(items) - _total(kept),
    }


def _clear_tool_uses(items: list[Item], edit: dict[str, Any]) -> tuple[list[Item], dict[str, Any] | None]:
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100_000}
    uses = [
        (k, it)
        for k, it in enumerate(items)
        if it.kind == "assistant" and isinstance(it.block, dict) and it.block.get("type") == "tool_use"
    ]
    measure = _total(items) if trigger["type"] == "input_tokens" else len(uses)
    if measure <= trigger["value"]:
        return items, None
    keep = int((edit.get("keep") or {}).get("value", 3))
    exclude = set(edit.get("exclude_tools") or [])
    clear_inputs = edit.get("clear_tool_inputs")
    candidates = [(k, it) for k, it in uses if it.block.get("name") not in exclude]
    candidates = candidates[: max(0, len(candidates) - keep)]
    ids = {it.block.get("id"): it.block.get("name") for _, it in candidates}
    out: list[Item] = []
    cleared = 0
    for it in items:
        block = it.block
        if (
            it.kind == "user"
            and isinstance(block, dict)
            and block.get("type") == "tool_result"
            and block.get("tool_use_id") in ids
        ):
            if block.get("content") != CLEARED:
                cleared += 1
            block = {"type": "tool_result", "tool_use_id": block.get("tool_use_id"), "content": CLEARED}
        elif (
            it.kind == "assistant"
            and isinstance(block, dict)
            and block.get("id") in ids
            and (clear_inputs is True or (isinstance(clear_inputs, list) and block.get("name") in clear_inputs))
        ):
            block = {**block, "input": {}}
        out.append(Item(it.kind, block, it.path, it.ttl))
    saved = _total(items) - _total(out)
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    if not cleared or saved < least:
        return items, None
    return out, {"type": "clear_tool_uses_20250919", "cleared_tool_uses": cleared, "cleared_input_tokens": saved}
