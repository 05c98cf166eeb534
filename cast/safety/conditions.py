"""``[[ ... ]]`` and ``[ ... ]`` tests.

``[[ ]]`` is parsed by bash itself, so its structure is real; the dangers are
arithmetic comparisons and ``-v``, which evaluate array subscripts and can
run commands. ``[`` is an ordinary command whose expression is just words:
tree-sitter parses it like ``[[``, but ``>``, ``&&`` or ``(`` inside it are
shell syntax to bash (``[ a > b ]`` writes ``b``), so only plain words pass.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cast.safety.arithmetic import variable_operand
from cast.safety.blocked import Blocked
from cast.safety.operand_checks import check_test_args
from cast.safety.words import Context, Word, resolve, resolve_pattern

if TYPE_CHECKING:
    from tree_sitter import Node

_ARITH_TEST = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_BRACKET_TEST_TOKENS = frozenset({"=", "==", "!=", "!"})
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_REGEX_EXPANSION = re.compile(r"`|\$[A-Za-z0-9_{(\[@*#?!$-]")


def check_test_command(w: Context, node: Node) -> None:
    kids = node.children
    if len(kids) < 2:
        raise Blocked("empty test")
    opener, closer, inner = kids[0].type, kids[-1].type, kids[1:-1]
    if opener == "[[" and closer == "]]":
        for kid in inner:
            _condition(w, kid)
        return
    if opener == "[" and closer == "]":
        words: list[Word] = []
        for kid in inner:
            _flatten(w, kid, words)
        check_test_args("[", words)
        return
    raise Blocked(f"unsupported test {w.text(node)[:40]!r}")


def _flatten(w: Context, node: Node, out: list[Word]) -> None:
    """``[`` is a command: its expression is just words to bash."""
    kind = node.type
    if kind in ("binary_expression", "unary_expression"):
        for kid in node.children:
            _flatten(w, kid, out)
    elif kind == "test_operator":
        out.append(Word.literal(w.text(node).strip()))
    elif not node.is_named:
        if kind not in _BRACKET_TEST_TOKENS:
            raise Blocked(f"{kind!r} inside [ ] is shell syntax, not a test operator")
        out.append(Word.literal(kind))
    elif kind in ("extglob_pattern", "regex"):
        out.append(resolve_pattern(node, w))
    else:
        out.append(resolve(node, w))


def _condition(w: Context, node: Node) -> None:
    """``[[ ]]`` is parsed by bash itself, so structure here is real."""
    kind = node.type
    if kind == "parenthesized_expression":
        for kid in node.children:
            if kid.is_named:
                _condition(w, kid)
        return
    if kind in ("binary_expression", "unary_expression"):
        operands = [k for k in node.children if k.is_named and k.type != "test_operator"]
        ops = [w.text(k).strip() for k in node.children if not k.is_named or k.type == "test_operator"]
        op = ops[0] if ops else ""
        if op in _ARITH_TEST:
            for operand in operands:
                _integer_operand(w, operand, op)
            return
        if op in ("-v", "-R"):
            for operand in operands:
                word = resolve(operand, w)
                if not (word.static and _IDENTIFIER.match(word.value)):
                    raise Blocked(f"[[ {op} {word.source} ]] evaluates array subscripts, which can run commands")
            return
        for operand in operands:
            _condition(w, operand)
        return
    if kind == "regex":
        text = w.text(node)
        if _REGEX_EXPANSION.search(text):
            raise Blocked(f"expansion inside [[ =~ ]] pattern {text!r} is not supported")
        return
    if kind == "extglob_pattern":
        resolve_pattern(node, w)
        return
    if not node.is_named:
        raise Blocked(f"unsupported syntax {kind!r} in [[ ]]")
    resolve(node, w)


def _integer_operand(w: Context, node: Node, op: str) -> None:
    if node.type == "simple_expansion" and w.text(node) in ("$#", "$?"):
        return
    if (name := variable_operand(node, w)) and w.loop_number(name):
        return
    word = resolve(node, w)
    if not (word.static and _INTEGER.match(word.value)):
        raise Blocked(
            f"[[ {op} ]] on {word.source!r}: bash evaluates operands as arithmetic, where array subscripts can run commands"
        )
