"""Text shown to people and models: counts in words, long text clipped with a visible marker, a
tool call in one line, and text made safe for a terminal. One helper for each, so every part of
cast says these things alike."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

CALL_KEYS = ("pattern", "path", "command", "name", "id", "task")  # the argument that identifies a call


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files`: observations are read by people too."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def tokens(count: int) -> str:
    """`850`, `12.3k`, `200k`, `1M`: token counts and limits, short enough for a toolbar."""
    for size, unit in ((1_000_000, "M"), (1000, "k")):
        if count >= size:
            return f"{count // size}{unit}" if count % size == 0 else f"{count / size:.1f}{unit}"
    return str(count)


def clip(text: str, limit: int) -> str:
    """Keep head and tail of long text with an explicit marker; never truncate silently."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    marker = f"\n[truncated: showed {limit} of {len(text)} chars]\n"
    return text[:head] + marker + text[len(text) - tail :]


def one_line(text: str, limit: int) -> str:
    """Whitespace folded into one line, cut at `limit` with an ellipsis that says how long it was."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + f"… [{len(text)} chars]"


def call_label(name: str, arguments: Any, limit: int = 100) -> str:
    """`read_file src/app.py`: the one argument a reader needs to recognise the call."""
    if isinstance(arguments, dict):
        for key in CALL_KEYS:
            if key in arguments:
                value = " ".join(str(arguments[key]).split())
                if key == "pattern" and arguments.get("path") not in (None, "", "."):  # what is sought, then where
                    value += " in " + " ".join(str(arguments["path"]).split())
                return terminal_safe(f"{name} {value[:limit]}" + ("…" if len(value) > limit else ""))
    return terminal_safe(name)


# Control characters a terminal acts on instead of showing: C0 but tab and newline, DEL, C1 (a
# terminal may read U+009B as CSI), and the bidirectional overrides and isolates that make text
# read in another order than it runs.
_CONTROLS = re.compile("\r(?!\n)|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return "^" + chr(code ^ 0x40)  # ^[ for ESC, ^G for BEL, ^M for a lone carriage return
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


_PATH_QUOTED = re.compile('[\x00-\x1f\x7f-\x9f"\\\\\u2028\u2029]')
_PATH_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def path_label(path: str) -> str:
    """A file name as one line, quoted the way git quotes one (`"a\\nb\\033.txt"`) when it holds a
    newline, a control character, a quote or a backslash: a name with a newline in it would
    otherwise print as two lines, and could pass for a line of cast's own report."""
    if not _PATH_QUOTED.search(path):
        return path
    return '"' + _PATH_QUOTED.sub(lambda m: _PATH_ESCAPES.get(m[0]) or f"\\{ord(m[0]):03o}", path) + '"'


_BLANK_RUN = re.compile(r"(?:\n[ \t\f\v]*){3,}")
_SPACE_RUN = re.compile(r"[ \t]{12,}")


def approval_text(command: str) -> str:
    """A command as a user approving it must see it: runs of blank lines and of spaces shown as
    what they are, so neither can push the part that matters out of sight (above the screen, or
    past its right edge), then made terminal-safe."""
    command = _BLANK_RUN.sub(lambda m: f"\n[{m[0].count(chr(10)) - 1} blank lines]\n", command)
    command = _SPACE_RUN.sub(lambda m: f" [{len(m[0])} blanks] ", command)
    return terminal_safe(command)


def command_lines(command: str) -> int:
    """How many lines the approval question shows of `command`: past a screenful, the question says
    so where it is answered, so nobody approves the part on the screen thinking it is all."""
    return approval_text(command).count("\n") + 1


def terminal_safe(text: str) -> str:
    """`text` as characters only: every control character shown visibly (`^[`, `^G`, `\\x9b`,
    `\\u202e`), so text that did not come from cast's own styling (the model's words, a file, a
    command's output, a plan's front matter, a session's metadata) can never move the cursor, set
    the window title, write the clipboard (OSC 52) or clear the screen. Each character is replaced
    on its own, so an escape sequence split across streamed pieces is harmless in each piece.
    Newlines and tabs stay; a carriage return stays only before a newline."""
    return _CONTROLS.sub(_visible, text) if text else text


def echo(*values: object) -> None:
    """`print`, for lines that carry text from outside cast (plans, sessions, reports, paths)."""
    print(*(terminal_safe(str(value)) for value in values))


DIFF_COLORS = {"+": "32", "-": "31", "@": "36"}  # cast's own colours: added, removed, hunk headers


def colored_diff(diff: str) -> None:
    """Print a unified diff for a terminal: its text made safe first (it quotes files), then
    coloured by cast, line by line, so the only escape sequences are cast's."""
    for line in terminal_safe(diff).split("\n"):
        code = "1" if line.startswith(("+++ ", "--- ", "diff ")) else DIFF_COLORS.get(line[:1])
        print(f"\x1b[{code}m{line}\x1b[0m" if code else line)


def slugify(task: str, limit: int = 40) -> str:
    """A file-name-safe summary of the task: ASCII, lowercase, dash-separated, cut at a word."""
    ascii_text = unicodedata.normalize("NFKD", task).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > limit:
        cut = slug[: limit + 1]
        slug = cut[: cut.rfind("-")] if "-" in cut[limit // 2 :] else slug[:limit]
        slug = slug.strip("-")
    return slug or "task"


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Columns padded to their widest cell; the last one is not padded (it may be long)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    return ["  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths)), row[-1]]).rstrip() for row in [headers, *rows]]
