"""Check the little programs handed to sed and awk.

Both languages can write files and run commands from inside their scripts
(sed ``w``/``e``/``s///w``; awk ``system()``, pipes, ``print > file``), so a
script is accepted only if it parses as a known read-only subset. Anything the
parsers here do not understand is refused; they never guess.
"""

from __future__ import annotations

import re

from cast.safety.blocked import Blocked

# sed commands without arguments that only print, move text between buffers,
# or branch. ``l``, ``q`` and ``Q`` take an optional number.
_SED_SIMPLE = frozenset("=dDgGhHlnNpPqQxzF")
_SED_NUMBERED = frozenset("lqQ")
_SED_S_FLAGS = frozenset("gpiImM0123456789")
_SED_WHY = {
    "w": "writes files",
    "W": "writes files",
    "e": "runs shell commands",
    "r": "reads files into the output (not supported)",
    "R": "reads files into the output (not supported)",
    "a": "text commands are not supported",
    "i": "text commands are not supported",
    "c": "text commands are not supported",
}


class _SedScript:
    """A recursive-descent reader for the accepted sed subset."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0
        self.depth = 0

    def fail(self, why: str) -> Blocked:
        return Blocked(f"sed: {why} in script {self.s!r}")

    def peek(self) -> str:
        return self.s[self.pos] if self.pos < len(self.s) else ""

    def skip_blanks(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.pos += 1

    def run(self) -> None:
        while True:
            while self.peek() and self.peek() in " \t\n;":
                self.pos += 1
            if not self.peek():
                break
            if self.peek() == "#":
                self.skip_line()
                continue
            self.command()
        if self.depth:
            raise self.fail("unbalanced braces")

    def skip_line(self) -> None:
        end = self.s.find("\n", self.pos)
        self.pos = len(self.s) if end < 0 else end

    def command(self) -> None:
        if self.address():
            self.skip_blanks()
            if self.peek() == ",":
                self.pos += 1
                self.skip_blanks()
                if self.peek() in ("+", "~"):
                    self.pos += 1
                    self.digits(required=True)
                elif not self.address():
                    raise self.fail("missing second address")
        self.skip_blanks()
        if self.peek() == "!":
            self.pos += 1
            self.skip_blanks()
        cmd = self.peek()
        self.pos += 1
        if cmd == "{":
            self.depth += 1
            return
        if cmd == "}":
            self.depth -= 1
            if self.depth < 0:
                raise self.fail("unexpected '}'")
        elif cmd in _SED_SIMPLE:
            if cmd in _SED_NUMBERED:
                self.skip_blanks()
                self.digits(required=False)
        elif cmd == "s":
            self.substitute()
        elif cmd == "y":
            delim = self.delimiter()
            self.pos = self.scan(delim, self.pos)
            self.pos = self.scan(delim, self.pos)
        elif cmd in ("b", "t", "T", ":"):
            self.label(cmd)
            return
        elif cmd in _SED_WHY:
            raise self.fail(f"command {cmd!r} {_SED_WHY[cmd]}")
        else:
            raise self.fail(f"command {cmd!r} is not allowed")
        self.end_of_command()

    def end_of_command(self) -> None:
        self.skip_blanks()
        c = self.peek()
        if c in ("", ";", "\n", "}"):
            return
        if c == "#":
            self.skip_line()
            return
        raise self.fail(f"unexpected {c!r} after command")

    def digits(self, *, required: bool) -> bool:
        start = self.pos
        while self.peek().isdigit() and self.peek().isascii():
            self.pos += 1
        if required and self.pos == start:
            raise self.fail("expected a number")
        return self.pos > start

    def address(self) -> bool:
        c = self.peek()
        if c.isdigit() and c.isascii():
            self.digits(required=True)
            if self.peek() == "~":
                self.pos += 1
                self.digits(required=True)
            return True
        if c == "$":
            self.pos += 1
            return True
        if c in ("/", "\\"):
            if c == "\\":
                self.pos += 1
            delim = self.delimiter() if c == "\\" else "/"
            if c == "/":
                self.pos += 1
            self.pos = self.scan(delim, self.pos)
            while self.peek() in ("I", "M") and self.peek():
                self.pos += 1
            return True
        return False

    def delimiter(self) -> str:
        c = self.peek()
        if not c or c in "\n\\":
            raise self.fail("bad delimiter")
        self.pos += 1
        return c

    def scan(self, delim: str, pos: int) -> int:
        """Return the index after the closing ``delim`` (GNU ``match_slash``)."""
        s, n = self.s, len(self.s)
        while pos < n:
            c = s[pos]
            if c == "\\":
                pos += 2
                continue
            if c == "\n":
                break
            if c == delim:
                return pos + 1
            pos += 1
        raise self.fail("unterminated regex or replacement")

    def substitute(self) -> None:
        delim = self.delimiter()
        self.pos = self.scan(delim, self.pos)
        self.pos = self.scan(delim, self.pos)
        while True:
            c = self.peek()
            if c and c in _SED_S_FLAGS:
                self.pos += 1
                continue
            if c in ("w", "W"):
                raise self.fail(f"s///{c} flag writes files")
            if c == "e":
                raise self.fail("s///e flag runs shell commands")
            return

    def label(self, cmd: str) -> None:
        self.skip_blanks()
        start = self.pos
        while self.peek() and self.peek() not in ";\n":
            self.pos += 1
        name = self.s[start : self.pos].strip()
        if cmd == ":" and not name:
            raise self.fail("':' needs a label")
        if "}" in name and cmd != ":":
            # GNU reads labels up to ';' or newline, so '}' would be part of it.
            raise self.fail("'}' inside a branch label")


def check_sed_script(script: str) -> None:
    _SedScript(script).run()


# --- awk -------------------------------------------------------------------

_AWK_BANNED_WORDS = ("system", "getline")
_AWK_KEYWORDS_BEFORE_OPERAND = frozenset(
    {"print", "printf", "return", "else", "do", "in", "case", "delete", "exit", "BEGIN", "END"}
)
_AWK_COND_KEYWORDS = frozenset({"if", "while", "for"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUM = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def check_awk_program(program: str) -> None:
    """Refuse awk programs that can run commands or write files.

    ``system``/``getline`` are refused wherever the letters appear, so no
    tokenizing mistake can hide them. Pipes and ``print >`` need the
    tokenizer; it treats an ambiguous ``/`` as division, so a regex it fails
    to recognise is scanned as code (stricter), never the reverse.
    """
    if "\\\n" in program:
        raise Blocked("awk: backslash-newline continuations are not supported")
    for word in _AWK_BANNED_WORDS:
        if word in program:
            raise Blocked(f"awk: {word} can run commands")
    _AwkProgram(program).run()


class _AwkProgram:
    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0
        self.operand_before = False  # did the last token end an operand?
        self.parens: list[bool] = []  # True for the '(' of if/while/for
        self.last_ident = ""
        self.print_depth: int | None = None

    def fail(self, why: str) -> Blocked:
        return Blocked(f"awk: {why}")

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
                raise self.fail("newline inside a string")
            if c == '"':
                self.pos = pos + 1
                self.operand_before = True
                return
            pos += 1
        raise self.fail("unterminated string")

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
                raise self.fail("newline inside a regex")
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
        raise self.fail("unterminated regex")

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
