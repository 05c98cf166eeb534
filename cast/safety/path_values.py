"""The paths one word can stand for when the command runs, computed before it runs, or None.

A path check judges what the program will open, so a word is computed as bash would: a leading
``~`` is a home directory (every home the user has, since cast may point ``HOME`` elsewhere),
a loop variable takes each value its loops give it (and the empty value it has before), and an
unquoted glob matches files now, read as a superset of what bash matches (hidden files too,
any bracket expression as any one character). A word whose value depends on anything else (a
command substitution, an environment variable, a value that would split or glob again) has no
computable value: None, which the caller treats as a path computed at run time.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
from collections.abc import Callable

from cast.safety.words import DYN, Word

_MAX_VALUES = 2000
_MAX_MATCHES = 2000
_BLANKS_AND_GLOBS = frozenset(" \t\n*?[")

Lookup = Callable[[str], "list[Word] | None"]  # a variable's possible words, None when unknown


def values(word: Word, cwd: str, homes: tuple[str, ...], bound: Lookup, *, keep_pattern: bool = True) -> list[str] | None:
    """Every string ``word`` can become (after globbing, relative paths left relative). With
    ``keep_pattern`` a glob's own text is one of them (bash passes it on when nothing matches,
    and a file may appear by then)."""
    choices = _choices(word, cwd, homes, bound)
    if choices is None:
        return None
    total = 1
    for alternatives in choices:
        total *= len(alternatives)
        if total > _MAX_VALUES:
            return None
    out: list[str] = []
    for combo in itertools.product(*choices):
        found = _expand(list(combo), cwd, keep_pattern=keep_pattern)
        if found is None:
            return None
        out.extend(found)
    return out


def _choices(word: Word, cwd: str, homes: tuple[str, ...], bound: Lookup) -> list[list[tuple[str, bool]]] | None:
    """Per piece of the word, its alternatives as (text, literal)."""
    pieces = list(word.pieces)
    choices: list[list[tuple[str, bool]]] = []
    i = 0
    if pieces and pieces[0][0] == DYN and pieces[0][2] == "~":
        end = next((k for k, (c, q, _) in enumerate(pieces) if c == "/" and not q), len(pieces))
        name = "".join(c for c, _, _ in pieces[1:end])
        homes_here = None if DYN in name else _tilde(name, cwd, homes)
        if homes_here is None:
            return None
        choices.append([(h, True) for h in homes_here])
        i = end
    for char, quoted, ref in pieces[i:]:
        if char != DYN:
            choices.append([(char, quoted or char not in "*?[")])
            continue
        alternatives = _variable(ref, quoted, cwd, homes, bound)
        if alternatives is None:
            return None
        choices.append(alternatives)
    return choices


def _variable(ref: str, quoted: bool, cwd: str, homes: tuple[str, ...], bound: Lookup) -> list[tuple[str, bool]] | None:
    """A loop variable's values (and the empty one it has before its loop), or None."""
    words = bound(ref) if ref and ref != "~" else None
    if words is None:
        return None
    alternatives: list[tuple[str, bool]] = [("", True)]
    for w in words:
        found = values(w, cwd, homes, _unknown, keep_pattern=False)
        if found is None:
            return None
        for value in found:
            if not quoted and _BLANKS_AND_GLOBS & set(value):
                return None  # it would split or glob again
            alternatives.append((value, True))
    return alternatives


def _unknown(name: str) -> None:
    """Inside a loop's own words, variables are not the loop's."""
    return None


def _tilde(name: str, cwd: str, homes: tuple[str, ...]) -> list[str] | None:
    if name == "":
        return list(homes) or None
    if name == "+":
        return [cwd]
    if name == "-":
        return None
    try:
        return [pwd.getpwnam(name).pw_dir]
    except KeyError:
        return ["~" + name]


def _expand(combo: list[tuple[str, bool]], cwd: str, *, keep_pattern: bool = True) -> list[str] | None:
    """Join one combination; glob it when an unquoted pattern character is in it."""
    text = "".join(t for t, _ in combo)
    if all(literal for _, literal in combo):
        return [text]
    pattern = _pattern(combo)
    matches: list[str] = []
    for match in glob.iglob(pattern, root_dir=cwd if not os.path.isabs(pattern) else None, include_hidden=True):
        matches.append(match)
        if len(matches) > _MAX_MATCHES:
            return None
    return (matches + [text]) if keep_pattern or not matches else matches


def _pattern(combo: list[tuple[str, bool]]) -> str:
    """A Python glob matching at least what bash's would: literal text escaped, each bracket
    expression as any one character."""
    out: list[str] = []
    k = 0
    while k < len(combo):
        text, literal = combo[k]
        if literal:
            out.append(glob.escape(text))
        elif text == "[":
            close = next((j for j in range(k + 2, len(combo)) if combo[j] == ("]", False)), None)
            if close is None or any(combo[j][0] == "/" for j in range(k, close)):
                out.append("[[]")
            else:
                out.append("?")
                k = close
        else:
            out.append(text)
        k += 1
    return "".join(out)
