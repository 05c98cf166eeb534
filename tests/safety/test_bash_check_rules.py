"""Keep the rule tables and the tests from drifting apart.

Every command in ``RULES`` needs an allowed case, and a refused one if it has
any restriction; every git subcommand needs the same; every refused name and
version probe is exercised.
"""

from __future__ import annotations

import corpus
import pytest

from cast.safety.bash_check import check
from cast.safety.command_table import RULES, VERSION_PROBES
from cast.safety.git_rules import SUBCOMMANDS
from cast.safety.refused import REFUSED


def test_coverage_table_matches_rule_table() -> None:
    assert set(corpus.COVERAGE) == set(RULES)


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_has_an_allowed_case(name: str) -> None:
    allowed, _ = corpus.COVERAGE[name]
    assert allowed.split()[0] == name
    verdict = check(allowed)
    assert verdict.allowed, f"{allowed!r}: {verdict.reason}"


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_restricted_rule_has_a_blocked_case(name: str) -> None:
    _, blocked = corpus.COVERAGE[name]
    if RULES[name].any_args:
        assert blocked is None, f"{name} has no restrictions to test"
        return
    assert blocked is not None, f"{name} has restrictions but no blocked case"
    assert blocked.split()[0] == name
    verdict = check(blocked)
    assert not verdict.allowed, blocked
    assert name in verdict.reason


def _git_cases(table: list) -> set[str]:
    subs = set()
    for case in table:
        command = case[0] if isinstance(case, tuple) else case
        words = command.split()
        if words[0] != "git":
            continue
        for word in words[1:]:
            if not word.startswith("-"):
                subs.add(word)
                break
    return subs


@pytest.mark.parametrize("sub", sorted(SUBCOMMANDS))
def test_every_git_subcommand_is_exercised(sub: str) -> None:
    assert sub in _git_cases(corpus.GIT_OK), f"no allowed case for git {sub}"
    if not SUBCOMMANDS[sub].any_args:
        assert sub in _git_cases(corpus.GIT_BLOCKED), f"no blocked case for git {sub}"


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_commands_say_why(name: str) -> None:
    verdict = check(f"{name} x")
    assert not verdict.allowed
    assert verdict.reason.startswith(f"{name}: ")


@pytest.mark.parametrize(
    "argv",
    sorted(" ".join((name, *form)) for name, forms in VERSION_PROBES.items() for form in forms),
)
def test_every_version_probe_is_allowed(argv: str) -> None:
    assert check(argv).allowed, argv


def test_corpus_is_large() -> None:
    assert len(corpus.all_cases()) >= 300
