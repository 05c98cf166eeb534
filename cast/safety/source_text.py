"""The command's text before and around the parse: tree-sitter is not bash, so whatever the
parser could read differently from bash is refused here. Control characters and non-ASCII blanks
(word characters to bash, whitespace to the scanner), non-ASCII bytes (handed to the parser as
`x`, which bash treats alike), and any text the parser skipped between tokens, including a line
continuation that joins two words.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cast.safety.blocked import Blocked

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_CHARS = 10_000

# Control characters and non-ASCII blanks: tree-sitter treats some as
# whitespace where bash sees word characters.
_BAD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_GAP = re.compile(rb"(?:[ \t\n]|\\\n)*\Z")
_NON_ASCII = re.compile(rb"[\x80-\xff]")


def precheck(command: str) -> None:
    if len(command) > MAX_CHARS:
        raise Blocked(f"command is longer than {MAX_CHARS} characters")
    if not command.strip():
        raise Blocked("empty command")
    if _SURROGATES.search(command):
        raise Blocked("command contains unpaired surrogate characters")
    bad = _BAD_CHARS.search(command)
    if bad:
        raise Blocked(f"control or unusual whitespace character {bad.group()!r}")


def ascii_stand_in(source: bytes) -> bytes:
    """Replace each non-ASCII byte with ``x`` before parsing.

    The tree-sitter-bash scanner passes characters to ``isalpha``/``isdigit``,
    which are undefined (and can crash) beyond one byte. Bash treats non-ASCII
    characters as plain word characters, as it does ``x``, and byte offsets
    stay the same, so the tree fits the real text, which is what gets read.
    """
    return source if source.isascii() else _NON_ASCII.sub(b"x", source)


def check_gaps(root: Node, source: bytes) -> None:
    """Only whitespace may lie between tokens; anything else the parser skipped."""
    if not _GAP.match(source[: root.start_byte]) or not _GAP.match(source[root.end_byte :]):
        raise Blocked("text outside the parsed command")
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_body":
            continue
        kids = node.children
        if not kids:
            continue
        pos = node.start_byte
        for kid in kids:
            if kid.start_byte > pos:
                _check_gap(source[pos : kid.start_byte])
            pos = max(pos, kid.end_byte)
            stack.append(kid)
        if node.end_byte > pos:
            _check_gap(source[pos : node.end_byte])


def _check_gap(gap: bytes) -> None:
    if not _GAP.match(gap):
        raise Blocked(f"unparsed text {gap.decode('utf-8', 'replace')!r}")
    if b"\\\n" in gap and not gap.replace(b"\\\n", b""):
        # bash deletes backslash-newline, joining the tokens on both sides.
        raise Blocked("a line continuation joins two words here; add a space before the backslash")
