"""Arithmetic bash evaluates: ``$((…))``, ``((…))``, and what a test compares as numbers.

Bash evaluates a variable's value in arithmetic as an expression of its own, and an array
subscript in it runs command substitutions (``x='a[$(cmd)]'; $((x))`` runs ``cmd``). So the
checker allows number literals, and loop variables whose every value is a number literal (the
walker says which, once the whole line is known); any other operand is refused.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from cast.safety.blocked import Blocked

if TYPE_CHECKING:
    from tree_sitter import Node


class Operands(Protocol):
    """What the check needs from the walker."""

    def text(self, node: Node) -> str: ...

    def loop_number(self, name: str) -> bool:
        """True if ``name`` is a loop variable here whose every value will be a plain number."""
        ...


_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F]+|[0-9]+(?:#[0-9A-Za-z@_]+)?)\Z")
_ARITH_NODES = frozenset({"binary_expression", "unary_expression", "ternary_expression", "parenthesized_expression"})
_ARITH_DELIMS = frozenset({"$((", "))", "$[", "]", "((", "("})
_ARITH_WRITES = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--"})


def check_literal_arithmetic(node: Node, ctx: Operands) -> None:
    """Allow arithmetic on number literals, and on loop variables over number literals.

    Bash evaluates variable values as expressions, and array subscripts in them
    run command substitutions (``x='a[$(cmd)]'; $((x))`` runs ``cmd``), so any
    other variable, whose value the checker cannot know, is refused.
    """
    for kid in node.children:
        kind = kid.type
        if not kid.is_named:
            if kind in _ARITH_WRITES:
                raise Blocked(f"arithmetic assignment in {ctx.text(node)!r}")
            if kind in _ARITH_DELIMS or not any(ch.isalnum() or ch in "$`_\"'" for ch in kind):
                continue
            raise Blocked(f"unsupported arithmetic syntax {kind!r}")
        if kind == "number":
            if not _NUMBER.match(ctx.text(kid)):
                raise Blocked(f"arithmetic operand {ctx.text(kid)!r} is not a plain number")
        elif kind in _ARITH_NODES:
            check_literal_arithmetic(kid, ctx)
        elif not ((name := variable_operand(kid, ctx)) and ctx.loop_number(name)):
            raise Blocked(
                f"arithmetic on non-literal operand {ctx.text(kid)!r}: bash evaluates "
                "variables and array subscripts, which can run commands"
            )


def variable_operand(node: Node, ctx: Operands) -> str:
    """The name in ``i``, ``$i`` or ``${i}`` (an arithmetic operand), else ''."""
    kids = [k.type for k in node.children]
    if node.type == "variable_name":
        return ctx.text(node)
    if (node.type, kids) in (("simple_expansion", ["$", "variable_name"]), ("expansion", ["${", "variable_name", "}"])):
        return ctx.text(node.children[1])
    return ""
