"""Table-driven verdicts for the plan-mode read-only bash checker.

The tables live in ``corpus.py`` (shared with the benchmark). Blocked cases
also name a fragment the reason must contain, so a command refused for the
wrong reason still fails.
"""

from __future__ import annotations

import dataclasses

import corpus
import pytest

from cast.safety import bash_check, source_text
from cast.safety.bash_check import Verdict, check


def _id(command: str) -> str:
    text = command.encode("unicode_escape").decode("ascii")
    return text if len(text) <= 70 else text[:67] + "..."


def ok_cases(table: list[str]):
    return pytest.mark.parametrize("command", table, ids=[_id(c) for c in table])


def blocked_cases(table: list[tuple[str, str]]):
    return pytest.mark.parametrize("command,why", table, ids=[_id(c) for c, _ in table])


def assert_allowed(command: str) -> None:
    verdict = check(command)
    assert verdict.allowed, f"refused {command!r}: {verdict.reason}"
    assert verdict.reason == "read-only"


def assert_blocked(command: str, why: str) -> None:
    verdict = check(command)
    assert not verdict.allowed, f"allowed {command!r}"
    assert verdict.reason, "a refusal must say why"
    assert why in verdict.reason, f"{command!r}: reason {verdict.reason!r} lacks {why!r}"


class TestUsability:
    @ok_cases(corpus.USABILITY_OK)
    def test_realistic_read_only_commands_pass(self, command: str) -> None:
        assert_allowed(command)


class TestRedirectionWrites:
    @blocked_cases(corpus.REDIRECTION_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.REDIRECTION_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestSubstitutionSmuggling:
    @blocked_cases(corpus.SUBSTITUTION_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.SUBSTITUTION_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestWritingFlags:
    @blocked_cases(corpus.WRITING_FLAGS_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.WRITING_FLAGS_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestGlobInjection:
    @blocked_cases(corpus.GLOB_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.GLOB_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestExpansions:
    @blocked_cases(corpus.EXPANSION_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.EXPANSION_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestWrappers:
    @blocked_cases(corpus.WRAPPERS_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.WRAPPERS_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestInterpreters:
    @blocked_cases(corpus.INTERPRETERS_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @blocked_cases(corpus.VERSION_PROBES_BLOCKED)
    def test_version_probe_lookalikes_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.VERSION_PROBES_OK)
    def test_version_probes_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestArithmeticInjection:
    @blocked_cases(corpus.ARITHMETIC_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.ARITHMETIC_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestControlFlow:
    @blocked_cases(corpus.CONTROL_FLOW_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.CONTROL_FLOW_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestShellVariables:
    @blocked_cases(corpus.SHELL_VARIABLES_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.SHELL_VARIABLES_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestCommandNames:
    @blocked_cases(corpus.COMMAND_NAMES_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)


class TestGit:
    @blocked_cases(corpus.GIT_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.GIT_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestPip:
    @blocked_cases(corpus.PIP_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)


class TestSedScripts:
    @blocked_cases(corpus.SED_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.SED_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestAwkPrograms:
    @blocked_cases(corpus.AWK_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.AWK_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestFind:
    @blocked_cases(corpus.FIND_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)

    @ok_cases(corpus.FIND_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestHeredocs:
    @ok_cases(corpus.HEREDOC_OK)
    def test_allowed(self, command: str) -> None:
        assert_allowed(command)


class TestParserDivergence:
    @blocked_cases(corpus.PARSER_DIVERGENCE_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)


class TestParseFailures:
    @blocked_cases(corpus.PARSE_FAILURES_BLOCKED)
    def test_blocked(self, command: str, why: str) -> None:
        assert_blocked(command, why)


class TestVerdictApi:
    def test_verdict_is_frozen(self) -> None:
        verdict = check("ls")
        assert verdict == Verdict(True, "read-only")
        with pytest.raises(dataclasses.FrozenInstanceError):
            verdict.allowed = False  # type: ignore[misc]

    def test_check_is_pure(self) -> None:
        for command in ("ls | wc -l", "rm -rf /", "sort -o x y"):
            assert check(command) == check(command)

    def test_exactly_the_length_limit_is_checked_normally(self) -> None:
        command = "echo " + "x" * (source_text.MAX_CHARS - 5)
        assert len(command) == source_text.MAX_CHARS
        assert_allowed(command)

    def test_internal_errors_fail_closed(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def boom(words: object) -> None:
            raise ValueError("unexpected")

        monkeypatch.setattr(bash_check, "check_argv", boom)
        verdict = check("ls")
        assert not verdict.allowed
        assert "checker error" in verdict.reason

    def test_threads_get_the_same_verdicts(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        commands = [c for c in corpus.USABILITY_OK + [c for c, _ in corpus.GIT_BLOCKED]] * 3
        expected = [check(c) for c in commands]
        with ThreadPoolExecutor(max_workers=8) as pool:
            assert list(pool.map(check, commands)) == expected

    def test_deep_nesting_fails_closed(self) -> None:
        command = "echo " + "$(" * 400 + "ls" + ")" * 400
        assert not check(command).allowed
