"""Cache lifetimes in the fake Messages API: what a request may say about a breakpoint's `ttl`,
and where the split between 1-hour and 5-minute writes shows in a streamed reply.

Why a module of its own: the rules are the API's and are small, but a client that gets them wrong
is answered with a 400 (a `ttl` other than "5m" or "1h"; a 1-hour breakpoint after a 5-minute one,
in the order the API reads a prompt: `tools`, `system`, `messages`, then the top-level automatic
breakpoint), and the usage it reports back is how a client prices cache writes: 1-hour writes cost
2x input, 5-minute ones 1.25x. The split is `usage.cache_creation.{ephemeral_1h_input_tokens,
ephemeral_5m_input_tokens}` in the message (`message_start` of a stream); a stream's
`message_delta` carries only the fields of the SDK's `MessageDeltaUsage` (cumulative counts, no split).

Sources: https://platform.claude.com/docs/en/build-with-claude/prompt-caching (`ttl` "5m" | "1h",
1-hour breakpoints before 5-minute ones, prices 1.25x / 2x) and the SDK's `types/usage.py`,
`types/cache_creation.py`, `types/message_delta_usage.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TTLS = ("5m", "1h")
ORDER_ERROR = (
    "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
    "Note that blocks are processed in the following order: `tools`, `system`, `messages`."
)
DELTA_USAGE_KEYS = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "server_tool_use",
        "output_tokens_details",
    }
)


def _marks(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every `cache_control` in `value`, in document order, with the path it sits at."""
    if isinstance(value, dict):
        if "cache_control" in value:
            yield f"{where}.cache_control", value["cache_control"]
        for key, item in value.items():
            if key != "cache_control":
                yield from _marks(item, f"{where}.{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _marks(item, f"{where}.{n}")


def ttl_error(body: dict[str, Any]) -> str | None:
    """The 400's message for a request whose cache lifetimes the API refuses, else None."""
    marks = [
        *_marks(body.get("tools"), "tools"),
        *_marks(body.get("system"), "system"),
        *_marks(body.get("messages"), "messages"),
    ]
    if isinstance(body.get("cache_control"), dict):
        marks.append(("cache_control", body["cache_control"]))
    seen_short = False
    for where, mark in marks:
        if not isinstance(mark, dict):
            continue
        ttl = mark.get("ttl", "5m")
        if ttl not in TTLS:
            return f"{where}.ttl: Input should be '5m' or '1h'"
        if ttl == "1h" and seen_short:
            return ORDER_ERROR
        seen_short = seen_short or ttl == "5m"
    return None


def delta_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """A stream's `message_delta` usage: the cumulative counts, without the per-TTL split."""
    return {k: v for k, v in usage.items() if k in DELTA_USAGE_KEYS}
