"""Reserved words count only as words of their own: a glued one is part of a command name.

bash recognises ``[[``, ``{``, ``!``, ``if``, ``do`` and the other reserved words only when the
word is exactly that, ended by a blank or a metacharacter (``;&|()<>``). ``[[x/evil == b ]]``
is therefore the program ``[[x/evil`` with three arguments, and a repository that holds a
directory ``[[x`` with a file ``evil`` has it run. tree-sitter reads the same text as the
``[[`` keyword followed by a word, and ``[x/evil ]`` as a test, so the walk would judge a
condition where bash executes a file. Each keyword token the parser produced is checked here
against the text around it; a glued one is the command name bash sees, which is not on the list.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cast.safety.blocked import Blocked

if TYPE_CHECKING:
    from tree_sitter import Node

# Tokens that are keywords to tree-sitter but words to bash unless they stand alone.
_RESERVED = frozenset(
    {
        *("[[", "]]", "{", "}", "!", "if", "then", "elif", "else", "fi", "do", "done"),
        *("while", "until", "for", "in", "case", "esac", "select", "function", "time", "coproc"),
    }
)
_BRACKETS = frozenset({"[", "]"})  # the `[` command, which tree-sitter reads as a test
# Parents whose `{`, `}`, `[`, `]` or `!` are parameter or subscript syntax, not reserved words.
_WORD_SYNTAX = frozenset({"expansion", "subscript", "brace_expression", "arithmetic_expansion", "simple_expansion"})
_ENDS_WORD = frozenset(b" \t\n;&|()<>`")  # a backquote ends or starts a command parsed on its own
_GLUED = re.compile(rb"[^ \t\n;&|()<>`]*")


def check_reserved_words(root: Node, source: bytes) -> None:
    """Refuse a keyword token that bash would read as part of a longer word."""
    stack = [root]
    while stack:
        node = stack.pop()
        kids = node.children
        if not kids:
            continue
        for kid in kids:
            if kid.children or kid.is_named:
                stack.append(kid)
                continue
            kind = kid.type
            if node.type in _WORD_SYNTAX:
                continue
            if kind in _RESERVED or (kind in _BRACKETS and node.type == "test_command"):
                _stands_alone(kid, source)


def _stands_alone(token: Node, source: bytes) -> None:
    start, end = token.start_byte, token.end_byte
    before = source[start - 1] if start > 0 else None
    after = source[end] if end < len(source) else None
    if after is not None and after not in _ENDS_WORD:
        word = _word_at(source, start)
        keyword = token.type
        raise Blocked(
            f"{word}: not on the read-only command list (bash reads {word!r} as one word, a command name: "
            f"{keyword} is a keyword only as a word of its own)"
        )
    if before is not None and before not in _ENDS_WORD:
        raise Blocked(f"{token.type!r} is glued to the word before it, so bash does not read it as a keyword")


def _word_at(source: bytes, start: int) -> str:
    match = _GLUED.match(source, start)
    end = match.end() if match else start + 1
    return source[start:end].decode("utf-8", "replace")
