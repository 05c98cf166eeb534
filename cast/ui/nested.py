"""A child run's steps (an explore's), shown under the parent's call that started it.

While the call runs, the live view shows each child's newest step beneath it; once it is answered
the call is one line like any other, and Ctrl+O shows it whole: every step the child took, then the
answer its parent got. Kept apart from the renderer because it is the one piece fed from tool
threads (`ToolContext.emit`) while the loop's own events wait for the call.
"""

from __future__ import annotations

import threading

from cast.agent import events as ev
from cast.text import call_label, one_line

SHOWN_STEPS = 400  # what Ctrl+O keeps of one call's children: their newest lines


class NestedView:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lines: dict[str, list[str]] = {}  # parent call id -> its children's lines so far
        self._calls: dict[tuple[str, str], str] = {}  # (parent id, child call id) -> label
        self._newest: dict[str, str] = {}  # parent call id -> the newest line, for the live view

    def add(self, event: ev.Nested) -> str:
        """Take a child's event; the line it adds to the call's steps ("" for none)."""
        inner, key = event.event, event.parent_id
        line = ""
        if isinstance(inner, ev.ToolCall):
            with self._lock:
                self._calls[(key, inner.id)] = call_label(inner.name, inner.input)
                self._newest[key] = f"{event.agent}: {call_label(inner.name, inner.input)}"
            return ""
        if isinstance(inner, ev.ToolResult):
            with self._lock:
                label = self._calls.pop((key, inner.id), inner.name)
            mark = "✓" if inner.ok else "✗"
            line = f"{event.agent}: {mark} {label}" + (f" · {inner.summary}" if inner.summary else "")
        elif isinstance(inner, ev.Notice):
            line = f"{event.agent}: • {one_line(inner.text, 200)}"
        elif isinstance(inner, ev.Stopped):
            line = f"{event.agent}: ■ {inner.status}: {one_line(inner.reason, 200)} ({inner.steps} steps)"
        if line:
            with self._lock:
                lines = self._lines.setdefault(key, [])
                lines.append(line)
                del lines[:-SHOWN_STEPS]
                self._newest[key] = line
        return line

    def newest(self, parent_id: str) -> str:
        """The newest thing a running call's children did, "" if nothing yet."""
        with self._lock:
            return self._newest.get(parent_id, "")

    def lines(self, parent_id: str) -> list[str]:
        with self._lock:
            return list(self._lines.get(parent_id, []))

    def done(self, parent_id: str) -> list[str]:
        """The call was answered: its children's lines, for Ctrl+O, and forget them."""
        with self._lock:
            self._newest.pop(parent_id, None)
            self._calls = {k: v for k, v in self._calls.items() if k[0] != parent_id}
            return self._lines.pop(parent_id, [])
