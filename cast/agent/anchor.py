"""Where the next aging batch starts, so the cache keeps an entry just before it.

A batch (the API clearing old tool results, or cast shrinking them in an epoch) changes the history
from its oldest changed result on, and every later block must be written to the cache again. But the
API looks for an earlier cache entry only 20 blocks back from each breakpoint (the prompt-caching
page), and cast's moving breakpoints sit at the newest end, much further on. Without help, the
request after a batch reads just the system prefix from the cache and writes everything after it
again at 1.25x: the elisions and the model's turns of every earlier batch, not only what changed.

So every request also marks the last assistant turn before the next batch's first change (an
anchor; it stays put between batches, so its entry is read, never rewritten), and the request that
carries a batch marks both the old anchor, to read up to where this batch starts, and the new one,
so the next batch finds its entry. Measured in bench/bench_cache.py (docs/context-and-cost.md).
"""

from __future__ import annotations

from typing import Any

from cast.agent.elide import ELIDED, MIN_ELIDE_CHARS, content_text
from cast.agent.transcript import Transcript
from cast.models import clearing


class Anchors:
    """Per conversation: the anchor sent last, to send again on the request whose batch moves it."""

    def __init__(self) -> None:
        self._last: tuple[int, dict[str, Any]] | None = None  # (index, the turn itself)
        self._scanned = 0  # client aging: user turns before this hold nothing cast would shrink

    def place(self, transcript: Transcript) -> tuple[int, ...]:
        messages = transcript.messages
        managed = transcript.prefix.context_management if transcript.prefix else None
        new = clearing.first_kept(managed, messages) if managed else self._first_unaged(messages)
        anchors = []
        last = self._last
        if last and last[0] < len(messages) and messages[last[0]] is last[1] and last[0] != new:
            anchors.append(last[0])
        self._last = (new, messages[new]) if new is not None else None
        return tuple(sorted(anchors + ([new] if new is not None else [])))

    def _first_unaged(self, messages: list[dict[str, Any]]) -> int | None:
        """The assistant turn before the oldest tool result an epoch would shrink: large and not
        yet elided. Aging only elides, so the scan resumes where it stopped (a compaction's new,
        shorter history starts it again)."""
        start = self._scanned if self._scanned < len(messages) else 0
        for index in range(max(1, start), len(messages)):
            message = messages[index]
            if message.get("role") != "user" or not isinstance(message.get("content"), list):
                continue
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    text = content_text(block.get("content", ""))
                    if len(text) >= MIN_ELIDE_CHARS and not text.startswith(ELIDED):
                        self._scanned = index
                        return index - 1 if messages[index - 1].get("role") == "assistant" else None
            self._scanned = index + 1
        return None
