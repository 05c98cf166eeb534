"""A reserved word glued to the text after it is a command name: shown in real bash, refused by the checker.

Each shape runs in real bash in a scratch directory that holds planted programs (`[[x/evil`,
`[x/evil`, `[[!x/evil`, `{x/evil`, and `[[a` on the PATH); a planted program that runs leaves a
marker. The checker must refuse exactly the shapes where bash ran one, in both modes, and allow
the same conditions written with the keyword standing alone, where bash runs nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cast.safety.bash_check import check

_BASH = shutil.which("bash")

RUNS_A_PROGRAM = [
    "[[x/evil == b ]]",
    '[["a" == "b" ]]',
    "[x/evil ]",
    "[[!x/evil ]]",
    "{x/evil\n}",
    "if [[x/evil ]]; then :; fi",
    "true && [x/evil ]",
    "echo $([[x/evil ]])",
    "for i in 1; do [[x/evil ]]; done",
    "case a in a) [x/evil ];; esac",
    "ls | [[x/evil ]]",
]
RUNS_NOTHING = [
    "[[ x/evil == b ]]",
    '[[ "a" == "b" ]]',
    "[ x/evil ]",
    "[[ ! x/evil ]]",
    "[[(x/evil) ]]",
    "{ echo x/evil; }",
    "if [[ -f x/evil ]]; then :; fi",
    "[[ a ]];ls",
    "{ ls;};ls",
    "echo [[x/evil",
]
_PLANTED = ("[[x", "[x", "[[!x", "{x")


def _plant(work: Path, bin_dir: Path, marks: Path) -> None:
    script = f"#!/bin/sh\ntouch '{marks}/ran'\n"
    for directory in _PLANTED:
        (work / directory).mkdir()
        (work / directory / "evil").write_text(script)
        (work / directory / "evil").chmod(0o755)
    (work / "x").mkdir()
    (bin_dir / "[[a").write_text(script)
    (bin_dir / "[[a").chmod(0o755)


def _runs_a_planted_program(command: str, tmp_path: Path) -> bool:
    work, bin_dir, marks = tmp_path / "work", tmp_path / "bin", tmp_path / "marks"
    for d in (work, bin_dir, marks):
        d.mkdir()
    _plant(work, bin_dir, marks)
    env = {"PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(tmp_path), "LC_ALL": "C"}
    subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", command],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
    )
    return (marks / "ran").exists()


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command", RUNS_A_PROGRAM)
def test_a_glued_reserved_word_runs_a_program_and_is_refused(command: str, tmp_path: Path) -> None:
    assert _runs_a_planted_program(command, tmp_path), f"bash ran no planted program for {command!r}"
    for strict in (False, True):
        verdict = check(command, strict=strict)
        assert not verdict.allowed, f"checker allowed {command!r} (strict={strict})"
        assert "not on the read-only command list" in verdict.reason, verdict.reason


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command", RUNS_NOTHING)
def test_a_reserved_word_standing_alone_runs_nothing_and_passes(command: str, tmp_path: Path) -> None:
    assert not _runs_a_planted_program(command, tmp_path), f"bash ran a planted program for {command!r}"
    verdict = check(command, strict=True)
    assert verdict.allowed, verdict.reason


def test_the_reason_names_the_word_bash_runs() -> None:
    verdict = check("[[x/evil == b ]]")
    assert verdict.reason.startswith("[[x/evil: not on the read-only command list"), verdict.reason
