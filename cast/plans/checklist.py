"""The plan's checklist: GFM task items read from Markdown and ticked in place.

The plan file belongs to the user as much as to cast: they may edit it by hand between runs or
while one is going. So ticking never re-renders the file. It flips the one checkbox byte and leaves
every other byte alone, and when the file changed under us it works out which item the caller meant
before touching anything, and says what changed so the model can adjust.

What counts as an item:
- `-`, `*`, `+`, `1.` or `1)` bullets, then `[ ]`, `[x]` or `[X]`, then a space, tab or end of line;
  leading spaces/tabs give the nesting depth (tabs stop every 4 columns);
- not inside fenced code (``` or ~~~; the closing fence uses the same character and is at least as
  long; an unclosed fence runs to the end). Fences are recognised at any indentation, because a
  fence inside a list item is indented by the item's own indentation;
- not inside the front matter (a first line `---` up to the next `---`);
- not inside blockquotes: GFM would render `> - [ ] x` as a checkbox, but in a plan a quote is quoted
  material (an issue's own checklist, a user's words), not a step for cast to carry out.
Lines end at `\\n`; a `\\r` before it belongs to the line ending, so CRLF files work unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from pathlib import Path

from cast.fsutil import atomic_write
from cast.text import plural

_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])[ \t]+\[([ xX])\](?:[ \t]|$)")
_BULLET = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_REWORD_RATIO = 0.6


class PlanError(Exception):
    """A plan file cannot be written, found or ticked; the message says what to do about it."""


@dataclass(frozen=True)
class Item:
    number: int
    line: int
    text: str
    checked: bool
    depth: int
    offset: int


def front_matter_lines(lines: list[str]) -> int:
    """How many leading lines form the front matter block (0 when there is none or it is unclosed:
    an unclosed `---` is a thematic break, and treating it as front matter would hide the plan)."""
    if not lines or lines[0].lstrip("\ufeff").rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return index + 1
    return 0


def _byte_len(text: str) -> int:
    # PlanFile decodes with surrogateescape, so undecodable bytes count as the one byte they were.
    try:
        return len(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass"))


def _clean(text: str) -> str:
    """An item's text as the model, the session and the terminal get it: undecodable bytes become
    U+FFFD. (Offsets are counted on the surrogate-escaped text, so they stay byte-exact.)"""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that did not come from decoding bytes
        return text.encode("utf-8", "replace").decode("utf-8")


def _column(indent: str) -> int:
    column = 0
    for char in indent:
        column = column + 4 - column % 4 if char == "\t" else column + 1
    return column


def parse(text: str) -> list[Item]:
    """Every task item in document order, nested ones included, numbered from 1."""
    lines = text.split("\n")
    skip = front_matter_lines(lines)
    items: list[Item] = []
    fence: tuple[str, int] | None = None
    open_lists: list[int] = []  # indentation columns of the enclosing list items
    start = 0
    for index, raw in enumerate(lines):
        line_start, start = start, start + _byte_len(raw) + 1
        if index < skip:
            continue
        line = raw[:-1] if raw.endswith("\r") else raw
        body = line.lstrip(" \t")
        fence_match = _FENCE.match(body)
        if fence is not None:
            if (
                fence_match
                and fence_match[1][0] == fence[0]
                and len(fence_match[1]) >= fence[1]
                and not fence_match[2].strip(" \t")
            ):
                fence = None
            continue
        if fence_match and not (fence_match[1][0] == "`" and "`" in fence_match[2]):
            fence = (fence_match[1][0], len(fence_match[1]))
            continue
        if not body:
            continue
        indent = line[: len(line) - len(body)]
        column = _column(indent)
        while open_lists and open_lists[-1] >= column:
            open_lists.pop()
        match = _ITEM.match(body)
        if match:
            at = len(indent) + match.start(1)
            items.append(
                Item(
                    number=len(items) + 1,
                    line=index,
                    text=_clean(body[match.end() :].strip()),
                    checked=match[1] != " ",
                    depth=len(open_lists),
                    offset=line_start + _byte_len(line[:at]),
                )
            )
        if match or _BULLET.match(body):
            open_lists.append(column)
    return items


_FIELD = re.compile(r"^[A-Za-z_][\w-]*:(?:\s|$)")


def validate(text: str) -> None:
    """Refuse what would silently go wrong later, naming the line: front matter opened and never
    closed (it would be read as plan text) and checklist items with no text (nothing to do, nothing
    to judge a tick by)."""
    lines = text.split("\n")
    if lines and lines[0].lstrip("\ufeff").rstrip() == "---" and not front_matter_lines(lines):
        if len(lines) > 1 and _FIELD.match(lines[1]):
            raise PlanError("line 1: the front matter opened with `---` is never closed; add a `---` line after its last field")
    for item in parse(text):
        if not item.text:
            raise PlanError(f"line {item.line + 1}: an empty checklist item; give it text or remove it")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _pair(old: list[Item], new: list[Item]) -> tuple[dict[int, int], set[int]]:
    """Map old item indexes to new ones, and say which of them moved.

    1. The longest order-preserving alignment of identical texts (difflib) pairs unchanged items.
    2. A left-over old item whose exact text is still among the left-over new items was moved:
       pair it with the nearest such item (closest pairs first, so duplicates pair sensibly).
    3. Within each stretch the alignment marks as replaced, the left-over items were reworded:
       with as many old as new items they pair by position; otherwise each pairs with its most
       similar counterpart if the texts are at least 60% alike.
    Whatever is left was removed (old) or added (new).
    """
    a, b = [item.text for item in old], [item.text for item in new]
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    pairs = {blk.a + k: blk.b + k for blk in matcher.get_matching_blocks() for k in range(blk.size)}
    taken = set(pairs.values())
    moved: set[int] = set()
    candidates = sorted(
        (abs(i - j), i, j) for i in range(len(a)) if i not in pairs for j in range(len(b)) if j not in taken and a[i] == b[j]
    )
    for _, i, j in candidates:
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)
            moved.add(i)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        olds = [i for i in range(i1, i2) if i not in pairs]
        news = [j for j in range(j1, j2) if j not in taken]
        if len(olds) == len(news):
            scored = [(1.0, i, j) for i, j in zip(olds, news)]
        else:
            scored = sorted(
                ((SequenceMatcher(None, a[i], b[j]).ratio(), i, j) for i in olds for j in news),
                key=lambda s: (-s[0], abs(s[1] - s[2])),
            )
        for ratio, i, j in scored:
            if ratio >= _REWORD_RATIO and i not in pairs and j not in taken:
                pairs[i] = j
                taken.add(j)
    return pairs, moved


def _quote(text: str, limit: int = 70, start: int = 0) -> str:
    """The text, quoted; a long one cut to `limit` characters around `start` (where a rewording
    begins), so a cut never hides the words that changed."""
    if len(text) <= limit:
        return f'"{text}"'
    begin = max(0, min(start - limit // 3, len(text) - limit))
    head, tail = ("…" if begin else ""), ("…" if begin + limit < len(text) else "")
    return f'"{head}{text[begin : begin + limit]}{tail}"'


def _reworded(old: str, new: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    return f"{_quote(old, start=at)} -> {_quote(new, start=at)}"


def _describe(old: list[Item], new: list[Item], pairs: dict[int, int], moved: set[int]) -> list[str]:
    """Say what a human changed, in terms the model can act on (item numbers are task ids)."""
    notes = [f"item {i + 1} removed: {_quote(item.text)}" for i, item in enumerate(old) if i not in pairs]
    back = {j: i for i, j in pairs.items()}
    for j, item in enumerate(new):
        if j not in back:
            notes.append(f"item {j + 1} added: {_quote(item.text)}")
            continue
        i = back[j]
        before = old[i]
        if before.text != item.text:
            notes.append(f"item {i + 1} reworded: {_reworded(before.text, item.text)}")
        if i in moved:
            notes.append(f"item {_quote(item.text)} moved from position {i + 1} to {j + 1}")
        if before.checked != item.checked:
            notes.append(f"item {j + 1} {_quote(item.text)} {'ticked' if item.checked else 'unticked'} by hand")
        if before.depth != item.depth:
            notes.append(f"item {j + 1} {_quote(item.text)} re-indented to depth {item.depth}")
    shifted = [f"{i + 1}->{j + 1}" for i, j in sorted(pairs.items()) if i != j and i not in moved]
    if shifted:
        shown = ", ".join(shifted[:12]) + (", …" if len(shifted) > 12 else "")
        notes.append(f"items renumbered: {shown}")
    return notes


def describe_changes(old: list[Item], new: list[Item]) -> list[str]:
    """What changed between two versions of a checklist, item by item ([] when nothing did)."""
    pairs, moved = _pair(old, new)
    return _describe(old, new, pairs, moved)


class PlanFile:
    """A plan file as last loaded, ticked in place. Writes go to the file a symlink points to."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._raw = self._read()
        self.items: list[Item] = parse(_decode(self._raw))
        self.last_set: Item | None = None  # the item the last set_checked resolved to, after re-mapping

    def _read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            raise PlanError(f"plan file {self.path} no longer exists") from None
        except OSError as exc:
            raise PlanError(f"cannot read plan file {self.path}: {exc.strerror or exc}") from None

    def changed_on_disk(self) -> bool:
        # Compare bytes, not mtimes: a quick hand edit can land within the same mtime tick.
        try:
            return self._read() != self._raw
        except PlanError:
            return True

    def remaining(self) -> list[Item]:
        return [item for item in self.items if not item.checked]

    def reload(self) -> list[str]:
        """Re-read the file; describe what changed since the last load ([] if nothing did)."""
        notes, _ = self._sync(self._read())
        return notes

    def _sync(self, raw: bytes) -> tuple[list[str], dict[int, int]]:
        if raw == self._raw:
            return [], {i: i for i in range(len(self.items))}
        old, new = self.items, parse(_decode(raw))
        pairs, moved = _pair(old, new)
        self._raw, self.items = raw, new
        notes = _describe(old, new, pairs, moved)
        return notes or ["the plan's text was edited (checklist unchanged)"], pairs

    def set_checked(self, number: int, checked: bool = True) -> list[str]:
        """Tick (or untick) item `number` as the caller last saw it; return what changed on disk.

        If the file changed since the last load it is re-read first and `number` is re-mapped to
        the same item in the new text (see `_pair`); if that item is gone, PlanError says so and
        lists the changes. The file is otherwise left byte for byte as it was.
        """

        if not 1 <= number <= len(self.items):
            raise PlanError(f"no checklist item {number}: {self.path} has {plural(len(self.items), 'item')}")
        before = self.items[number - 1]
        notes, pairs = self._sync(self._read())
        if number - 1 not in pairs:
            raise PlanError(
                f"item {number} ({_quote(before.text)}) is no longer in {self.path}; it was changed by hand: " + "; ".join(notes)
            )
        index = pairs[number - 1]
        item = self.items[index]
        if item.checked != checked:
            data = bytearray(self._raw)
            if bytes(data[item.offset : item.offset + 1]) not in (b" ", b"x", b"X"):
                raise PlanError(f"internal error: no checkbox at byte {item.offset} of {self.path}")
            data[item.offset] = ord("x" if checked else " ")
            atomic_write(self.path, bytes(data))
            self._raw = bytes(data)
            self.items = [*self.items[:index], replace(item, checked=checked), *self.items[index + 1 :]]
        self.last_set = self.items[index]
        return notes
