"""Check the little programs handed to awk.

awk can write files and run commands from inside its programs (``system()``,
``getline`` from a command, pipes, ``print > file``), so a program is accepted
only if its tokens show none of them. The tokenizer follows awk's lexing;
where awks may read the same text two ways, both readings must be safe.
"""

from __future__ import annotations

import re

from cast.safety.blocked import Blocked

_AWK_BANNED_WORDS = {
    "system": "system can run commands",
    # Assigning ARGV/ARGC makes awk read files the command line never named, past every path check.
    "ARGV": "ARGV names the files awk reads, so a program may not touch it",
    "ARGC": "ARGC names the files awk reads, so a program may not touch it",
}
# Plain `getline` / `getline var` reads the next line of the input awk already reads (checked path
# operands, or stdin); with `<` it reads another file and after `|` or `|&` it runs a command, so a
# program holding getline may hold neither character anywhere (a comparison `<` included).
_GETLINE_ELSEWHERE = ("<", "|")
_AWK_KEYWORDS_BEFORE_OPERAND = frozenset(
    {"print", "printf", "return", "else", "do", "in", "case", "delete", "exit", "BEGIN", "END"}
)
_AWK_COND_KEYWORDS = frozenset({"if", "while", "for"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUM = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def check_awk_program(program: str) -> None:
    """Refuse awk programs that can run commands or write files.

    ``system``, ``ARGV`` and ``ARGC`` are refused wherever the letters appear,
    and so is ``getline`` in a program holding any ``<`` or ``|``, so no
    tokenizing mistake can hide them. Pipes and ``print >`` need the
    tokenizer. A ``/`` after an operand is division to the tokenizer, but
    awks read it as a regex after some words (``length /#/``), and either
    reading can hide code from the other inside a comment, string or regex:
    so the rest of the program is also read the other way, and must be safe
    both ways (a reading awk itself would reject as a syntax error is dropped).
    """
    if "\\\n" in program:
        raise Blocked("awk: backslash-newline continuations are not supported")
    for word, why in _AWK_BANNED_WORDS.items():
        if word in program:
            raise Blocked(f"awk: {why}")
    if "getline" in program and any(c in program for c in _GETLINE_ELSEWHERE):
        raise Blocked(
            "awk: getline with '<' or '|' reads another file or runs a command (a plain getline reads the next input line)"
        )
    _AwkProgram(program, [_AWK_MAX_READINGS], set()).run()


_AWK_MAX_READINGS = 256


class _AwkSyntax(Blocked):
    """A reading of the program no awk accepts: it never runs."""


class _AwkProgram:
    def __init__(self, text: str, budget: list[int], seen: set[tuple[object, ...]]) -> None:
        self.s = text
        self.pos = 0
        self.operand_before = False  # did the last token end an operand?
        self.parens: list[bool] = []  # True for the '(' of if/while/for
        self.last_ident = ""
        self.print_depth: int | None = None
        self.budget = budget  # readings left, shared by every fork
        self.seen = seen  # states after a regex reading already checked from there on

    def fail(self, why: str) -> Blocked:
        return Blocked(f"awk: {why}")

    def syntax(self, why: str) -> Blocked:
        return _AwkSyntax(f"awk: {why}")

    def read_as_regex(self) -> None:
        """Read the rest of the program with the ``/`` at ``pos`` opening a regex."""
        other = _AwkProgram(self.s, self.budget, self.seen)
        other.pos, other.parens, other.print_depth = self.pos, list(self.parens), self.print_depth
        try:
            other.regex()
            state = (other.pos, tuple(other.parens), other.print_depth)
            if state in self.seen:
                return
            self.seen.add(state)
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise self.fail("too many '/' that could start a regex")
            other.run()
        except _AwkSyntax:
            pass

    def run(self) -> None:
        s, n = self.s, len(self.s)
        while self.pos < n:
            c = s[self.pos]
            if c == "\\" and s.startswith("\\\n", self.pos):
                self.pos += 2
            elif c in " \t\r":
                self.pos += 1
            elif c == "\n" or c == ";":
                self.pos += 1
                self.end_statement()
            elif c == "#":
                end = s.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif c == '"':
                self.string()
            elif c == "/" and not self.operand_before:
                self.regex()
            elif c == "/":
                self.read_as_regex()
                self.operator(c)
            elif c.isalpha() or c == "_":
                self.identifier()
            elif c.isdigit() or (c == "." and s[self.pos + 1 : self.pos + 2].isdigit()):
                m = _NUM.match(s, self.pos)
                self.pos = m.end() if m else self.pos + 1
                self.operand_before = True
            else:
                self.operator(c)

    def end_statement(self) -> None:
        self.print_depth = None
        self.operand_before = False
        self.last_ident = ""

    def string(self) -> None:
        s, n = self.s, len(self.s)
        pos = self.pos + 1
        while pos < n:
            c = s[pos]
            if c == "\\":
                pos += 2
                continue
            if c == "\n":
                raise self.syntax("newline inside a string")
            if c == '"':
                self.pos = pos + 1
                self.operand_before = True
                return
            pos += 1
        raise self.syntax("unterminated string")

    def regex(self) -> None:
        s, n = self.s, len(self.s)
        pos = self.pos + 1
        bracket_start = -1  # index just after '[' (and '^') of an open bracket expression
        while pos < n:
            c = s[pos]
            if c == "\\":
                pos += 2
                continue
            if c == "\n":
                raise self.syntax("newline inside a regex")
            if c == '"':
                raise self.fail("'\"' inside a regex is not supported")
            if bracket_start >= 0:
                if c == "[" and s[pos + 1 : pos + 2] in (":", ".", "="):
                    close = s.find(s[pos + 1] + "]", pos + 2)
                    if close < 0 or any(q in s[pos:close] for q in '/"\n'):
                        raise self.fail("unsupported character class in a regex")
                    pos = close + 2
                    continue
                if c == "/":
                    # awks disagree on whether '/' ends a regex inside [...].
                    raise self.fail("'/' inside a bracket expression is ambiguous")
                if c == "]" and pos > bracket_start:
                    bracket_start = -1
            elif c == "[":
                bracket_start = pos + 1
                if s[bracket_start : bracket_start + 1] == "^":
                    bracket_start += 1
            elif c == "/":
                self.pos = pos + 1
                self.operand_before = True
                return
            pos += 1
        raise self.syntax("unterminated regex")

    def identifier(self) -> None:
        m = _IDENT.match(self.s, self.pos)
        assert m is not None
        word = m.group()
        self.pos = m.end()
        self.last_ident = word
        if word in ("print", "printf"):
            self.print_depth = len(self.parens)
            self.operand_before = False
        elif word in _AWK_KEYWORDS_BEFORE_OPERAND or word in _AWK_COND_KEYWORDS:
            self.operand_before = False
        else:
            self.operand_before = True

    def operator(self, c: str) -> None:
        s = self.s
        two = s[self.pos : self.pos + 2]
        if c == "@":
            raise self.fail("'@' directives and indirect calls are not allowed")
        if c == "|":
            if two == "||":
                self.pos += 2
                self.operand_before = False
                return
            raise self.fail("pipes run shell commands")
        if c == ">" and self.print_depth is not None and self.print_depth == len(self.parens):
            raise self.fail("output redirection in print writes files")
        if c == "(":
            self.parens.append(self.last_ident in _AWK_COND_KEYWORDS)
            self.operand_before = False
        elif c == ")":
            cond = self.parens.pop() if self.parens else False
            self.operand_before = not cond
            if self.print_depth is not None and self.print_depth > len(self.parens):
                self.print_depth = None
        elif c in "]$":
            self.operand_before = c == "]"
        elif c in "{}":
            self.end_statement()
        elif two in ("++", "--"):
            self.pos += 2
            self.last_ident = ""
            return  # keep operand_before: postfix after an operand stays one
        else:
            self.operand_before = False
        self.last_ident = ""
        self.pos += 1
