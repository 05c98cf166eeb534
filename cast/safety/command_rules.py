"""One command's argv against the read-only table, and the checks that need more than a table.

``RULES`` (``command_table.py``) is the allowlist: a command absent from it is
refused. Most entries are plain data (forbidden flags, flags taking values,
operand limits); the few commands whose danger lives in their operands or
scripts name a validator, found here in ``VALIDATORS``. ``REFUSED``
(``refused.py``) gives specific reasons for well-known commands that are never
read-only, so a refusal says why rather than just "unknown".

Wrappers (``timeout``, ``nice``, ``env``, ``command``, ``time``) run their
operands as a command, which is checked exactly as if written directly.
``xargs`` appends arguments no one can see in advance, so the command it
runs must be safe with any arguments at all.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from cast.safety.blocked import Blocked
from cast.safety.command_table import PRINTS_ITS_VERSION, READS_TREE_CONFIG, RULES, SYNTAX_CHECKS, VERSION_PROBES
from cast.safety.git_rules import check_git
from cast.safety.operand_checks import (
    check_awk,
    check_date,
    check_find,
    check_sed,
    check_test,
    check_xxd,
)
from cast.safety.options import Rule, check_operands, parse_options
from cast.safety.path_operands import computed_in_strict, note_command, note_path, reads_paths
from cast.safety.refused import REFUSED
from cast.safety.tar_listing import check_tar
from cast.safety.words import Word

STRICT: ContextVar[bool] = ContextVar("cast_checker_strict", default=False)
_STRICT_NOTE = "refused in the strict subset (no kernel sandbox under the checker)"

Validator = Callable[[str, Rule, list[Word]], None]


def check_argv(words: list[Word]) -> None:
    """Refuse unless the command named by ``words[0]`` only reads."""
    if not words:
        raise Blocked("empty command")
    name_word = words[0]
    if not name_word.static:
        raise Blocked(f"command name {name_word.source!r} is expanded at run time")
    name = name_word.value
    if not name:
        raise Blocked("empty command name")
    if "/" in name:
        raise Blocked(f"path-qualified command {name!r} is not allowed (only known commands by name)")
    if STRICT.get() and name in READS_TREE_CONFIG:
        raise Blocked(f"{name}: {READS_TREE_CONFIG[name]}; {_STRICT_NOTE}")
    args = words[1:]
    if name in PRINTS_ITS_VERSION and len(args) == 1 and args[0].static and args[0].value in ("--version", "--help"):
        return
    checks = SYNTAX_CHECKS.get(name)
    if checks is not None and len(args) == 2 and args[0].static and args[0].value in checks:
        if not (args[1].fixed and args[1].cannot_be_option):
            raise Blocked(f"{name} {args[0].value}: the file {args[1].source} must be one fixed path")
        note_path(name, args[1])
        return
    probes = VERSION_PROBES.get(name)
    if probes is not None and all(w.static for w in args):
        if tuple(w.value for w in args) in probes:
            return
    rule = RULES.get(name)
    if rule is None:
        why = REFUSED.get(name)
        if why is not None:
            raise Blocked(f"{name}: {why}")
        raise Blocked(f"{name}: not on the read-only command list")
    if rule.validator is not None:
        VALIDATORS[rule.validator](name, rule, args)
    elif not rule.any_args:
        check_operands(name, rule, parse_options(name, args, rule))
    note_command(name, args)


def safe_with_any_args(name: str) -> bool:
    rule = RULES.get(name)
    return rule is not None and rule.any_args


# --- wrappers ----------------------------------------------------------------


def _inner(name: str, args: list[Word], start: int) -> None:
    if start >= len(args):
        raise Blocked(f"{name}: no command to run")
    try:
        check_argv(args[start:])
    except Blocked as blocked:
        raise Blocked(f"{name}: {blocked.reason}") from None


def _env(name: str, rule: Rule, args: list[Word]) -> None:
    if not args:
        return
    first = args[0]
    if not first.static or first.value.startswith("-") or "=" in first.value:
        raise Blocked(f"env: {first.source!r} changes the environment of the command it runs")
    _inner(name, args, 0)


def _command(name: str, rule: Rule, args: list[Word]) -> None:
    if args and args[0].static and args[0].value in ("-v", "-V"):
        return
    if args and args[0].static and args[0].value.startswith("-"):
        why = "searches a default PATH, past the one cast prepares" if "p" in args[0].value else "is not allowed"
        raise Blocked(f"command: option {args[0].value} {why}")
    _inner(name, args, 0)


_TIMEOUT = Rule(
    allowed_short="ksv",
    allowed_long=frozenset({"--kill-after", "--signal", "--foreground", "--preserve-status", "--verbose"}),
    short_value="ks",
    long_value=frozenset({"--kill-after", "--signal"}),
    permute=False,
)
_NICE = Rule(
    allowed_short="n",
    allowed_long=frozenset({"--adjustment"}),
    short_value="n",
    long_value=frozenset({"--adjustment"}),
    permute=False,
)
_TIME = Rule(allowed_short="p", allowed_long=frozenset(), permute=False)
_XARGS = Rule(
    allowed_short="0rtxnLPdsaE",
    allowed_long=frozenset(
        {
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--max-args",
            "--max-lines",
            "--max-procs",
            "--delimiter",
            "--max-chars",
            "--arg-file",
        }
    ),
    short_value="nLPdsaE",
    long_value=frozenset({"--max-args", "--max-lines", "--max-procs", "--delimiter", "--max-chars", "--arg-file"}),
    permute=False,
)


def _wrapper(own: Rule, operands_before_command: int) -> Validator:
    def check(name: str, rule: Rule, args: list[Word]) -> None:
        parsed = parse_options(name, args, own, stop_at_operand=True)
        start = parsed.first_positional
        if start is None:
            if name == "time" and not args:
                return
            raise Blocked(f"{name}: no command to run")
        for k in range(operands_before_command):
            if start + k >= len(args) or not args[start + k].fixed:
                raise Blocked(f"{name}: expected a fixed duration before the command")
        _inner(name, args, start + operands_before_command)

    return check


def _xargs(name: str, rule: Rule, args: list[Word]) -> None:
    parsed = parse_options(name, args, _XARGS, stop_at_operand=True)
    start = parsed.first_positional
    if start is None:
        return  # runs echo
    inner = args[start]
    if not inner.static or not safe_with_any_args(inner.value):
        raise Blocked(f"xargs: {inner.source!r} must be safe with any arguments (xargs appends input words)")
    if reads_paths(inner.value):
        computed_in_strict("xargs", f"{inner.value} reads files whose names xargs appends from its input")
    check_argv(args[start:])


VALIDATORS: dict[str, Validator] = {
    "date": check_date,
    "sed": check_sed,
    "awk": check_awk,
    "xxd": check_xxd,
    "find": lambda name, rule, args: check_find(name, rule, args, check_argv),
    "git": lambda name, rule, args: check_git(args),
    "test": check_test,
    "env": _env,
    "command": _command,
    "timeout": _wrapper(_TIMEOUT, 1),
    "nice": _wrapper(_NICE, 0),
    "time": _wrapper(_TIME, 0),
    "xargs": _xargs,
    "tar": check_tar,
}
