"""How far an approval reaches: the one matcher behind "always" answers and `allow` rules.

An approval must never cover more than the user was shown. So a command is reduced to its scope:
the program and what selects the code that runs (`git commit`, `python3 -m pytest`,
`npm run test`, `python3 tools/gen.py`), and later commands are covered only when they reduce to
the same scope. Where no such prefix is safe — a shell, an interpreter given code (`python3 -c`),
a wrapper that runs another command (`env X=1 pytest`), a package manager installing, a program
cast knows nothing about (`rm build`) — the scope is the exact command and nothing else.
Quoted text is a word's letters, not shell syntax (`python3 -c 'print(1)'` is one plain command).
A line a shell reads as more than one plain command (`pytest | tee log`, a loop, a heredoc) is
covered only as that exact line, the same string and nothing else, and only when nothing in it is
computed by bash when it runs (`$…`, `$(…)`, backquotes, globs, `~`, braces): such a line means
the same every time. One that is computed is covered by no scope at all.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# Characters that make a line more than one plain command, or whose meaning bash computes
# (expansions, globs, redirections, comments, history): such a line matches no rule or scope.
NOT_PLAIN = re.compile(r"[;&|`$<>()\n\r\\*?\[\]{}~]")
# What bash computes when the line runs: a line with any of these (outside single quotes) means
# something new each time, so not even its exact text is remembered.
COMPUTED = re.compile(r"[`$*?\[\]{}~]")
PROGRAM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")  # a bare name: no path, no VAR=value
WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:+-]*")  # a subcommand, module, target or script name
SCRIPT = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./+-]*\.(py|js|mjs|cjs|ts|rb|pl|php|lua|R)")
INTERPRETER = re.compile(r"(python|pypy)(\d+(\.\d+)?)?|node|nodejs|ruby|perl|php|lua|Rscript")

# Programs that run another command, or code given inline: only the exact command is remembered.
WRAPPERS = frozenset(
    {
        "env",
        "sudo",
        "doas",
        "su",
        "xargs",
        "exec",
        "eval",
        "nohup",
        "timeout",
        "nice",
        "ionice",
        "time",
        "command",
        "builtin",
        "watch",
        "ssh",
        "strace",
        "chroot",
        "setsid",
        "stdbuf",
        "unbuffer",
        "flock",
        "script",
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "csh",
        "tcsh",
        "source",
        "parallel",
        "find",
    }
)
# Programs whose arguments choose what they check or test, not what code runs: the name is enough.
TOOLS = frozenset(
    {
        "pytest",
        "py.test",
        "tox",
        "nox",
        "mypy",
        "pyright",
        "black",
        "isort",
        "flake8",
        "pylint",
        "eslint",
        "prettier",
        "tsc",
        "jest",
        "vitest",
        "mocha",
        "ctest",
        "shellcheck",
        "rspec",
        "phpunit",
        "unittest",
    }
)
PACKAGE_MANAGERS = frozenset(
    {
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "deno",
        "cargo",
        "go",
        "uv",
        "poetry",
        "pdm",
        "hatch",
        "pipenv",
        "pip",
        "pip3",
        "pipx",
        "conda",
        "gem",
        "bundle",
        "composer",
        "rustup",
    }
)
# Programs with subcommands: the scope is the program and its subcommand.
SUBCOMMANDS = PACKAGE_MANAGERS | frozenset(
    {
        "git",
        "docker",
        "podman",
        "kubectl",
        "make",
        "gradle",
        "mvn",
        "dotnet",
        "swift",
        "gh",
        "ruff",
        "just",
        "nx",
        "turbo",
        "cmake",
    }
)
# Subcommands of a package manager that fetch or run code from outside: the exact command only.
FETCHING = frozenset(
    {
        "install",
        "i",
        "add",
        "update",
        "upgrade",
        "up",
        "uninstall",
        "remove",
        "rm",
        "publish",
        "x",
        "dlx",
        "get",
        "download",
        "link",
        "global",
        "self",
        "inject",
        "tool",
        "create",
        "init",
    }
)
# (program, subcommand) -> what the next word is: "name" (a script or target: part of the scope),
# "command" (a command to run: its own scope continues the prefix).
NESTED: dict[tuple[str, str], str] = {
    ("npm", "run"): "name",
    ("npm", "run-script"): "name",
    ("pnpm", "run"): "name",
    ("yarn", "run"): "name",
    ("bun", "run"): "name",
    ("deno", "task"): "name",
    ("go", "run"): "name",
    ("npm", "exec"): "command",
    ("uv", "run"): "command",
    ("poetry", "run"): "command",
    ("pdm", "run"): "command",
    ("hatch", "run"): "command",
    ("pipenv", "run"): "command",
    ("bundle", "exec"): "command",
    ("uv", "pip"): "command-pip",
    ("docker", "run"): "exact",
    ("docker", "exec"): "exact",
    ("podman", "run"): "exact",
    ("podman", "exec"): "exact",
    ("kubectl", "exec"): "exact",
    ("git", "config"): "exact",
    ("gh", "api"): "exact",
}
RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})  # fetch a package and run it: its own scope follows


@dataclass(frozen=True)
class Scope:
    """`words` is the prefix remembered; `exact` means the command must be exactly these words.
    `line`: the scope is one whole line of shell (its one word), the same string and nothing else."""

    words: tuple[str, ...]
    exact: bool
    line: bool = False

    def label(self) -> str:
        """What the user is shown: `git commit …` (any arguments) or the exact command."""
        if self.line:
            return self.words[0]
        text = shlex.join(self.words)
        return text if self.exact else f"{text} …"

    def covers(self, command: str) -> bool:
        return scope_of(command) == self


def syntax_of(command: str) -> str | None:
    """`command` as bash reads its syntax: single-quoted text blanked, and double-quoted text but
    for what still works there (`$`, backquotes, backslashes); None when a quote is left open."""
    out, quote = [], ""
    for char in command:
        if quote == "'":
            quote, char = ("", char) if char == "'" else (quote, "x")
        elif quote == '"':
            if char == '"':
                quote = ""
            elif char not in "$`\\":
                char = "x"
        elif char in "'\"":
            quote = char
        out.append(char)
    return None if quote else "".join(out)


def words_of(command: str) -> list[str] | None:
    """The words of one plain command, or None when the line is anything more."""
    syntax = syntax_of(command)
    if syntax is None or NOT_PLAIN.search(syntax):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words or None


def scope_of(command: str) -> Scope | None:
    """The scope an "always" for `command` remembers; None when no scope covers it (not a plain command)."""
    words = words_of(command)
    if words is not None:
        return _scope(words)
    syntax = syntax_of(command)
    if syntax is None or not command.strip() or COMPUTED.search(syntax) or ("<<" in syntax and COMPUTED.search(command)):
        return None  # a heredoc's body expands whatever its quotes look like
    return Scope((command,), True, line=True)


def _scope(words: list[str]) -> Scope:
    exact = Scope(tuple(words), True)
    program, rest = words[0], words[1:]
    if not PROGRAM.fullmatch(program) or program in WRAPPERS:
        return exact
    if INTERPRETER.fullmatch(program):
        return _interpreter(program, rest) or exact
    if program in RUNNERS:
        return _prefixed((program,), rest) or exact
    if program in TOOLS:
        return Scope((program,), False)
    if program in SUBCOMMANDS:
        return _subcommand(program, rest) or exact
    return exact


def _interpreter(program: str, rest: list[str]) -> Scope | None:
    """`python3 -m MODULE …` and `python3 script.py …`; nothing else an interpreter is given."""
    if len(rest) >= 2 and rest[0] == "-m" and WORD.fullmatch(rest[1]):
        module, args = rest[1], rest[2:]
        if module in WRAPPERS or module in RUNNERS or module in TOOLS or module in SUBCOMMANDS:
            return _prefixed((program, "-m"), [module, *args])
        return Scope((program, "-m", module), False)
    if rest and SCRIPT.fullmatch(rest[0]) and ".." not in rest[0].split("/"):
        return Scope((program, rest[0]), False)
    return None


def _subcommand(program: str, rest: list[str]) -> Scope | None:
    if not rest or not WORD.fullmatch(rest[0]):
        return None  # no subcommand, or options before it (`git -c core.hooksPath=… commit`)
    sub, args = rest[0], rest[1:]
    if program in PACKAGE_MANAGERS and sub in FETCHING:
        return None
    kind = NESTED.get((program, sub), "")
    if kind == "exact":
        return None
    if kind == "name":
        if args and WORD.fullmatch(args[0]):
            return Scope((program, sub, args[0]), False)
        return None
    if kind == "command":
        return _prefixed((program, sub), args)
    if kind == "command-pip":
        inner = _subcommand("pip", args)
        return Scope((program, sub) + inner.words[1:], False) if inner is not None and not inner.exact else None
    return Scope((program, sub), False)


def _prefixed(prefix: tuple[str, ...], inner: list[str]) -> Scope | None:
    """A program that runs the command after it: the inner command's scope, prefixed."""
    if not inner:
        return None
    scope = _scope(inner)
    return None if scope.exact else Scope(prefix + scope.words, False)


@dataclass(frozen=True)
class Rule:
    """An `allow` rule from config: `python3 -m pytest*` (these words, then any arguments) or
    `make lint` (exactly this). It is read with the same scopes: a rule never covers more than
    an "always" for the same command would, so `python3*` does not allow `python3 -c …`."""

    words: tuple[str, ...]
    open: bool  # ends in `*`: any further arguments

    @classmethod
    def parse(cls, text: str) -> Rule | None:
        stripped = text.strip()
        open_ = stripped.endswith("*")
        stripped = stripped.rstrip("*").strip()
        try:
            words = tuple(shlex.split(stripped))
        except ValueError:
            return None
        return cls(words, open_) if words else None

    def matches(self, command: str) -> bool:
        words = words_of(command)
        if words is None:
            return False
        if tuple(words) == self.words:
            return True
        scope = _scope(words)
        if not self.open or scope.exact or len(self.words) < len(scope.words):
            return False
        return tuple(words[: len(self.words)]) == self.words
