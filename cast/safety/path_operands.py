"""Path operands: what a proven command reads must not be the user's secrets, and, with no kernel
layer behind the checker, must lie where ``read_file`` could read.

While the walk checks each command, its path words (``path_table.PATHS`` says which) are
collected here with the loop variables' words, the ``cd`` targets and the input redirections;
once the whole command is read, ``settle`` computes what each path can be (``path_values``),
against every directory a ``cd`` can lead to, in any order, and refuses a secret in every mode
and, in strict mode, a path outside the workspace and the system's directories, or one computed
at run time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from cast.safety.blocked import Blocked, SecretRead
from cast.safety.path_table import FIND_PATH_TESTS, PATHS, Paths
from cast.safety.path_values import values
from cast.safety.secret_paths import confined, secret, user_homes
from cast.safety.tar_listing import tar_archive
from cast.safety.words import Word

_MAX_CWDS = 16
_NEWER = re.compile(r"-newer[aBcmt][aBcmt]\Z")
_AWK_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_XXD_VALUE = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name", "-R"})
_NO_KERNEL = "with no kernel sandbox behind the checker"


@dataclass(frozen=True)
class Use:
    command: str
    word: Word
    recursive: bool = False


@dataclass
class Scope:
    """What one command line reads, gathered during the walk."""

    root: str
    strict: bool
    homes: tuple[str, ...] = field(default_factory=user_homes)
    uses: list[Use] = field(default_factory=list)
    cds: list[Word | None] = field(default_factory=list)  # None: a bare `cd`, to the home
    loops: dict[str, list[Word]] = field(default_factory=dict)
    read_at_run_time: set[str] = field(default_factory=set)  # bound by `read` or `name=$(…)`
    live: dict[str, int] = field(default_factory=dict)  # loop variables whose body the walk is in
    deferred: list[tuple[list[Word], Callable[[list[Word]], None]]] = field(default_factory=list)

    def bound(self, name: str) -> list[Word] | None:
        if name in self.read_at_run_time:
            return None
        return self.loops.get(name)


SCOPE: ContextVar[Scope | None] = ContextVar("cast_checker_paths", default=None)


def note_command(name: str, args: list[Word]) -> None:
    """Collect the path words of one command that passed its rule."""
    scope = SCOPE.get()
    spec = PATHS.get(name)
    if scope is None or spec is None:
        return
    if name == "cd":
        operands = [w for w in args if not (w.static and w.value.startswith("-"))]
        scope.cds.append(operands[0] if operands else None)
    for word, recursive in path_words(name, spec, args):
        scope.uses.append(Use(name, word, recursive))


def note_input(word: Word) -> None:
    note_path("input redirection", word)


def note_path(command: str, word: Word) -> None:
    scope = SCOPE.get()
    if scope is not None:
        scope.uses.append(Use(command, word))


def computed_in_strict(command: str, why: str) -> None:
    """Refuse, in strict mode, a reader whose paths only exist at run time."""
    scope = SCOPE.get()
    if scope is not None and scope.strict:
        raise Blocked(f"{command}: {why}; {_NO_KERNEL}, only paths known before it runs are allowed")


def reads_paths(name: str) -> bool:
    spec = PATHS.get(name)
    return spec is not None and spec.operands != "none"


# --- which words are paths ----------------------------------------------------


def path_words(name: str, spec: Paths, args: list[Word]) -> list[tuple[Word, bool]]:
    if spec.operands == "find":
        return _find_paths(args)
    if spec.operands == "git":
        return [(w, False) for w in _git_paths(args)]
    if spec.operands == "tar":
        return [(tar_archive(args), False)]
    if spec.operands == "first" and name == "xxd":
        return [(w, False) for w in _xxd_paths(args)]
    split = _split(spec, args)
    operands, found, recursive, first_given = split.operands, split.found, split.recursive, split.first_given
    if spec.operands == "awk":
        operands = [w for w in operands[1:] if not (w.static and _AWK_ASSIGNMENT.match(w.value))]
    elif spec.operands == "after_first" and not first_given:
        operands = operands[1:]
    elif spec.operands == "none":
        operands = []
    elif spec.operands == "first":
        operands = operands[:1]
    recursive = recursive or spec.always_recursive
    if recursive and not operands and spec.default is not None:
        operands = [Word.literal(spec.default)]
    return [(w, False) for w in found] + [(w, recursive) for w in operands]


@dataclass
class _Split:
    operands: list[Word] = field(default_factory=list)
    found: list[Word] = field(default_factory=list)  # values of flags that name files
    recursive: bool = False
    first_given: bool = False


def _split(spec: Paths, args: list[Word]) -> _Split:
    """Operands, values of path flags, recursion and whether a flag gave the first operand."""
    out = _Split()
    only_operands = False
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        i += 1
        text = word.value if word.static else word.prefix
        if only_operands or not text.startswith("-") or text == "-":
            out.operands.append(word)
            only_operands = only_operands or spec.operands == "none"  # a wrapper's command, or words it prints
        elif word.static and text == "--":
            only_operands = True
        elif text.startswith("--"):
            i = _long(spec, word, text, args, i, out)
        else:
            i = _cluster(spec, word, text, args, i, out)
    return out


def _long(spec: Paths, word: Word, text: str, args: list[Word], i: int, out: _Split) -> int:
    flag, eq, rest = text.partition("=")
    out.recursive = out.recursive or flag in spec.recursive or text in spec.recursive
    out.first_given = out.first_given or flag in spec.first_given_by
    if flag in spec.pairs:
        if i + 1 < len(args) and flag in spec.value_paths:
            out.found.append(args[i + 1])
        return i + 2
    if eq:
        if flag in spec.value_paths:
            out.found.append(Word.literal(rest) if word.static else word)
        return i
    if flag in spec.long_value or flag in spec.value_paths:
        if i < len(args) and flag in spec.value_paths:
            out.found.append(args[i])
        return i + 1
    return i


def _cluster(spec: Paths, word: Word, text: str, args: list[Word], i: int, out: _Split) -> int:
    for j in range(1, len(text)):
        flag = "-" + text[j]
        out.recursive = out.recursive or flag in spec.recursive
        out.first_given = out.first_given or flag in spec.first_given_by
        if text[j] in spec.short_value or flag in spec.value_paths:
            rest = text[j + 1 :]
            value = (Word.literal(rest) if word.static else word) if rest or not word.static else None
            if value is None and i < len(args):
                value = args[i]
                i += 1
            if value is not None and flag in spec.value_paths:
                out.found.append(value)
            break
    return i


def _find_paths(args: list[Word]) -> list[tuple[Word, bool]]:
    """Starting points (read beneath when -exec runs commands on what is found), and the files
    its tests name."""
    i, n = 0, len(args)
    while i < n and args[i].static and args[i].value in ("-H", "-L", "-P"):
        i += 1
    starts: list[Word] = []
    while i < n and not (args[i].static and (args[i].value.startswith("-") or args[i].value in ("(", "!"))):
        starts.append(args[i])
        i += 1
    reads = any(w.static and w.value in ("-exec", "-execdir") for w in args[i:])
    found = [(w, reads) for w in starts or [Word.literal(".")]]
    for k in range(i, n - 1):
        token = args[k].value
        if args[k].static and (token in FIND_PATH_TESTS or _NEWER.match(token)):
            found.append((args[k + 1], False))
    return found


def _git_paths(args: list[Word]) -> list[Word]:
    found: list[Word] = []
    for k, word in enumerate(args[:-1]):
        if word.static and word.value == "-C":
            found.append(args[k + 1])
    if any(w.static and w.value == "--no-index" for w in args):
        sub = next((k for k, w in enumerate(args) if w.static and not w.value.startswith("-")), len(args))
        found += [w for w in args[sub + 1 :] if not (w.static and w.value.startswith("-"))]
    return found


def _xxd_paths(args: list[Word]) -> list[Word]:
    i, n = 0, len(args)
    while i < n and args[i].static and args[i].value.startswith("-") and args[i].value != "-":
        flag = args[i].value
        i += 2 if flag in _XXD_VALUE or flag.lstrip("-") in {v.lstrip("-") for v in _XXD_VALUE} else 1
        if flag == "--":
            break
    return args[i : i + 1]


# --- judging them -------------------------------------------------------------


def settle(scope: Scope) -> None:
    """Judge every path the command can read, from every directory it can be in."""
    cwds, cwd_known = _directories(scope)
    for use in scope.uses:
        _judge(scope, use, cwds, cwd_known)


def _directories(scope: Scope) -> tuple[list[str], bool]:
    cwds = [scope.root]
    for _ in range(3):  # a cd inside a loop can build on another one
        grown = False
        for target in scope.cds:
            for cwd in list(cwds):
                found = list(scope.homes) if target is None else values(target, cwd, scope.homes, scope.bound)
                if found is None:
                    return cwds, False
                for value in found:
                    real = os.path.realpath(os.path.join(cwd, value)) if value else cwd
                    if real not in cwds:
                        cwds.append(real)
                        grown = True
                if len(cwds) > _MAX_CWDS:
                    return cwds, False
        if not grown:
            break
    return cwds, True


def _judge(scope: Scope, use: Use, cwds: list[str], cwd_known: bool) -> None:
    for cwd in cwds:
        found = values(use.word, cwd, scope.homes, scope.bound)
        if found is None or (not cwd_known and any(not os.path.isabs(v) for v in found)):
            if scope.strict:
                raise Blocked(
                    f"{use.command}: path {use.word.source} is computed at run time; {_NO_KERNEL}, "
                    "only paths known before it runs are allowed"
                )
            return
        for value in found:
            if value:
                _judge_one(scope, use, value, cwd)


def _judge_one(scope: Scope, use: Use, value: str, cwd: str) -> None:
    joined = os.path.join(cwd, value)
    lexical, real = os.path.normpath(joined), os.path.realpath(joined)
    beneath = use.recursive and os.path.isdir(real)
    for path in dict.fromkeys((lexical, real)):
        why = secret(path, scope.homes, scope.root, beneath=beneath)
        if why is not None:
            shown = value if path == lexical and value == path else f"{value} ({path})"
            raise SecretRead(f"{use.command}: {shown}: {why}; cast never lets a command read it")
    if scope.strict and not confined(real, scope.root):
        shown = value if value == real else f"{value} ({real})"
        raise Blocked(
            f"{use.command}: {shown} is outside the workspace ({scope.root}) and the system's "
            f"directories; {_NO_KERNEL}, commands read only there, as read_file does"
        )
