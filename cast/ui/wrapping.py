"""Where a line too long for the terminal breaks: at spaces, and inside a word longer than the line
(a path, mostly) after a `/`, never in the middle of a name. `.cast/plans/2026-12-02-fix-add/plan.md`
at 40 columns becomes `.cast/plans/` and `2026-12-02-fix-add/plan.md`, not `…fix-a` and `dd/plan.md`;
a word with no `/` that fits nowhere is still cut at the width (nothing is dropped).

rich lays out every paragraph through `rich.text.divide_line`; `install` puts `divide_line` below in
its place once, before cast's first console is made, so the model's Markdown, tool lines, reports and
plans all break this way. The REPL's own question text is wrapped by `wrap` here, by the same rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Divide = Callable[[str, int, bool], list[int]]
_installed: list[Divide] = []  # rich's own divide_line, once install() ran


def better_cut(text: str, start: int, cut: int) -> int:
    """`cut` (an offset inside a word of `text` whose line starts at `start`) moved back to just
    after the word's last `/` before it, when there is one; else `cut` unchanged."""
    if cut <= start or cut >= len(text) or text[cut - 1].isspace() or text[cut].isspace():
        return cut  # at a space, or the end: not inside a word
    word = start
    for i in range(cut - 1, start - 1, -1):
        if text[i].isspace():
            word = i + 1
            break
    slash = text.rfind("/", word, cut - 1)
    return slash + 1 if slash >= word and slash + 1 > start else cut


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """rich's `divide_line` (the offsets a line breaks at to fit `width`), a long word folded after
    a `/` where it has one."""
    original = _installed[0]
    if not fold:
        return original(text, width, fold)
    breaks: list[int] = []
    offset = 0
    while True:
        found = original(text[offset:], width, fold)
        if not found:
            return breaks
        cut = better_cut(text, offset, offset + found[0])
        breaks.append(cut)
        offset = cut


def install() -> None:
    """Make rich break long words after a `/` (idempotent; imports rich.text)."""
    if _installed:
        return
    import rich.text

    # rich.text's own name for rich._wrap's divide_line: Text.wrap looks it up there
    _installed.append(rich.text.divide_line)  # type: ignore[attr-defined]
    rich.text.divide_line = divide_line  # type: ignore[attr-defined]


def wrap(text: str, width: int) -> str:
    """Plain text wrapped at spaces to `width`, each line on its own; a word longer than a line
    breaks after a `/` where it can, else at the width."""
    width = max(10, width)
    out: list[str] = []
    for line in text.split("\n"):
        words = line.split()
        if not words:
            out.append("")
            continue
        row = ""
        words[0] = line[: len(line) - len(line.lstrip())] + words[0]  # an indented line keeps its indent
        for word in words:
            if row and len(row) + 1 + len(word) <= width:
                row += " " + word
                continue
            if row and len(word) <= width:
                out.append(row)
                row = word
                continue
            rest = (row + " " + word) if row and len(row) + 2 <= width else word
            if row and rest is word:
                out.append(row)
            while len(rest) > width:
                cut = better_cut(rest, 0, width)
                out.append(rest[:cut].rstrip())
                rest = rest[cut:]
            row = rest
        out.append(row)
    return "\n".join(out)


def hanging(text: str, style: str = "") -> Any:
    """Indented plain text (a report) as rich lines that wrap under their own indent, so a long
    item or evidence line continues where it started rather than at the margin. Imports rich."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    rows = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        rows.append(Padding(Text(body, style=style), (0, 0, 0, len(line) - len(body))))
    return Group(*rows)
