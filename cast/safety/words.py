"""Resolve a bash word to the argument bash will pass, or refuse.

Rules judge argv, so every word must be seen after quote removal, backslash
escapes and concatenation, exactly as the program receives it (``'r'm`` is
``rm``, ``s\\ort`` is ``sort``, ``"-o"`` is ``-o``). Expansions whose result
cannot be computed stay "dynamic", described by what is still certain: can the
piece split into several arguments, can it start with ``-``. Rewrites the
checker does not model (brace expansion, ANSI-C quoting, unusual parameter
expansions, text the parser left unparsed) are refused outright, because a
wrong guess about a value is a wrong verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from cast.safety.arithmetic import check_literal_arithmetic
from cast.safety.blocked import Blocked

if TYPE_CHECKING:
    from tree_sitter import Node


class Context(Protocol):
    """What resolution needs from the walker: the real text of a node (the
    parser may have seen a stand-in) and a check for nested commands."""

    def text(self, node: Node) -> str: ...

    def slice(self, start: int, end: int) -> str: ...

    def substitution(self, node: Node) -> None: ...

    def loop_number(self, name: str) -> bool: ...


DYN = "\x00"  # one character standing for an expansion in a word

_GLOB_CHARS = frozenset("*?[")
# Characters tree-sitter would have turned into syntax; seeing them raw in a
# word leaf means parser and bash may disagree about the word.
_SUSPICIOUS = frozenset("`;&|<>()'\"")


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word after resolution.

    ``value`` is exact when ``static``; otherwise dynamic parts appear as written.
    ``prefix`` is the text known to lead the value (empty if a dynamic part
    or pattern character comes first).
    """

    source: str
    value: str
    static: bool
    prefix: str
    splits: bool
    globs: bool
    safe_start: bool
    # What a path check needs to compute the value: per character, the character (``DYN`` for
    # an expansion), whether it was quoted, and what a dynamic one is: a variable's name, "~"
    # for a home directory, "" for anything else (command substitution, arithmetic, $@).
    pieces: tuple[tuple[str, bool, str], ...] = ()

    @property
    def fixed(self) -> bool:
        """Exactly one argument, whatever the run-time values."""
        return not self.splits and not self.globs

    @property
    def cannot_be_option(self) -> bool:
        """No argument produced from this word can start with ``-``."""
        return self.safe_start and not self.splits

    @staticmethod
    def literal(text: str) -> Word:
        return Word(text, text, True, text, False, False, not text.startswith("-"), tuple((c, True, "") for c in text))


class _Builder:
    """Collects characters with their quoting; dynamic pieces are one marker char."""

    __slots__ = ("chars", "quoted", "refs", "safe", "shown", "splits")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.quoted: list[bool] = []
        self.safe: list[bool] = []
        self.shown: list[str] = []
        self.refs: list[str] = []
        self.splits = False

    def lit(self, char: str, quoted: bool) -> None:
        self.chars.append(char)
        self.quoted.append(quoted)
        self.safe.append(False)
        self.shown.append(char)
        self.refs.append("")

    def dyn(self, shown: str, *, quoted: bool, splits: bool, safe: bool = False, var: str = "") -> None:
        self.chars.append(DYN)
        self.quoted.append(quoted)
        self.safe.append(safe)
        self.shown.append(shown.lstrip(" \t\n"))
        self.refs.append(var)
        self.splits = self.splits or splits

    def finish(self, source: str) -> Word:
        chars, quoted, safe = self.chars, self.quoted, self.safe
        _expand_tildes(chars, quoted, safe, self.refs)
        _refuse_braces(chars, quoted, source)
        globs = False
        prefix_end = -1
        for i, (c, q) in enumerate(zip(chars, quoted)):
            if c == DYN or (not q and c in _GLOB_CHARS):
                if prefix_end < 0:
                    prefix_end = i
                if c != DYN:
                    globs = True
        has_dyn = DYN in chars
        prefix = "".join(chars if prefix_end < 0 else chars[:prefix_end])
        if prefix:
            safe_start = not prefix.startswith("-")
        else:
            safe_start = bool(chars) and chars[0] == DYN and safe[0]
        static = not has_dyn and not globs
        value = "".join(self.shown) if has_dyn else "".join(chars)
        pieces = tuple(zip(chars, quoted, self.refs))
        return Word(source, value, static, prefix, self.splits, globs, safe_start, pieces)


def _expand_tildes(chars: list[str], quoted: list[bool], safe: list[bool], refs: list[str]) -> None:
    """Unquoted ``~`` at the start or after ``=``/``:`` becomes a home directory."""
    for i, c in enumerate(chars):
        if c != "~" or quoted[i]:
            continue
        if i == 0 or (chars[i - 1] in "=:" and not quoted[i - 1]):
            chars[i] = DYN
            safe[i] = True
            refs[i] = "~"


def _refuse_braces(chars: list[str], quoted: list[bool], source: str) -> None:
    """``{a,b}`` and ``{1..3}`` multiply a word into several arguments."""
    opened = -1
    for i, c in enumerate(chars):
        if quoted[i]:
            continue
        if c == "{" and opened < 0:
            opened = i
        elif c == "}" and opened >= 0:
            inner = "".join(chars[opened + 1 : i])
            if "," in inner or ".." in inner:
                raise Blocked(f"brace expansion in {source!r} is not supported")
            opened = -1


def resolve(node: Node, ctx: Context) -> Word:
    """Resolve an argument-like node; nested command substitutions go to ``ctx``."""
    builder = _Builder()
    _add(node, builder, ctx, last=True, whole=True, pattern=False)
    return builder.finish(ctx.text(node))


def resolve_pattern(node: Node, ctx: Context) -> Word:
    """Resolve a ``case`` or ``[[ == ]]`` pattern, where pattern syntax is data."""
    builder = _Builder()
    _add(node, builder, ctx, last=True, whole=True, pattern=True)
    return builder.finish(ctx.text(node))


# Word syntax bash would transform in ways the checker does not compute: refused, with the reason.
_REFUSED_SYNTAX = {
    "ansi_c_string": "ANSI-C quoting {!r} is not supported",
    "translated_string": "locale quoting {!r} is not supported",
    "brace_expression": "brace expansion in {!r} is not supported",
}


def _add(node: Node, b: _Builder, ctx: Context, *, last: bool, whole: bool, pattern: bool) -> None:
    kind = node.type
    if kind == "concatenation":
        kids = node.children
        for i, kid in enumerate(kids):
            _add(kid, b, ctx, last=last and i == len(kids) - 1, whole=False, pattern=pattern)
    elif kind in ("word", "number"):
        _unquoted(ctx.text(node), b, last=last)
    elif kind == "extglob_pattern" and pattern:
        text = ctx.text(node)
        if "(" in text or ")" in text:
            raise Blocked(f"extended glob pattern {text!r} is not supported")
        _unquoted(text, b, last=last)
    elif kind == "raw_string":
        _single_quoted(ctx.text(node), b)
    elif kind == "string":
        _double_quoted(node, b, ctx)
    elif kind in EXPANSIONS:
        _expansion(node, b, ctx, quoted=False)
    elif kind == "process_substitution":
        _process_substitution(node, b, ctx, whole=whole)
    elif kind == "$":
        if not last:
            raise Blocked("'$' followed by quoting ($\"...\") is not supported")
        b.lit("$", False)
    elif kind in _REFUSED_SYNTAX:
        raise Blocked(_REFUSED_SYNTAX[kind].format(ctx.text(node)))
    else:
        raise Blocked(f"unsupported word syntax ({kind}): {ctx.text(node)!r}")


def _single_quoted(text: str, b: _Builder) -> None:
    if len(text) < 2 or text[0] != "'" or text[-1] != "'":
        raise Blocked(f"malformed single-quoted string {text!r}")
    for c in text[1:-1]:
        b.lit(c, True)


def _process_substitution(node: Node, b: _Builder, ctx: Context, *, whole: bool) -> None:
    if not whole:
        raise Blocked(f"process substitution inside a word ({ctx.text(node)!r}) is not supported")
    if ctx.text(node).startswith(">("):
        raise Blocked(f"output process substitution {ctx.text(node)!r} can feed a writer")
    ctx.substitution(node)
    b.dyn(ctx.text(node), quoted=False, splits=False, safe=True)


def _unquoted(text: str, b: _Builder, *, last: bool) -> None:
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 >= n:
                raise Blocked(f"trailing backslash in {text!r}")
            if text[i + 1] != "\n":
                b.lit(text[i + 1], True)
            i += 2
            continue
        if c == "$":
            if i == n - 1 and last:
                b.lit("$", False)
                i += 1
                continue
            raise Blocked(f"unparsed expansion in {text!r}")
        if c in _SUSPICIOUS or c.isspace():
            raise Blocked(f"unexpected {c!r} in word {text!r}")
        b.lit(c, False)
        i += 1


EXPANSIONS = ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion")


def _expansion(node: Node, b: _Builder, ctx: Context, *, quoted: bool) -> None:
    """`$x`, `$(…)` and `$((…))` mean the same inside and outside double quotes, except that an
    unquoted command substitution's output is split into words."""
    if node.type in ("simple_expansion", "expansion"):
        _parameter(node, b, ctx, quoted=quoted)
        return
    if node.type == "command_substitution":
        ctx.substitution(node)
    else:
        check_literal_arithmetic(node, ctx)
    b.dyn(ctx.text(node), quoted=quoted, splits=node.type == "command_substitution" and not quoted)


def _double_quoted(node: Node, b: _Builder, ctx: Context) -> None:
    kids = node.children
    if len(kids) < 2 or kids[0].type != '"' or kids[-1].type != '"':
        raise Blocked(f"malformed double-quoted string {ctx.text(node)!r}")
    inner = kids[1:-1]
    pos = kids[0].end_byte
    for i, kid in enumerate(inner):
        if kid.start_byte > pos:
            _double_quoted_text(ctx.slice(pos, kid.start_byte), b)
        pos = kid.end_byte
        kind = kid.type
        if kind != "string_content":
            _double_quoted_text(_absorbed_blanks(ctx.text(kid)), b)
        if kind == "string_content":
            _double_quoted_text(ctx.text(kid), b)
        elif kind in EXPANSIONS:
            _expansion(kid, b, ctx, quoted=True)
        elif kind == "$" and i == len(inner) - 1:
            b.lit("$", True)
        else:
            raise Blocked(f"unsupported syntax ({kind}) inside {ctx.text(node)!r}")
    if kids[-1].start_byte > pos:
        _double_quoted_text(ctx.slice(pos, kids[-1].start_byte), b)
    _double_quoted_text(_absorbed_blanks(ctx.text(kids[-1])), b)


def _absorbed_blanks(text: str) -> str:
    """Inside double quotes the parser folds blanks that precede an expansion
    or the closing quote into that token's range; they belong to the value."""
    i = 0
    while i < len(text):
        if text[i] in " \t\n":
            i += 1
        elif text.startswith("\\\n", i):
            i += 2
        else:
            break
    return text[:i]


def _double_quoted_text(text: str, b: _Builder) -> None:
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                b.lit(text[i + 1], True)
            i += 2
            continue
        if c in "$`":
            raise Blocked(f'unparsed expansion in "{text}"')
        b.lit(c, True)
        i += 1


def _parameter(node: Node, b: _Builder, ctx: Context, *, quoted: bool) -> None:
    kids = node.children
    kinds = [k.type for k in kids]
    text = ctx.text(node)
    names = ("variable_name", "special_variable_name")
    if node.type == "simple_expansion" and len(kids) == 2 and kinds[1] in names:
        name = ctx.text(kids[1])
        length = False
    elif len(kids) == 3 and kinds[0] == "${" and kinds[1] in names and kinds[2] == "}":
        name = ctx.text(kids[1])
        length = False
    elif len(kids) == 4 and kinds[:2] == ["${", "#"] and kinds[2] == "variable_name" and kinds[3] == "}":
        name = ctx.text(kids[2])
        length = True
    else:
        raise Blocked(f"parameter expansion {text!r} is not supported (only $name, ${{name}} and ${{#name}})")
    if length:
        b.dyn(text, quoted=quoted, splits=False)
        return
    var = name if "variable_name" in kinds else ""
    b.dyn(text, quoted=quoted, splits=(not quoted) or name == "@", var=var)
