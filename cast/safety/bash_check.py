"""Prove a bash command read-only, or say why it cannot be.

While planning, cast may run a shell command only if this checker accepts
it. The checker is an allowlist and fails closed: the command is parsed with
tree-sitter-bash, every node kind must be one it understands, every word is
resolved as bash would resolve it (``cast.safety.words``), every command must
pass its rule (``cast.safety.command_rules``), and any surprise, including
a parse error or an exception, refuses the command.

tree-sitter is not bash, so the walk also guards the known places where the
two disagree: text the parser skipped between tokens, line continuations that
join words, redirections followed by more words (``sort >/dev/null -o out``),
heredoc bodies it did not parse, ``[ ... ]`` tests that it reads as
``[[ ... ]]``, and reserved words glued to the text after them (``[[x/evil``
is a program to bash, ``cast.safety.reserved_words``).

Choices where read-only-ness depends on run-time values:

* Globs, ``$var``, ``"$var"`` and ``$(...)`` in arguments are fine for
  commands that are safe with any arguments (``cat``, ``wc``, ``grep``...).
  For other commands such a word must be unable to start with ``-`` (a fixed
  prefix as in ``./*`` or ``"HEAD:$f"``), or come after ``--``, or be the
  value of a flag that takes one, and it must not split where operand counts
  matter (``uniq IN OUT``). Where the literal text is judged (sed scripts,
  awk programs, find expressions, git subcommands, command names, output
  targets) it must be fully static.
* Only ``$name``, ``${name}`` and ``${#name}`` expansions are understood;
  arithmetic only on number literals; loop variables must be lower-case.
* ``timeout``, ``nice``, ``env``, ``command`` and ``time`` run their operands
  unchanged, so the inner command is checked as if written directly; ``xargs``
  appends words nobody has seen, so its command must be safe with any
  arguments.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cast.safety.arithmetic import check_literal_arithmetic
from cast.safety.blocked import Blocked, SecretRead
from cast.safety.command_rules import STRICT, check_argv
from cast.safety.conditions import check_test_command
from cast.safety.path_operands import SCOPE, Scope, settle
from cast.safety.redirects import REDIRECTS, check_redirect
from cast.safety.reserved_words import check_reserved_words
from cast.safety.shell_variables import (
    check_assignment,
    check_name,
    check_read_condition,
    defer_number,
    loop_body,
    read_command,
    settle_variables,
)
from cast.safety.source_text import ascii_stand_in, check_gaps, precheck
from cast.safety.words import Word, resolve, resolve_pattern

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_SEPARATORS = frozenset(
    {
        ";",
        "&&",
        "||",
        "|",
        "|&",
        "(",
        ")",
        "{",
        "}",
        "do",
        "done",
        "then",
        "fi",
        "if",
        "elif",
        "else",
        "while",
        "until",
        "for",
        "in",
        "case",
        "esac",
        "!",
        "$(",
        "`",
        "<(",
        "\n",
    }
)
_CASE_TERMINATORS = frozenset({";;", ";&", ";;&"})
_FD_VARIABLE = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}\Z")
_WHY_NODE = {
    "variable_assignments": "variable assignments change the environment of later commands",
    "function_definition": "function definitions are not allowed",
    "c_style_for_statement": "C-style for loops evaluate arithmetic on variables",
}


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str
    secret: bool = False  # it would read a secret: refused in every mode, never asked about


_LOCAL = threading.local()  # a tree-sitter Parser must not be shared between threads


def _parser() -> Parser:
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        parser = _LOCAL.parser = Parser(Language(tree_sitter_bash.language()))
    return parser


def check(command: str, *, strict: bool = False, root: str | os.PathLike[str] | None = None) -> Verdict:
    """Allow ``command`` only if it provably changes nothing on disk and reads no secret.

    ``strict`` is for running without a kernel sandbox: commands that read
    configuration from the tree (``READS_TREE_CONFIG``: git, version probes
    that version managers resolve) are refused too, and so is a path outside
    the workspace and the system's directories or one computed at run time.
    ``root`` is the workspace the command runs in (default: the current
    directory); relative paths are read from there.
    """
    scope = Scope(os.path.realpath(root if root is not None else os.getcwd()), strict)
    token, paths = STRICT.set(strict), SCOPE.set(scope)
    try:
        return _check(command, scope)
    finally:
        SCOPE.reset(paths)
        STRICT.reset(token)


def check_strict(command: str, root: str | os.PathLike[str] | None = None) -> Verdict:
    """``check`` for plan mode without a kernel sandbox: the strict subset."""
    return check(command, strict=True, root=root)


def _check(command: str, scope: Scope) -> Verdict:
    try:
        precheck(command)
        source = command.encode("utf-8")
        root = _parser().parse(ascii_stand_in(source)).root_node
        walker = _Walker(source)
        if root.has_error:
            raise Blocked(_parse_error(root, walker))
        check_gaps(root, source)
        check_reserved_words(root, source)
        walker.statement(root)
        if not walker.commands:
            raise Blocked("no command to run")
        settle(scope)
        settle_variables(scope)
    except SecretRead as blocked:
        return Verdict(False, blocked.reason, secret=True)
    except Blocked as blocked:
        return Verdict(False, blocked.reason)
    except RecursionError:
        return Verdict(False, "command is nested too deeply to check")
    except Exception as exc:  # fail closed on anything unexpected
        return Verdict(False, f"checker error ({type(exc).__name__}); refusing")
    return Verdict(True, "read-only")


def _parse_error(root: Node, walker: _Walker) -> str:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            return f"parse error: missing {node.type!r}"
        if node.type == "ERROR":
            return f"parse error near {walker.text(node)[:40]!r}"
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return "parse error"


class _Walker:
    """Visits statements; each handler checks one node kind or refuses."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.commands = 0

    def text(self, node: Node) -> str:
        """The real text under ``node`` (the parser saw an ASCII stand-in)."""
        return self.source[node.start_byte : node.end_byte].decode("utf-8")

    def slice(self, start: int, end: int) -> str:
        return self.source[start:end].decode("utf-8")

    def loop_number(self, name: str) -> bool:
        return defer_number(name)

    # -- statements ---------------------------------------------------------

    def statement(self, node: Node) -> None:
        if not node.is_named:
            if node.type in _SEPARATORS:
                return
            if node.type == "&":
                raise Blocked("background jobs (&) are not allowed")
            raise Blocked(f"unsupported shell syntax {node.type!r}")
        handler = _HANDLERS.get(node.type)
        if handler is None:
            if node.type in ("declaration_command", "unset_command") and node.children:
                raise Blocked(f"{node.children[0].type}: changes shell state")
            why = _WHY_NODE.get(node.type, f"unsupported shell syntax ({node.type})")
            raise Blocked(f"{why}: {self.text(node)[:60]!r}")
        handler(self, node)

    def container(self, node: Node) -> None:
        for kid in node.children:
            self.statement(kid)

    def compound(self, node: Node) -> None:
        kids = node.children
        if kids and kids[0].type == "((":
            check_literal_arithmetic(node, self)
            self.commands += 1
            return
        self.container(node)

    def comment(self, node: Node) -> None:
        return

    def bare_redirect(self, node: Node) -> None:
        if check_redirect(self, node):
            raise Blocked(f"words after a redirection without a command: {self.text(node)!r}")

    def substitution(self, node: Node) -> None:
        """Inner commands of ``$(..)``, backticks and ``<(..)`` must pass too."""
        kids = node.children
        if kids and kids[0].type == "`" and "\\" in self.text(node):
            raise Blocked("backslashes inside backquotes are re-parsed by bash; use $(...)")
        for kid in kids:
            self.statement(kid)

    def for_loop(self, node: Node) -> None:
        kids = node.children
        if not kids or kids[0].type != "for":
            raise Blocked("select loops are not allowed")
        name = ""
        words: list[Word] = []
        body: list[Node] = []
        for i, kid in enumerate(kids):
            field = node.field_name_for_child(i)
            if field == "variable":
                name = self.text(kid)
                check_name(name, "loop variable")
            elif field == "value":
                words.append(resolve(kid, self))
            else:
                body.append(kid)
        with loop_body(name, words):
            for kid in body:
                self.statement(kid)

    def while_loop(self, node: Node) -> None:
        """``while read -r f; do …; done``: a ``read`` is allowed as the whole condition."""
        for i, kid in enumerate(node.children):
            if node.field_name_for_child(i) == "condition" and read_command(self, kid) is not None:
                check_read_condition(self, kid)
                self.commands += 1
            else:
                self.statement(kid)

    def assignment(self, node: Node) -> None:
        check_assignment(self, node)

    def case(self, node: Node) -> None:
        for i, kid in enumerate(node.children):
            if node.field_name_for_child(i) == "value":
                resolve(kid, self)
            else:
                self.statement(kid)

    def case_item(self, node: Node) -> None:
        for i, kid in enumerate(node.children):
            if node.field_name_for_child(i) == "value":
                resolve_pattern(kid, self)
            elif kid.type not in _CASE_TERMINATORS:
                self.statement(kid)

    def redirected(self, node: Node) -> None:
        body: Node | None = None
        extra: list[tuple[int, Word]] = []
        for i, kid in enumerate(node.children):
            if node.field_name_for_child(i) == "body":
                body = kid
            elif kid.type in REDIRECTS:
                extra.extend(check_redirect(self, kid))
            else:
                self.statement(kid)
        if body is None:
            if extra:
                raise Blocked("words after a redirection without a command")
            return
        if body.type == "command":
            self.command(body, extra)
            return
        if extra:
            raise Blocked(f"words after the redirection of a compound command: {self.text(node)[:60]!r}")
        self.statement(body)

    def command(self, node: Node, extra: list[tuple[int, Word]] | None = None) -> None:
        self.commands += 1
        items = list(extra or ())
        for i, kid in enumerate(node.children):
            field = node.field_name_for_child(i)
            kind = kid.type
            if kind == "variable_assignment":
                raise Blocked(f"variable assignment {self.text(kid)!r} changes the command's environment")
            if field == "name":
                if len(kid.children) != 1:
                    raise Blocked(f"unsupported command name {self.text(kid)!r}")
                items.append((kid.start_byte, resolve(kid.children[0], self)))
            elif kind in REDIRECTS:
                items.extend(check_redirect(self, kid))
            elif field == "argument" and kid.is_named:
                if self.source[kid.end_byte : kid.end_byte + 1] in (b"<", b">") and _FD_VARIABLE.match(self.text(kid)):
                    raise Blocked(f"{self.text(kid)} before a redirection assigns a shell variable")
                items.append((kid.start_byte, resolve(kid, self)))
            else:
                raise Blocked(f"unsupported syntax {self.text(kid)!r} in a command")
        items.sort(key=lambda item: item[0])
        check_argv([word for _, word in items])

    def test(self, node: Node) -> None:
        self.commands += 1
        check_test_command(self, node)


_HANDLERS: dict[str, Callable[[_Walker, Any], None]] = {
    "program": _Walker.container,
    "list": _Walker.container,
    "pipeline": _Walker.container,
    "subshell": _Walker.container,
    "do_group": _Walker.container,
    "if_statement": _Walker.container,
    "elif_clause": _Walker.container,
    "else_clause": _Walker.container,
    "while_statement": _Walker.while_loop,
    "negated_command": _Walker.container,
    "compound_statement": _Walker.compound,
    "for_statement": _Walker.for_loop,
    "case_statement": _Walker.case,
    "case_item": _Walker.case_item,
    "redirected_statement": _Walker.redirected,
    "command": _Walker.command,
    "test_command": _Walker.test,
    "comment": _Walker.comment,
    "file_redirect": _Walker.bare_redirect,
    "variable_assignment": _Walker.assignment,
}
