"""Checks for commands whose danger lives in operands or scripts.

Each function takes the command name, its rule and the resolved arguments,
and raises ``Blocked`` unless the invocation only reads: ``date`` operands
that set the clock, ``sed``/``awk`` scripts, ``xxd``'s output operand,
``find`` actions and ``test -v``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cast.safety.awk_program import check_awk_program
from cast.safety.blocked import Blocked
from cast.safety.options import Rule, parse_options
from cast.safety.scripts import check_sed_script
from cast.safety.shell_variables import defer
from cast.safety.words import Word

_WRITES = "writes files"


def check_date(name: str, rule: Rule, args: list[Word]) -> None:
    """Any operand but ``+FORMAT`` sets the clock."""
    parsed = parse_options(name, args, rule)
    if len(parsed.positionals) > 1 or any(not w.fixed for w in parsed.positionals):
        raise Blocked("date: only one +FORMAT operand is allowed")
    for w in parsed.positionals:
        if not w.prefix.startswith("+"):
            raise Blocked(f"date: operand {w.source!r} would set the clock (only +FORMAT is allowed)")


def check_sed(name: str, rule: Rule, args: list[Word]) -> None:
    """The script (``-e`` values, else the first operand) must parse as the
    read-only subset in ``scripts``."""
    for w in args:
        flag = w.prefix.partition("=")[0]
        if len(flag) >= 3 and flag != "--expression" and "--expression".startswith(flag):
            raise Blocked(f"sed: abbreviated option {flag} (spell out --expression or use -e)")
    parsed = parse_options(name, args, rule)
    scripts = parsed.values_of("-e", "--expression")
    if not scripts:
        if not parsed.positionals:
            raise Blocked("sed: no script")
        scripts = [parsed.positionals[0]]
    for script in scripts:
        if not script.static:
            raise Blocked(f"sed: script {script.source} is expanded at run time")
    # GNU sed joins -e pieces with newlines before parsing; check what it parses.
    check_sed_script("\n".join(script.value for script in scripts))


def check_awk(name: str, rule: Rule, args: list[Word]) -> None:
    """Only ``-F`` and ``-v`` (``-f`` files, gawk's ``-i``/``-l``/``-o``/``-p``
    and mawk's ``-W`` load code or write); the program must be literal."""
    i, n = 0, len(args)
    program: Word | None = None
    while i < n:
        word = args[i]
        if not word.static:
            raise Blocked(f"{name}: argument {word.source} before the program is expanded at run time")
        value = word.value
        i += 1
        if value == "--":
            break
        if value in ("-F", "-v"):
            if i >= n or not args[i].fixed:
                raise Blocked(f"{name}: {value} needs one fixed value")
            i += 1
            continue
        if value.startswith(("-F", "-v")):
            continue
        if value.startswith("-") and value != "-":
            raise Blocked(f"{name}: option {value} is not allowed (only -F, -v)")
        program = word
        break
    if program is None:
        if i >= n:
            raise Blocked(f"{name}: no program")
        program = args[i]
        i += 1
    if not program.static:
        raise Blocked(f"{name}: program {program.source} is expanded at run time")
    try:
        check_awk_program(program.value)
    except Blocked as blocked:
        raise Blocked(blocked.reason.replace("awk:", f"{name}:", 1)) from None
    # Every awk stops reading options at the program, but nothing is lost by
    # refusing operands that look like options anyway.
    for word in args[i:]:
        looks_like_option = word.value.startswith("-") and word.value != "-" if word.static else not word.cannot_be_option
        if looks_like_option:
            raise Blocked(f"{name}: operand {word.source} could be read as an option")


_XXD_VALUE = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name", "-R"})


def check_xxd(name: str, rule: Rule, args: list[Word]) -> None:
    """xxd matches options by prefix (``-r``, ``-rev``, ``--revert`` all revert)
    and stops at the first operand; a second operand is the output file."""
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        if not word.static:
            if word.cannot_be_option:
                break
            raise Blocked(f"xxd: argument {word.source} is expanded at run time and could become an option")
        value = word.value
        flag = value[1:] if value.startswith("--") and len(value) > 2 else value
        if not flag.startswith("-") or flag == "-":
            break
        i += 1
        if value == "--":
            break
        if flag.startswith("-r"):
            raise Blocked(f"xxd: flag {value} reverses a dump and writes binary output")
        if flag in _XXD_VALUE:
            if i < n and not args[i].fixed:
                raise Blocked(f"xxd: value {args[i].source} of {value} may expand to several arguments")
            i += 1
    operands = args[i:]
    if any(not w.fixed for w in operands):
        raise Blocked("xxd: operands that expand at run time could name an output file")
    if len(operands) > 1:
        raise Blocked(f"xxd: operand {operands[1].source!r} would be written (at most 1 allowed)")


_FIND_NO_ARG = frozenset(
    {
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-true",
        "-false",
        "-empty",
        "-executable",
        "-readable",
        "-writable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-mount",
        "-xdev",
        "-noleaf",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "-daystart",
        "-follow",
        "-not",
        "!",
        "-a",
        "-and",
        "-o",
        "-or",
        "(",
        ")",
        ",",
        "-d",
    }
)
_FIND_ONE_ARG = frozenset(
    {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-regextype",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-anewer",
        "-cnewer",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-samefile",
        "-lname",
        "-ilname",
        "-maxdepth",
        "-mindepth",
        "-fstype",
        "-used",
        "-printf",
        "-context",
        "-files0-from",
    }
)
_FIND_WHY = {
    "-exec": "runs commands",
    "-execdir": "runs commands",
    "-ok": "runs commands",
    "-okdir": "runs commands",
    "-delete": "deletes files",
    "-fprint": _WRITES,
    "-fprint0": _WRITES,
    "-fprintf": _WRITES,
    "-fls": _WRITES,
}
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]\Z")


def check_find(name: str, rule: Rule, args: list[Word], check_argv: Callable[[list[Word]], None]) -> None:
    """Starting points, then an expression made only of listed tests. find
    reads any word starting with ``-`` as expression, so a run-time starting
    point must have a fixed prefix. ``check_argv`` judges a command -exec runs
    (command_rules' own, handed down: the inner command is judged like any other)."""
    i, n = 0, len(args)
    while i < n and args[i].static and args[i].value in ("-H", "-L", "-P"):
        i += 1
    while i < n:
        word = args[i]
        if word.static and (word.value.startswith("-") or word.value in ("(", "!")):
            break
        if not word.cannot_be_option:
            raise Blocked(f"find: starting point {word.source} could expand to an expression (use ./ prefix)")
        i += 1
    while i < n:
        word = args[i]
        i += 1
        if not word.static:
            raise Blocked(f"find: expression word {word.source} is expanded at run time")
        token = word.value
        if token in ("-exec", "-execdir"):
            i = _find_exec(token, args, i, check_argv)
            continue
        if token in _FIND_WHY:
            raise Blocked(f"find: {token} {_FIND_WHY[token]}")
        if token in _FIND_NO_ARG:
            continue
        if token in _FIND_ONE_ARG or _FIND_NEWER.match(token):
            if i >= n:
                raise Blocked(f"find: {token} needs an argument")
            if args[i].splits or args[i].globs:
                raise Blocked(f"find: argument {args[i].source} of {token} may expand to several words")
            i += 1
            continue
        raise Blocked(f"find: {token!r} is not an allowed find expression")


_FOUND = Word("{}", "{}", False, "", False, False, True, (("\x00", False, ""),))  # a path find found


def _find_exec(token: str, args: list[Word], i: int, check_argv: Callable[[list[Word]], None]) -> int:
    """``-exec CMD ... {} ;`` (or ``+``) runs CMD on what find found: allowed when CMD itself
    passes with ``{}`` standing for paths that cannot start with ``-`` (they start with a
    starting point, or ``./`` under -execdir), several of them with ``+``."""
    end = next((k for k in range(i, len(args)) if args[k].static and args[k].value in (";", "+")), None)
    if end is None:
        raise Blocked(f"find: {token} runs commands, and its command has no ';' or '+' at the end")
    inner, plus = args[i:end], args[end].value == "+"
    if not inner or not inner[0].static or inner[0].value == "{}":
        raise Blocked(f"find: {token} runs commands, and the command must be a fixed name")
    if any(not w.static or ("{}" in w.value and w.value != "{}") for w in inner):
        raise Blocked(f"find: {token} runs commands, and their words must be fixed ({{}} on its own)")
    if plus and inner[-1].value != "{}":
        raise Blocked(f"find: {token} ... + runs commands, and must end with {{}}")
    found = _FOUND if not plus else Word("{}", "{}", False, "", True, False, True, (("\x00", False, ""),))
    try:
        check_argv([found if w.value == "{}" else w for w in inner])
    except Blocked as blocked:
        raise Blocked(f"find: {token} runs commands: {blocked.reason}") from None
    return end + 1


_TEST_UNARY = frozenset("-a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N -O -S -z -n -o".split())
_TEST_BINARY = frozenset("= == != < > -eq -ne -lt -le -gt -ge -nt -ot -ef".split())
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_test_args(name: str, args: list[Word]) -> None:
    """``test``/``[``: ``-v NAME`` evaluates array subscripts in NAME, which can
    run commands (``test -v 'a[$(cmd)]'``). A dynamic operand is allowed only
    where it cannot be read as that operator. Inside a loop over literal words the
    test is checked once per value when the line has been walked."""
    if any(w.splits for w in args) and defer(args, lambda variant: check_test_args(name, variant)):
        return
    for j, w in enumerate(args):
        if w.splits:
            raise Blocked(f"{name}: unquoted expansion {w.source} may change the expression")
        if w.static and w.value in ("-v", "-R") and j + 1 < len(args):
            nxt = args[j + 1]
            if not (nxt.static and _IDENTIFIER.match(nxt.value)):
                raise Blocked(f"{name}: {w.value} with {nxt.source} evaluates array subscripts, which can run commands")
    if all(w.static for w in args):
        return
    shape = args[1:] if args and args[0].static and args[0].value == "!" else args
    if len(shape) == 1:
        return
    if len(shape) == 2 and shape[0].static and shape[0].value in _TEST_UNARY:
        return
    if len(shape) == 3 and shape[1].static and shape[1].value in _TEST_BINARY:
        return
    raise Blocked(f"{name}: run-time values are only allowed in simple one-operator tests")


def check_test(name: str, rule: Rule, args: list[Word]) -> None:
    if name == "[":
        if not args or not args[-1].static or args[-1].value != "]":
            raise Blocked("[: missing ']'")
        args = args[:-1]
    check_test_args(name, args)
