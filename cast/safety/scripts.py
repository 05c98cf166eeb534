"""Check the little programs handed to sed.

sed can write files and run commands from inside its scripts (``w``, ``e``,
``s///w``, ``s///e``), so a script is accepted only if it parses as a known
read-only subset, read the way GNU sed reads it, and refused where seds
disagree about where a label or regex ends. Anything the parser here does
not understand is refused; it never guesses.
"""

from __future__ import annotations

import re

from cast.safety.blocked import Blocked

# sed commands without arguments that only print, move text between buffers,
# or branch. ``l``, ``q`` and ``Q`` take an optional number.
_SED_SIMPLE = frozenset("=dDgGhHlnNpPqQxzF")
_SED_NUMBERED = frozenset("lqQ")
_SED_S_FLAGS = frozenset("gpiImM0123456789")
_SED_LABEL = re.compile(r"[A-Za-z0-9_.-]+")
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
        self.commands: list[str] = []  # what was read, in order (for differential tests)

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
        self.commands.append(cmd)
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
            self.pos = self.scan(delim, self.pos, regex=True)
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

    def scan(self, delim: str, pos: int, *, regex: bool = False) -> int:
        """Return the index after the closing ``delim`` (GNU ``match_slash``).
        GNU ends a regex at the delimiter even inside ``[...]``; BSD sed does
        not, so a regex whose bracket expression is open there is refused."""
        s, n, start = self.s, len(self.s), pos
        while pos < n:
            c = s[pos]
            if c == "\\":
                pos += 2
                continue
            if c == "\n":
                break
            if c == delim:
                if regex and _bracket_open(s[start:pos]):
                    raise self.fail(f"{delim!r} inside a bracket expression (seds disagree where the regex ends)")
                return pos + 1
            pos += 1
        raise self.fail("unterminated regex or replacement")

    def substitute(self) -> None:
        delim = self.delimiter()
        self.pos = self.scan(delim, self.pos, regex=True)
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
        """GNU sed ends a label at whitespace, ';' or newline, and starts the next
        command right there (``:a e cmd`` runs ``e``); 4.2 kept a following '}'
        in the label, BSD sed the rest of the line. Only labels on which they
        cannot disagree about where the next command starts pass."""
        self.skip_blanks()
        match = _SED_LABEL.match(self.s, self.pos)
        if match is None:
            if cmd != ":" and self.peek() in ("", ";", "\n", "}"):
                return  # a branch to the end of the script
            raise self.fail(f"'{cmd}' needs a plain label (letters, digits, '_', '.', '-')")
        self.pos = match.end()
        after = self.pos
        while after < len(self.s) and self.s[after] == "}":
            after += 1
        if after < len(self.s) and self.s[after] not in " \t\n;":
            raise self.fail(f"label {match.group()!r} followed by {self.s[after]!r} (seds disagree where it ends)")
        line_end = self.s.find("\n", self.pos)
        if line_end > 0 and self.s[line_end - 1] == "\\":
            raise self.fail("a backslash-newline on a label's line (BSD sed reads the rest of the line as the label)")


def _bracket_open(part: str) -> bool:
    """Is a POSIX bracket expression still open at the end of ``part``?"""
    i, n = 0, len(part)
    while i < n:
        if part[i] == "\\":
            i += 2
            continue
        if part[i] != "[":
            i += 1
            continue
        j = i + 1
        j += part.startswith("^", j)
        j += part.startswith("]", j)
        while j < n and part[j] != "]":
            if part[j] == "[" and part[j + 1 : j + 2] in (":", ".", "="):
                close = part.find(part[j + 1] + "]", j + 2)
                if close < 0:
                    return True
                j = close + 2
                continue
            j += 1
        if j >= n:
            return True
        i = j + 1
    return False


def read_sed_script(script: str) -> list[str]:
    """The commands of an accepted script, one letter each, as sed will run them."""
    reader = _SedScript(script)
    reader.run()
    return reader.commands


def check_sed_script(script: str) -> None:
    read_sed_script(script)
