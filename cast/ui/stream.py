"""Split streamed Markdown into finished blocks and the one still being written.

A front-end that re-renders the whole reply on every delta flickers and cannot scroll; one that
prints deltas raw shows unrendered Markdown. The middle way: a block that can no longer change
(a paragraph followed by a blank line, a heading line, a closed code fence) is committed to the
scrollback once, rendered; only the unfinished block is live.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


class MarkdownStream:
    """Feed text deltas; get back the Markdown source of every block that is now finished."""

    def __init__(self) -> None:
        self._done: list[str] = []  # complete lines of the current block, newline included
        self._partial = ""  # text after the last newline
        self._fence: str | None = None  # the opening fence while inside a code block

    @property
    def pending(self) -> str:
        """The unfinished block as it stands (may end mid-line, may be an open code fence)."""
        return "".join(self._done) + self._partial

    def feed(self, text: str) -> list[str]:
        finished: list[str] = []
        data = self._partial + text
        *lines, self._partial = data.split("\n")
        for line in lines:
            finished.extend(self._line(line + "\n"))
        return finished

    def flush(self) -> str:
        """End of the reply: whatever is left is finished too."""
        rest = self.pending
        self._done, self._partial, self._fence = [], "", None
        return rest if rest.strip() else ""

    def _line(self, line: str) -> list[str]:
        out: list[str] = []
        fence = _FENCE.match(line)
        if self._fence is not None:  # inside a code block: only its closing fence ends it
            self._done.append(line)
            if (
                fence
                and fence.group(1)[0] == self._fence[0]
                and len(fence.group(1)) >= len(self._fence)
                and not line.strip()[len(fence.group(1)) :].strip()
            ):
                self._fence = None
                out.append(self._take())
            return out
        if fence:
            if self._has_text():
                out.append(self._take())  # the paragraph before the code block is complete
            self._fence = fence.group(1)
            self._done.append(line)
            return out
        if not line.strip():
            if self._has_text():
                out.append(self._take())
            return out
        if _HEADING.match(line):
            if self._has_text():
                out.append(self._take())
            self._done.append(line)
            out.append(self._take())
            return out
        self._done.append(line)
        return out

    def _has_text(self) -> bool:
        return any(part.strip() for part in self._done)

    def _take(self) -> str:
        block = "".join(self._done)
        self._done = []
        return block
