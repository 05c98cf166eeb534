"""Redirections: which ones only read, and what bash does with their words.

Output may go only to /dev/null or an already open descriptor. Input may
come from a fixed path (not a network pseudo-file) or a process substitution.
Here-documents are checked against bash's own rules for where the body ends,
because tree-sitter can disagree, and an unquoted body may only expand what
the parser saw. A redirection followed by more words (``sort >/dev/null -o
out``) hands those words back: bash passes them to the command.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from cast.safety.blocked import Blocked
from cast.safety.path_operands import note_input
from cast.safety.words import Context, Word, resolve

if TYPE_CHECKING:
    from tree_sitter import Node

_OUTPUT_OPS = frozenset({">", ">>", "&>", "&>>", ">|"})
_FD = re.compile(r"(?:[0-9]-?|-)\Z")  # single digits: no inherited high descriptors
_HEREDOC_OPENERS = re.compile(rb"\$[({\[]|`")
_HEREDOC_DELIM = re.compile(r"'([^']*)'|\"([A-Za-z0-9_.-]*)\"|\\([A-Za-z0-9_.-]+)|([A-Za-z0-9_.-]+)")
REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


class Walker(Context, Protocol):
    """The statement walker, as redirections see it."""

    source: bytes

    def statement(self, node: Node) -> None: ...


def check_redirect(w: Walker, node: Node) -> list[tuple[int, Word]]:
    """Check one redirection; return words bash would pass as arguments."""
    if node.type == "file_redirect":
        return _file_redirect(w, node)
    if node.type == "heredoc_redirect":
        return _heredoc(w, node)
    if node.type == "herestring_redirect":
        for kid in node.children:
            if kid.is_named and kid.type != "file_descriptor":
                resolve(kid, w)
        return []
    raise Blocked(f"unsupported redirection {w.text(node)!r}")


def _file_redirect(w: Walker, node: Node) -> list[tuple[int, Word]]:
    op = ""
    dests: list[Node] = []
    for i, kid in enumerate(node.children):
        field = node.field_name_for_child(i)
        if field == "descriptor":
            continue
        if field == "destination":
            dests.append(kid)
        elif not kid.is_named:
            op = kid.type
        else:
            raise Blocked(f"unsupported redirection {w.text(node)!r}")
    words = [resolve(d, w) for d in dests]
    target = words[0] if words and op not in (">&-", "<&-") else None
    shown = target.source if target else ""
    if op == "<":
        if target is None:
            raise Blocked("input redirection without a file")
        if dests[0].type != "process_substitution":
            if not target.static:
                raise Blocked(f"input redirection from {shown!r} is expanded at run time")
            if target.value.startswith(("/dev/tcp/", "/dev/udp/")):
                raise Blocked(f"input redirection from {shown!r} opens a network connection")
            note_input(target)
    elif op in _OUTPUT_OPS:
        if not (target and target.static and target.value == "/dev/null"):
            raise Blocked(f"output redirection to {shown!r} (only /dev/null is allowed)")
    elif op in (">&", "<&"):
        ok = target is not None and target.static and (_FD.match(target.value) or (op == ">&" and target.value == "/dev/null"))
        if not ok:
            raise Blocked(f"redirection {op}{shown} writes to a file (only /dev/null or a descriptor)")
    elif op not in (">&-", "<&-"):
        raise Blocked(f"unsupported redirection operator {op!r}")
    skip = 0 if target is None else 1
    return [(d.start_byte, word) for d, word in zip(dests[skip:], words[skip:])]


def _heredoc(w: Walker, node: Node) -> list[tuple[int, Word]]:
    kids = node.children
    if not kids or kids[0].type not in ("<<", "<<-"):
        raise Blocked(f"unsupported here-document {w.text(node)[:20]!r}")
    tabs = kids[0].type == "<<-"  # bash strips leading tabs from the body and the delimiter line
    start = body = end = None
    for kid in kids[1:]:
        kind = kid.type
        if kind == "heredoc_start":
            start = kid
        elif kind == "heredoc_body":
            body = kid
        elif kind == "heredoc_end":
            end = kid
        elif kind == "file_redirect":
            if check_redirect(w, kid):
                raise Blocked("words after a redirection inside a here-document line")
        elif kind in REDIRECTS:
            raise Blocked("several here-documents on one command are not supported")
        else:
            w.statement(kid)
    if start is None or end is None:
        raise Blocked("incomplete here-document")
    raw = w.text(start)
    m = _HEREDOC_DELIM.fullmatch(raw)
    if not m:
        raise Blocked(f"unsupported here-document delimiter {raw!r}")
    delim = next(g for g in m.groups() if g is not None)
    quoted = m.group(4) is None
    _heredoc_layout(w, body, end, delim, tabs=tabs)
    if body is not None and not quoted:
        if b"\\\n" in w.source[body.start_byte : body.end_byte]:
            raise Blocked("backslash-newline in an unquoted here-document joins lines")
        try:
            _heredoc_expansions(w, body)
        except Blocked as blocked:
            raise Blocked(f"<<- here-document: {blocked.reason}" if tabs else blocked.reason) from None
    return []


def _heredoc_layout(w: Walker, body: Node | None, end: Node, delim: str, *, tabs: bool = False) -> None:
    """The body must end where bash ends it: the first line equal to delim (after its leading
    tabs, for ``<<-``)."""
    src = w.source
    if w.text(end) != delim:
        raise Blocked("here-document end does not match its delimiter")
    first = _line_start(src, body.start_byte if body is not None else end.start_byte, tabs)
    line_start = _line_start(src, end.start_byte, tabs)
    if first == 0 or src[first - 1 : first] != b"\n" or src[line_start - 1 : line_start] != b"\n":
        raise Blocked("here-document body is not where bash expects it")
    after = src[end.end_byte : end.end_byte + 1]
    if after not in (b"", b"\n"):
        raise Blocked("here-document delimiter line has trailing text")
    lines = src[first:line_start].split(b"\n")
    if delim.encode() in (line.lstrip(b"\t") if tabs else line for line in lines):
        raise Blocked("here-document body contains its delimiter line")


def _line_start(src: bytes, pos: int, tabs: bool) -> int:
    """Back over the leading tabs ``<<-`` strips (the parser may start a node after them)."""
    while tabs and pos > 0 and src[pos - 1 : pos] == b"\t":
        pos -= 1
    return pos


def _heredoc_expansions(w: Walker, body: Node) -> None:
    """Unquoted bodies are expanded; every place bash could expand must be
    one the parser saw and we checked."""
    covered: list[tuple[int, int]] = []
    for kid in body.children:
        kind = kid.type
        if kind == "heredoc_content":
            continue
        if kind in ("simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"):
            resolve(kid, w)
            covered.append((kid.start_byte, kid.end_byte))
        else:
            raise Blocked(f"unsupported syntax in here-document: {w.text(kid)[:40]!r}")
    base = body.start_byte
    for m in _HEREDOC_OPENERS.finditer(w.source[body.start_byte : body.end_byte]):
        pos = base + m.start()
        if not any(lo <= pos < hi for lo, hi in covered):
            raise Blocked("here-document body has an expansion the checker cannot parse")
