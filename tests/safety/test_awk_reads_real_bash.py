"""awk's own ways of choosing what it reads, run in real bash against a fake home holding a
planted key: a program that assigns ARGV/ARGC reads a file no operand named, past every path
check, so it is refused in every mode; a plain `getline` only reads on in the input awk already
reads, so it passes and changes nothing, while `getline < file` and `cmd | getline` stay refused."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cast.safety.awk_program import check_awk_program
from cast.safety.bash_check import check
from cast.safety.blocked import Blocked

_BASH, _AWK = shutil.which("bash"), shutil.which("awk")
SECRET = "SECRET-91c2"

# Each prints the planted key in plain bash.
ARGV_READS = [
    """awk 'BEGIN { ARGV[1] = ENVIRON["HOME"] "/.ssh/id_rsa"; ARGC = 2 } { print }'""",
    """awk 'BEGIN { ARGV[ARGC++] = ENVIRON["HOME"] "/.ssh/id_rsa" } { print }' notes.txt""",
    """awk 'BEGIN { ARGV[1] = "{home}/.ssh/id_rsa"; ARGC = 2 } { print }'""",
]
# Each reads on in its own input and writes nothing.
GETLINE_READS = [
    "awk '/p/{getline; print}' notes.txt",
    "awk '{ getline line; print line }' notes.txt",
    "awk 'NR == 1 { while ((getline l) > 0) n++ } END { print n }' notes.txt",
]
GETLINE_ELSEWHERE = [
    """awk 'BEGIN { getline line < "{home}/.ssh/id_rsa"; print line }'""",
    """awk 'BEGIN { "cat {home}/.ssh/id_rsa" | getline line; print line }'""",
    """awk '$1 < 3 { getline }' notes.txt""",  # any '<' with getline: a comparison is not told apart
]


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    work.mkdir()
    (work / "notes.txt").write_text("p one\ntwo\np three\nfour\n")
    return home, work


def _bash(command: str, home: Path, work: Path) -> str:
    done = subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", command],
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "LC_ALL": "C"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    return done.stdout + done.stderr


needs_awk = pytest.mark.skipif(_BASH is None or _AWK is None, reason="bash and awk are needed")


@needs_awk
@pytest.mark.parametrize("command", ARGV_READS)
def test_a_program_that_sets_argv_reads_the_key_in_bash_and_is_refused(command: str, place: tuple[Path, Path]) -> None:
    home, work = place
    command = command.replace("{home}", str(home))
    assert SECRET in _bash(command, home, work), command
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert not verdict.allowed and "ARGV" in verdict.reason, (strict, verdict.reason)


@needs_awk
@pytest.mark.parametrize("command", GETLINE_READS)
def test_a_plain_getline_passes_and_changes_nothing(command: str, place: tuple[Path, Path]) -> None:
    home, work = place
    before = {p: p.read_bytes() for p in work.rglob("*")}
    out = _bash(command, home, work)
    assert {p: p.read_bytes() for p in work.rglob("*")} == before and SECRET not in out
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert verdict.allowed, (strict, verdict.reason)


@needs_awk
@pytest.mark.parametrize("command", GETLINE_ELSEWHERE)
def test_getline_from_a_file_or_a_command_is_refused(command: str, place: tuple[Path, Path]) -> None:
    home, work = place
    command = command.replace("{home}", str(home))
    if "id_rsa" in command:
        assert SECRET in _bash(command, home, work), command
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert not verdict.allowed and "getline" in verdict.reason, (strict, verdict.reason)


@pytest.mark.parametrize("program", ["{ getline }", "{ getline x; print x }"])
def test_the_program_check_accepts_a_plain_getline(program: str) -> None:
    check_awk_program(program)


@pytest.mark.parametrize("program", ["{ ARGC = 3 }", "{ print ARGV[1] }", '{ getline < "f" }', '{ "id" |& getline }'])
def test_the_program_check_refuses_argv_and_redirected_getline(program: str) -> None:
    with pytest.raises(Blocked):
        check_awk_program(program)
