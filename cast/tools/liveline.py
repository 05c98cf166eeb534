"""The newest line of a running command's output, for a live view.

A person watching `pytest` run wants to see that it is moving and what it is doing now, not a
silent terminal. The command's bytes go whole into the observation (process.py); this reads the
same bytes and reports only the newest line, as printable text: escape sequences, carriage-return
redraws and other control characters are removed here, once, so nothing downstream can be steered
by what a command prints. Reports are throttled (a command printing a million lines costs at most
ten reports a second), and a line still waiting for its newline (a prompt, a progress bar) is
reported once it has been waiting a moment.
"""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Callable

INTERVAL = 0.1  # at most ten reports a second
PARTIAL_AFTER = 0.4  # an unfinished line is reported once it has waited this long
MAX_CHARS = 500  # longer lines are cut: a live view shows one terminal row of it
KEEP_PARTIAL = 4 * MAX_CHARS  # of a line still waiting for its newline (a progress bar redraws at its end)

_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]?"  # two-byte escapes, or a lone ESC
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # C0 (but tab and newline) and C1 controls
)


def printable(text: str) -> str:
    """One line as a terminal would leave it visible: what follows the last carriage return, no
    escape sequences or control characters, tabs as spaces, cut at MAX_CHARS with an ellipsis."""
    text = text.rstrip("\r").rsplit("\r", 1)[-1]
    text = _ESCAPES.sub("", text).replace("\t", "    ").rstrip()
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


class LiveLine:
    """Fed the output's bytes as they arrive (one thread); calls `report` with the newest
    non-blank line when it changes, at most every INTERVAL seconds. `tick` lets a reader that
    woke with nothing to read send a report that was held back; `close` sends the last one."""

    def __init__(self, report: Callable[[str], None], clock: Callable[[], float] = time.monotonic):
        self.report = report
        self.clock = clock
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._partial = ""  # text after the last newline
        self._partial_since = 0.0
        self._complete = ""  # the newest non-blank complete line
        self._shown = ""
        self._shown_at = float("-inf")
        self.reports = 0

    def feed(self, chunk: bytes) -> None:
        self._take(self._decoder.decode(chunk))
        self.tick()

    def _take(self, text: str) -> None:
        if not text:
            return
        lines = (self._partial + text).split("\n")
        had_partial = bool(self._partial) and len(lines) == 1
        self._partial = lines.pop()[-KEEP_PARTIAL:]  # its newest part: 50 MB without a newline stays cheap
        for line in reversed(lines):
            shown = printable(line)
            if shown:
                self._complete = shown
                break
        if not had_partial:
            self._partial_since = self.clock()

    def _newest(self, now: float) -> str:
        partial = printable(self._partial) if self._partial else ""
        if partial and now - self._partial_since >= PARTIAL_AFTER:
            return partial
        return self._complete

    def tick(self, final: bool = False) -> None:
        now = self.clock()
        line = self._newest(float("inf") if final else now)
        if not line or line == self._shown or (not final and now - self._shown_at < INTERVAL):
            return
        self._shown, self._shown_at = line, now
        self.reports += 1
        try:
            self.report(line)
        except Exception:  # a broken live view must never cost the command its output
            pass

    def close(self) -> None:
        """The output ended: report its last line, a partial one included, whatever the throttle."""
        self._take(self._decoder.decode(b"", final=True))
        self.tick(final=True)
