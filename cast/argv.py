"""The command lines cast reads without typer: the bare REPL (`cast [--model ID] [--max-steps N]`),
the two commands that send a request soon after they start, `cast [COMMON] plan …` and
`cast [COMMON] execute …`, and `cast [COMMON] resume [SESSION]`, whose first prompt should not
wait either. Importing typer and coercing its options costs a third of the time to the first
request; these lines need neither.

Only the plain forms are read here: each option once, as `--name VALUE` or `--name=VALUE`, flags
without a value, at most one positional that does not look like an option. Anything else (`--help`,
`--`, a repeated or unknown option, a bundled `-iy`, a value typer would refuse) returns None and
goes to typer, which owns the messages. tests/test_argv.py checks that every line read here is read
the same way by typer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COMMON_VALUES = {"--model": "model", "--max-steps": "max_steps"}
COMMON_FLAGS = {"--json": "json"}


@dataclass(frozen=True)
class Grammar:
    positional: str
    values: dict[str, str]
    flags: dict[str, str]


COMMANDS = {
    "plan": Grammar(
        positional="task",
        values={**COMMON_VALUES, "--answers": "answers"},
        flags={**COMMON_FLAGS, "-i": "interactive", "--interactive": "interactive"},
    ),
    "execute": Grammar(
        positional="plan",
        values={**COMMON_VALUES, "--answers": "answers", "--revision": "revision"},
        flags={**COMMON_FLAGS, "-y": "yes", "--yes": "yes"},
    ),
    "resume": Grammar(positional="session", values=COMMON_VALUES, flags={}),  # --json only before it (refused then)
}
INTEGERS = {"max_steps"}  # typer.Option(min=1)


@dataclass(frozen=True)
class Command:
    """A command line read: which command, and its arguments as the command function takes them."""

    name: str  # "plan", "execute" or "resume"
    arguments: dict[str, Any]


def read_command(argv: list[str]) -> Command | None:
    """`cast [--model ID] [--max-steps N] [--json] plan|execute|resume …`, or None for typer to read."""
    common: dict[str, Any] = {}
    rest = _read(argv, Grammar("", COMMON_VALUES, COMMON_FLAGS), common, stop_at_positional=True)
    if rest is None or not rest or rest[0] not in COMMANDS:
        return None
    name, grammar = rest[0], COMMANDS[rest[0]]
    own: dict[str, Any] = {}
    if _read(rest[1:], grammar, own, stop_at_positional=False) is None:
        return None
    arguments = {grammar.positional: None, **own}
    for key in ("model", "max_steps"):  # given after the command wins over before it
        arguments[key] = own.get(key) or common.get(key)
    arguments["json"] = bool(own.get("json") or common.get("json"))
    return Command(name, arguments)


def read_bare_repl(argv: list[str]) -> dict[str, Any] | None:
    """`cast`, `cast --model ID`, `cast --max-steps N`: the REPL's options, or None."""
    values: dict[str, Any] = {}
    rest = _read(argv, Grammar("", COMMON_VALUES, {}), values, stop_at_positional=True)
    return values if rest == [] else None


def _read(argv: list[str], grammar: Grammar, into: dict[str, Any], stop_at_positional: bool) -> list[str] | None:
    """Read options (and the positional) into `into`; what is left after a positional when
    `stop_at_positional`, else []; None when the line is not a plain one."""
    rest = list(argv)
    while rest:
        word = rest[0]
        if not word.startswith("-") or word == "-":
            if stop_at_positional:
                return rest
            if grammar.positional in into or word == "-":
                return None
            into[grammar.positional] = rest.pop(0)
            continue
        rest.pop(0)
        name, equals, value = word.partition("=")
        key = grammar.values.get(name) or grammar.flags.get(name)
        if key is None or key in into:
            return None
        if name in grammar.flags:
            if equals:
                return None
            into[key] = True
            continue
        if not equals:
            if not rest or rest[0].startswith("-"):
                return None
            value = rest.pop(0)
        if not value:
            return None
        if key in INTEGERS:
            if not (value.isascii() and value.isdigit() and int(value) >= 1):
                return None
            into[key] = int(value)
        else:
            into[key] = value
    return rest
