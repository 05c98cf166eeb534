"""A page of a text file, described exactly: which lines are shown whole, which were clipped, where to go on.

The page never has a hole in it. It ends at the last line that fits the output budget in full, so
"continue with offset=N" always names the first line the model has not seen; a line too long to
show is clipped on its own line, and the header names it with its length. Reading stops keeping
bytes once the page is full and only counts newlines for the total, so a 1 GB file or a 300 KB line
costs time in C, not memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import BinaryIO

SNIFF = 8192
COUNT_CHUNK = 1 << 20
CLIPPED_NAMED = 5


@dataclass
class Line:
    number: int
    text: str
    size: int = 0  # bytes of the whole line when it was clipped, else 0


@dataclass
class Page:
    size: int = 0
    binary: bool = False
    total: int = 0
    lines: list[Line] = field(default_factory=list)
    valid_utf8: bool = True
    out_of_room: bool = False  # the output budget, not the line limit, ended the page

    @property
    def last(self) -> int:
        return self.lines[-1].number if self.lines else 0

    @property
    def clipped(self) -> list[Line]:
        return [line for line in self.lines if line.size]


def read_page(handle: BinaryIO, offset: int, limit: int, line_chars: int, budget: int) -> Page:
    page = Page(size=os.fstat(handle.fileno()).st_size)
    if b"\x00" in handle.read(SNIFF):
        page.binary = True
        return page
    handle.seek(0)
    used, number = 0, 0
    while True:
        raw, size, ended = _next_line(handle, line_chars * 4)
        if not raw and not ended and not size:
            break
        number += 1
        if number < offset:
            continue
        line = _decode(raw, size, line_chars, number, page)
        entry = len(line.text) + 8 + (60 if line.size else 0)
        if len(page.lines) >= limit or used + entry > budget:
            page.out_of_room = len(page.lines) < limit
            number += _count_rest(handle, ended)
            break
        page.lines.append(line)
        used += entry
    page.total = number
    return page


def _next_line(handle: BinaryIO, cap: int) -> tuple[bytes, int, bool]:
    """(up to `cap` bytes of the next line without its newline, its full size in bytes when clipped
    else 0, whether a newline ended it)."""
    raw = handle.readline(cap)
    if raw.endswith(b"\n") or len(raw) < cap:
        ended = raw.endswith(b"\n")
        return raw.removesuffix(b"\n").removesuffix(b"\r"), 0, ended
    size, ended = len(raw), False
    while rest := handle.readline(COUNT_CHUNK):
        ended = rest.endswith(b"\n")
        size += len(rest) - ended
        if ended:
            break
    return raw, size if size > len(raw) else 0, ended


def _count_rest(handle: BinaryIO, line_ended: bool) -> int:
    """Lines after the current one, counted in big chunks."""
    count, last = 0, b"\n" if line_ended else b""
    while chunk := handle.read(COUNT_CHUNK):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    if last and last != b"\n" and line_ended:
        count += 1  # a last line without a newline
    return count


def _decode(raw: bytes, size: int, line_chars: int, number: int, page: Page) -> Line:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if size and exc.reason == "unexpected end of data":  # the clip cut a character in two
            text = raw[: exc.start].decode("utf-8", "replace")
        else:
            page.valid_utf8 = False
            text = raw.decode("utf-8", "replace")
    if size or len(text) > line_chars:
        return Line(number, text[:line_chars], size or len(raw))
    return Line(number, text)


def render(rel: str, page: Page, offset: int) -> str:
    header = f"{rel}: lines {offset}-{page.last} of {page.total}"
    if clipped := page.clipped:
        named = ", ".join(f"{line.number} ({line.size:,} bytes)" for line in clipped[:CLIPPED_NAMED])
        more = f" and {len(clipped) - CLIPPED_NAMED} more" if len(clipped) > CLIPPED_NAMED else ""
        header += f"; long lines shown clipped to their first {len(clipped[0].text):,} chars: line {named}{more}"
    if not page.valid_utf8:
        header += " (not valid UTF-8: undecodable bytes shown as \ufffd)"
    body = [
        f"{line.number:>6}\t{line.text}"
        + (f" [line clipped: showed {len(line.text)} chars of {line.size} bytes]" if line.size else "")
        for line in page.lines
    ]
    text = header + "\n" + "\n".join(body)
    if page.last < page.total:
        why = " (the output limit)" if page.out_of_room else ""
        text += f"\n[truncated: showed lines {offset}-{page.last} of {page.total}{why}; continue with offset={page.last + 1}]"
    if clipped:
        text += f"\n[to read past a clipped line's first chars: bash `sed -n {clipped[0].number}p {rel} | cut -c {len(clipped[0].text) + 1}-`]"
    return text


def summary(page: Page, offset: int) -> str:
    clipped = f", {len(page.clipped)} clipped" if page.clipped else ""
    return f"lines {offset}-{page.last} of {page.total}{clipped}"
