"""The request a conversation began with: the user's own words, which every compaction carries
on. A compacted conversation begins with the compaction's message, so the request is read back
out of it rather than taken whole: the summary's "Original request" stays the user's task after
any number of compactions, never a header nested in another."""

from __future__ import annotations

import re
from typing import Any

COMPACTED = "[cast: this conversation was compacted"
_CARRIED = re.compile(r"# Original request\n(.*?)\n\n# Summary of the work so far\n", re.S)


def first_request(messages: list[dict[str, Any]]) -> str:
    """The user's own words that started the session (first user message's text blocks); after a
    compaction, the request that compaction carried, never its header nested again."""
    for msg in messages:
        if msg["role"] == "user":
            texts = [b.get("text", "") for b in msg["content"] if isinstance(b, dict) and b.get("type") == "text"]
            text = "\n".join(t for t in texts if t).strip()
            if text.startswith(COMPACTED):
                carried = _CARRIED.search(text)
                return carried.group(1).strip() if carried else ""
            return text
    return ""
