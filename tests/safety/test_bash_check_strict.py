"""The strict subset: what plan mode may run when no kernel sandbox backs the checker.

Without a sandbox, nothing stands behind the checker's reading of a command, so
programs that take configuration from the tree (git and its local config,
interpreters that version managers pick from .python-version, .tool-versions,
go.mod) are refused as well. The rest of the checker is unchanged.
"""

from __future__ import annotations

import pytest

from cast.safety.bash_check import check, check_strict
from cast.safety.command_table import READS_TREE_CONFIG, RULES, VERSION_PROBES

STRICT_BLOCKED = [
    ("git status", "git: runs with the repository's own configuration"),
    ("git log -1", "strict subset"),
    ("timeout 5 git diff", "timeout: git"),
    ("env git status", "env: git"),
    ("command git status", "command: git"),
    ("echo $(git rev-parse HEAD)", "git"),
    ("cat <(git diff)", "git"),
    ("ls && git log", "git"),
    ("python3 --version", "version manager"),
    ("python3 -V", "version manager"),
    ("node --version", "version manager"),
    ("go version", "version manager"),
    ("ruby --version", "version manager"),
    ("wc -l $(ls)", "wc: path $(ls) is computed at run time"),
    ('find ./src -type f | while read f; do cat "$f"; done', 'cat: path "$f" is computed at run time'),
    ('out=$(ls); cat "$out"', 'cat: path "$out" is computed at run time'),
    ("out=$(git status)", "git: runs with the repository's own configuration"),
    ('for f in a b; do out=$(ls); cat "$f"; done; cat $out', "computed at run time"),
]

STRICT_OK = [
    "ls -la",
    "rg -n foo src",
    "grep -rn foo .",
    "find . -name '*.py'",
    "sed -n 1,20p README.md",
    "awk '{print $1}' data",
    "cat a | sort | uniq -c",
    "command -v git",
    "which git",
    "wc -l ./*",
    "for x in 1 2; do if test $x = 1; then echo one; fi; done",
    'out=$(ls src); echo "$out"',
    'ls | while read -r f; do echo "$f"; done',
]


@pytest.mark.parametrize("command,why", STRICT_BLOCKED)
def test_strict_refuses_programs_that_read_the_tree(command: str, why: str) -> None:
    assert check(command).allowed, command  # fine under a sandbox
    verdict = check(command, strict=True)
    assert not verdict.allowed and why in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", STRICT_OK)
def test_strict_keeps_the_rest(command: str) -> None:
    assert check(command, strict=True).allowed, check(command, strict=True).reason


def test_every_tree_reader_is_refused_in_strict_mode() -> None:
    for name in READS_TREE_CONFIG:
        assert name in RULES or name in VERSION_PROBES, name
        probe = f"{name} version" if name in ("git", "go") else f"{name} {next(iter(VERSION_PROBES[name]))[0]}"
        assert not check(probe, strict=True).allowed, probe


def test_strict_does_not_leak_into_later_checks() -> None:
    assert not check("git status", strict=True).allowed
    assert check("git status").allowed
    assert not check("git status", strict=True).allowed


def test_check_strict_is_the_strict_subset() -> None:
    assert not check_strict("git log -1").allowed
    assert check_strict("ls -la").allowed
