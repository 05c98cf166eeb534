"""Read a command's arguments the way its option parser will.

A writing flag hides in many spellings: inside a cluster (``sort -uo f``), as
``--output=f``, as a getopt_long abbreviation (``--out f``), or after a
permuted operand (``rm x -f``). ``parse_options`` walks resolved words with
GNU getopt semantics and stops at the first flag the rule forbids.

Mistakes must fall on the safe side, so rules list only flags known to take
a *required* value: a flag wrongly believed to take one would hide the next
word from the checks, while a missed one only makes the next word a checked
flag or operand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from cast.safety.blocked import Blocked
from cast.safety.words import Word

_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class Rule:
    """What one command accepts.

    ``forbidden`` maps flags (``-o``, ``--output``) to why they are refused.
    ``short_optional`` flags take a value only when attached (``-Iseconds``).
    ``allowed_short``/``allowed_long`` switch to allowlist mode: every flag
    must be listed. ``double_dash`` is False for parsers not known to end
    options at ``--``. ``exact_long`` names allowed long options that are
    prefixes of a forbidden one (``--text`` beside ``--textconv``).
    A command with none of the restrictions is safe with any arguments.
    """

    forbidden: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    short_value: str = ""
    short_optional: str = ""
    long_value: frozenset[str] = frozenset()
    exact_long: frozenset[str] = frozenset()
    allowed_short: str | None = None
    allowed_long: frozenset[str] | None = None
    max_positionals: int | None = None
    permute: bool = True
    abbreviations: bool = True
    double_dash: bool = True
    validator: str | None = None

    @property
    def any_args(self) -> bool:
        return (
            not self.forbidden
            and self.allowed_short is None
            and self.allowed_long is None
            and self.max_positionals is None
            and self.validator is None
        )


@dataclass
class Parsed:
    flags: list[str] = field(default_factory=list)
    values: list[tuple[str, Word]] = field(default_factory=list)
    positionals: list[Word] = field(default_factory=list)
    first_positional: int | None = None

    def has(self, *flags: str) -> bool:
        return any(f in self.flags for f in flags)

    def values_of(self, *flags: str) -> list[Word]:
        return [w for f, w in self.values if f in flags]


def _refuse(cmd: str, flag: str, why: str) -> Blocked:
    return Blocked(f"{cmd}: flag {flag} {why}")


def _long_name(cmd: str, rule: Rule, name: str) -> None:
    """Refuse ``name`` if it is, or abbreviates, a forbidden long option."""
    for bad, why in rule.forbidden.items():
        if not bad.startswith("--"):
            continue
        if name == bad:
            raise _refuse(cmd, name, why)
        if rule.abbreviations and len(name) >= 3 and bad.startswith(name) and name not in rule.exact_long:
            raise _refuse(cmd, name, f"(abbreviation of {bad}) {why}")
    if rule.allowed_long is not None and name not in rule.allowed_long:
        raise Blocked(f"{cmd}: option {name} is not allowed")


def _short(cmd: str, rule: Rule, flag: str) -> None:
    why = rule.forbidden.get(flag)
    if why is not None:
        raise _refuse(cmd, flag, why)
    if rule.allowed_short is not None and flag[1] not in rule.allowed_short:
        raise Blocked(f"{cmd}: option {flag} is not allowed")


def parse_options(cmd: str, args: list[Word], rule: Rule, *, stop_at_operand: bool = False) -> Parsed:
    """Check every flag in ``args`` against ``rule`` and sort out the operands.

    Dynamic words may stand where an operand is expected only if they cannot
    start with ``-``; otherwise their value could be any flag.
    """
    out = Parsed()
    only_operands = False
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        i += 1
        if only_operands:
            if out.first_positional is None:
                out.first_positional = i - 1
            out.positionals.append(word)
            continue
        if not word.static:
            pending = _dynamic_flag(cmd, rule, word)
            if pending is None:
                if out.first_positional is None:
                    out.first_positional = i - 1
                out.positionals.append(word)
                if stop_at_operand or not rule.permute:
                    only_operands = True
            continue
        value = word.value
        if value == "--" and rule.double_dash:
            only_operands = True
            continue
        if value.startswith("--"):
            name, eq, _ = value.partition("=")
            _long_name(cmd, rule, name)
            out.flags.append(name)
            if name in rule.long_value and not eq:
                i = _take_value(cmd, args, i, name, out)
            elif eq:
                out.values.append((name, Word.literal(value[len(name) + 1 :])))
            continue
        if value.startswith("-") and len(value) > 1:
            i = _cluster(cmd, rule, value, args, i, out)
            continue
        if out.first_positional is None:
            out.first_positional = i - 1
        out.positionals.append(word)
        if stop_at_operand or not rule.permute:
            only_operands = True
    return out


def _cluster(cmd: str, rule: Rule, value: str, args: list[Word], i: int, out: Parsed) -> int:
    for j in range(1, len(value)):
        flag = "-" + value[j]
        _short(cmd, rule, flag)
        out.flags.append(flag)
        rest = value[j + 1 :]
        if value[j] in rule.short_optional:
            if rest:
                out.values.append((flag, Word.literal(rest)))
            return i
        if value[j] in rule.short_value:
            if rest:
                out.values.append((flag, Word.literal(rest)))
                return i
            return _take_value(cmd, args, i, flag, out)
    return i


def _take_value(cmd: str, args: list[Word], i: int, flag: str, out: Parsed) -> int:
    if i >= len(args):
        return i
    word = args[i]
    if not word.fixed:
        raise Blocked(f"{cmd}: value {word.source} of {flag} may expand to several arguments")
    out.values.append((flag, word))
    return i + 1


def _dynamic_flag(cmd: str, rule: Rule, word: Word) -> str | None:
    """Judge a word whose value is only known at run time.

    Returns None when the word is an operand. A known ``--name=`` or ``-x``
    prefix still lets the flag itself be checked; anything else that might
    start with ``-`` is refused.
    """
    if word.cannot_be_option:
        return None
    prefix = word.prefix
    if not word.splits and prefix.startswith("--") and "=" in prefix:
        name = prefix.partition("=")[0]
        _long_name(cmd, rule, name)
        return name
    if not word.splits and prefix.startswith("-") and not prefix.startswith("--"):
        for j in range(1, len(prefix)):
            flag = "-" + prefix[j]
            _short(cmd, rule, flag)
            if prefix[j] in rule.short_value or prefix[j] in rule.short_optional:
                return flag
    raise Blocked(
        f"{cmd}: argument {word.source} is expanded at run time and could become an option"
        " (put it after '--' or give it a fixed prefix such as ./)"
    )


def check_operands(cmd: str, rule: Rule, parsed: Parsed) -> None:
    """Enforce operand limits such as ``uniq IN OUT``, where OUT is written."""
    limit = rule.max_positionals
    if limit is None:
        return
    if any(not w.fixed for w in parsed.positionals):
        raise Blocked(f"{cmd}: operands that expand at run time could exceed {limit} (the next one is written)")
    if len(parsed.positionals) > limit:
        extra = parsed.positionals[limit]
        raise Blocked(f"{cmd}: operand {extra.source!r} would be written (at most {limit} allowed)")
