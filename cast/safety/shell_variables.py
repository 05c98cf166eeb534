"""Variables a command line sets for itself, and what the checker may assume about them.

Three shapes of plain shell are read-only yet bind names: ``for x in 1 2`` (the values are the
literal words), ``while read -r f`` (each line of input, data from the tree) and ``out=$(git
status)`` (a command's output, data too). Binding a name is harmless when the name cannot steer
bash (lower-case names only: never ``PATH``, ``IFS``, ``BASH_ENV``) and when no later use of the
value is evaluated as code. The checker already treats every variable as unknown text, and the
places where bash evaluates text as code (arithmetic, ``[[ -eq ]]``, ``-v`` subscripts) accept
literals only, so a value read at run time is refused wherever it would matter.

A literal loop word is the one case where the value is known before the command runs: inside
its loop, ``test $x = 1`` with ``x`` from ``for x in 1 2`` is checked once per value. That check
waits until the whole line has been walked, because a ``read x`` or ``x=$(…)`` later in the
line (a loop's next round runs it first) makes the value data again.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from cast.safety.blocked import Blocked
from cast.safety.path_operands import SCOPE, Scope
from cast.safety.redirects import REDIRECTS, Walker, check_redirect
from cast.safety.words import DYN, Word, resolve

if TYPE_CHECKING:
    from tree_sitter import Node

NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")
_PLAIN_VALUE = re.compile(r"[^\s*?\[\]]+\Z")  # one field, no glob: an unquoted expansion of it is itself
_NUMBER = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|[0-9]+)\Z")  # what arithmetic reads as a number only
_MAX_VARIANTS = 64
# ``read``'s flags that change only how a line is split: the rest read a terminal (-e, -p, -s),
# another descriptor (-u) or fill an array (-a); none of those is a plain loop over lines.
_READ_FLAGS = {"-r": False, "-d": True}


def check_name(name: str, what: str) -> None:
    if not NAME.match(name):
        raise Blocked(f"{what} {name!r} must be a lower-case name (it could change PATH, IFS...)")


def read_command(w: Walker, node: Node) -> Node | None:
    """The ``read`` command a loop condition is, if it is one (redirected or not)."""
    if node.type == "redirected_statement":
        bodies = [k for i, k in enumerate(node.children) if node.field_name_for_child(i) == "body"]
        node = bodies[0] if len(bodies) == 1 else node
    if node.type != "command":
        return None
    for i, kid in enumerate(node.children):
        if node.field_name_for_child(i) == "name":
            return node if w.text(kid) == "read" else None
    return None


def check_read_condition(w: Walker, node: Node) -> None:
    """A loop's condition that is one ``read``, with its redirections and an ``IFS=`` prefix."""
    command = read_command(w, node)
    if command is None:
        raise Blocked(f"not a read: {w.text(node)[:60]!r}")
    items: list[tuple[int, Word]] = []
    if node is not command:
        for kid in node.children:
            if kid.type in REDIRECTS:
                items.extend(check_redirect(w, kid))
    for i, kid in enumerate(command.children):
        field = command.field_name_for_child(i)
        if kid.type == "variable_assignment":
            _read_separator(w, kid)
        elif kid.type in REDIRECTS:
            items.extend(check_redirect(w, kid))
        elif field == "argument" and kid.is_named:
            items.append((kid.start_byte, resolve(kid, w)))
        elif field != "name":
            raise Blocked(f"unsupported syntax {w.text(kid)!r} in a read")
    items.sort(key=lambda item: item[0])
    check_read([word for _, word in items])


def _read_separator(w: Walker, node: Node) -> None:
    """``IFS= read -r line``: the prefix changes how this ``read`` alone splits the line."""
    kids = [k for k in node.children if k.type != "="]
    if not kids or w.text(kids[0]) != "IFS" or len(kids) > 2:
        raise Blocked(f"variable assignment {w.text(node)!r} changes the command's environment")
    if len(kids) == 2 and not resolve(kids[1], w).static:
        raise Blocked(f"IFS for read must be literal: {w.text(node)!r}")


def check_assignment(w: Walker, node: Node) -> None:
    """``out=$(git status)``: a lower-case name set to the output of commands that pass."""
    kids = node.children
    value = kids[2] if len(kids) == 3 and kids[1].type == "=" else None
    if kids[0].type != "variable_name" or value is None or not _one_substitution(value):
        raise Blocked(f"variable assignments change the environment of later commands: {w.text(node)[:60]!r}")
    name = w.text(kids[0])
    check_name(name, "assigned variable")
    try:
        resolve(value, w)
    except Blocked as inner:
        raise type(inner)(f"variable assignments run their substitution: {inner.reason}") from None
    read_at_run_time(name)


def _one_substitution(value: Node) -> bool:
    """``$(…)`` or ``"$(…)"``, nothing around it."""
    if value.type == "string":
        inner = [k for k in value.children if k.type != '"']
        return len(inner) == 1 and inner[0].type == "command_substitution"
    return value.type == "command_substitution"


def check_read(args: list[Word]) -> None:
    """``read [-r] [-d DELIM] NAME...`` as the condition of a loop: binds NAMEs to data."""
    names: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if not word.static:
            raise Blocked(f"read: {word.source!r} must be a literal flag or name")
        if names or not word.value.startswith("-") or word.value == "--":
            if word.value != "--":
                check_name(word.value, "read's variable")
                names.append(word.value)
            i += 1
            continue
        if word.value not in _READ_FLAGS:
            raise Blocked(f"read: flag {word.value} is not allowed (only -r and -d)")
        if _READ_FLAGS[word.value]:
            i += 1
            if i >= len(args) or not args[i].static:
                raise Blocked(f"read: {word.value} needs a literal value")
        i += 1
    if not names:
        raise Blocked("read: name the variables it sets (REPLY is not assumed)")
    for name in names:
        read_at_run_time(name)


def read_at_run_time(name: str) -> None:
    """``name`` holds data from now on (and, in a loop, from the first round's end)."""
    scope = SCOPE.get()
    if scope is not None:
        scope.read_at_run_time.add(name)


@contextmanager
def loop_body(name: str, words: list[Word]) -> Iterator[None]:
    """While the walk is inside ``for name in words; do …; done``."""
    scope = SCOPE.get()
    if scope is None:
        yield
        return
    scope.loops.setdefault(name, []).extend(words)
    scope.live[name] = scope.live.get(name, 0) + 1
    try:
        yield
    finally:
        scope.live[name] -= 1


def defer(args: list[Word], check: Callable[[list[Word]], None]) -> bool:
    """Check ``args`` later, once per value, if only live loop variables make them split."""
    scope = SCOPE.get()
    if scope is None:
        return False
    for word in args:
        if word.splits and any(c == DYN and not (ref and scope.live.get(ref)) for c, _, ref in word.pieces):
            return False
    scope.deferred.append((args, check))
    return True


def defer_number(name: str) -> bool:
    """An arithmetic operand ``name``: fine if it is a live loop variable over plain numbers."""
    scope = SCOPE.get()
    if scope is None or not scope.live.get(name):
        return False
    scope.deferred.append(([], lambda _: _numbers_only(scope, name)))
    return True


def _numbers_only(scope: Scope, name: str) -> None:
    bound = scope.bound(name)
    if bound is None:
        raise Blocked(f"arithmetic on non-literal operand {name!r}: it holds data read at run time, which bash evaluates")
    for word in bound:
        if not (word.static and _NUMBER.match(word.value)):
            raise Blocked(f"arithmetic on non-literal operand {name!r}: its loop value {word.source} is not a plain number")


def settle_variables(scope: Scope) -> None:
    """Run each deferred check with the loop values substituted, now that every binding is known."""
    for args, check in scope.deferred:
        for variant in _variants(scope, args):
            check(variant)


def _variants(scope: Scope, args: list[Word]) -> list[list[Word]]:
    per_word: list[list[Word]] = []
    for word in args:
        if not word.splits:
            per_word.append([word])
            continue
        per_word.append([Word.literal(text) for text in _word_values(scope, word)])
    total = 1
    for options in per_word:
        total *= len(options)
    if total > _MAX_VARIANTS:
        raise Blocked(f"too many loop values to check ({total} combinations)")
    return [list(combo) for combo in itertools.product(*per_word)]


def _word_values(scope: Scope, word: Word) -> list[str]:
    choices: list[list[str]] = []
    for char, quoted, ref in word.pieces:
        if char != DYN:
            if not quoted and char in "*?[":
                raise Blocked(f"unquoted glob in {word.source!r} next to a loop variable")
            choices.append([char])
            continue
        bound = scope.bound(ref) if ref else None
        if bound is None:
            raise Blocked(f"${ref or '?'} in {word.source!r} holds data read at run time")
        texts = [w.value for w in bound]
        if not all(w.static for w in bound) or not all(_PLAIN_VALUE.match(t) for t in texts):
            raise Blocked(f"${ref} in {word.source!r}: a loop value that splits, globs or is empty")
        choices.append(texts)
    return ["".join(combo) for combo in itertools.product(*choices)]
