"""The checker reads sed and awk programs the way the real tools do.

The sed and awk checkers are lexers, and a lexer that splits a program
differently from the tool lets code through (``:a e cmd``, ``length /#/``).
These tests run the installed tools on generated and hand-picked probes:

* sed: ``sed --debug`` prints the program as GNU sed parsed it; for every
  script the checker accepts, the commands must be the same, in order.
* sed and awk: each probe hides a marker-producing write (``w MARK``,
  ``print > "MARK"``, a pipe to ``sh``) behind labels, comments, strings,
  regexes and divisions. Whenever the checker accepts a probe, running it for
  real in a scratch directory must create no file.

A tool that is not installed is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cast.safety.awk_program import check_awk_program
from cast.safety.blocked import Blocked
from cast.safety.scripts import read_sed_script

SED = shutil.which("sed")
GNU_SED = bool(SED) and "GNU" in subprocess.run([SED or "sed", "--version"], capture_output=True, text=True, check=False).stdout
AWKS = [name for name in ("gawk", "mawk", "original-awk", "nawk", "busybox") if shutil.which(name)]
needs_gnu_sed = pytest.mark.skipif(not GNU_SED, reason="GNU sed is not installed (the oracle is sed --debug)")
needs_awk = pytest.mark.skipif(not AWKS, reason="no awk (gawk, mawk, nawk) is installed")
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _sed_reads(script: str) -> list[str] | None:
    try:
        return read_sed_script(script)
    except Blocked:
        return None


def _debug_commands(script: str) -> list[str] | None:
    """Command letters from GNU sed's own listing of the parsed program (None: sed rejects it)."""
    out = subprocess.run(
        ["sed", "--debug", "-n", "-e", script, "/dev/null"], capture_output=True, text=True, timeout=10, check=False
    )
    if out.returncode != 0:
        return None
    lines = out.stdout.split("SED PROGRAM:\n", 1)[1].split("\nINPUT:", 1)[0].splitlines()
    commands = []
    for line in lines:
        text = line.strip()
        if not text or not line.startswith("  "):
            continue  # empty, or the rest of a replacement that holds an escaped newline
        text = _after_address(text)
        commands.append("{" if text.endswith("{") and text[0] != "s" and text[0] != "y" else text[0])
    return commands


def _after_address(text: str) -> str:
    """Drop the ``ADDR[,ADDR][!]`` that ``sed --debug`` prints before a command."""
    i, n = 0, len(text)
    for _ in range(2):
        if text[i : i + 1] == "/":
            i += 1
            while i < n and text[i] != "/":
                i += 2 if text[i] == "\\" else 1
            i += 1
            while text[i : i + 1] in ("I", "M"):
                i += 1
        else:
            while i < n and text[i] in "0123456789$~+":
                i += 1
        if text[i : i + 1] != ",":
            break
        i += 1
    if text[i : i + 1] == "!":
        i += 1
    return text[i:].lstrip() if i else text


def _sed_leaves_no_file(script: str, tmp: Path) -> list[str]:
    """Run ``script`` for real on a small input; the names of any files it created."""
    work = tmp / "sedrun"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    (work / "in.txt").write_text("x\ny\n")
    try:
        subprocess.run(
            ["sed", "-n", "-e", script, "in.txt"], cwd=work, capture_output=True, timeout=1, stdin=subprocess.DEVNULL, check=False
        )
    except subprocess.TimeoutExpired:
        pass  # a branch loop: what it wrote is still on disk
    return sorted(set(os.listdir(work)) - {"in.txt"})


# Pieces that stress where labels, regexes and commands end.
_LABELISH = st.text(alphabet="ab1_.-}#;/ \t\nepw", min_size=0, max_size=6)
_REGEX = st.text(alphabet="ax[]^:/\\#;} .*\n", min_size=0, max_size=6)
_SAFE = st.sampled_from(["p", "d", "n", "N", "h", "G", "x", "=", "l", "q", "z", "P", "D", "g", "H"])
_DANGER = st.sampled_from(["w MARKw", "e touch MARKe", "s/x/y/w MARKs", "W MARKW", "r /etc/hostname", "1e touch MARK1"])
_ADDRESS = st.sampled_from(["", "1", "$", "1,2", "0~2", "2,+1", "$!", "1!"]) | _REGEX.map(lambda r: f"/{r}/")
_SEP = st.sampled_from([";", "\n", " ", "", " ; ", "\t", "}", "{", "#c\n"])


@st.composite
def sed_scripts(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["label", "branch", "safe", "s", "y", "danger", "comment"]))
        if kind == "label":
            piece = ":" + draw(_LABELISH)
        elif kind == "branch":
            piece = draw(st.sampled_from("btT")) + draw(st.sampled_from(["", " "])) + draw(_LABELISH)
        elif kind == "safe":
            piece = draw(_ADDRESS) + draw(_SAFE)
        elif kind == "s":
            piece = f"s/{draw(_REGEX)}/{draw(_REGEX)}/" + draw(st.sampled_from(["", "g", "p", "w MARKf", "e"]))
        elif kind == "y":
            piece = "y/ab/ba/"
        elif kind == "danger":
            piece = draw(_DANGER)
        else:
            piece = "#" + draw(_LABELISH)
        parts.append(piece + draw(_SEP))
    return "".join(parts)


@needs_gnu_sed
@SETTINGS
@given(script=sed_scripts())
def test_sed_commands_match_gnu_sed(script: str) -> None:
    ours = _sed_reads(script)
    if ours is None:
        return
    theirs = _debug_commands(script)
    if theirs is None:
        return  # sed rejects it: nothing runs
    assert ours == theirs, f"checker read {ours}, GNU sed read {theirs} in {script!r}"
    assert not set(ours) & set("wWerR"), script


@needs_gnu_sed
@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(script=sed_scripts())
def test_sed_scripts_the_checker_accepts_write_nothing(script: str, tmp_path: Path) -> None:
    if _sed_reads(script) is None:
        return
    assert _sed_leaves_no_file(script, tmp_path) == [], script


SED_PROBES = [
    ":a e touch MARK",
    ":a w MARK",
    ":a\tw MARK",
    ":a;w MARK",
    "b a w MARK\n:a",
    "ba;:a w MARK",
    "$!{N;ba};:a e touch MARK",
    "s/[/]/x/w MARK",
    "s/[/]w MARK/x/",
    "/[/]/w MARK",
    "/[/]e touch MARK/p",
    "s/x/[/]/;w MARK",
    "ba}w MARK\n:a",
    ":a}w MARK",
    "#x\n:a #\ne touch MARK",
    "1{:a\n}\nw MARK",
    ":a#\nw MARK",
    "y/a[/b]/;w MARK",
    "s/x/y/;:a;s/a/b/;ta;e touch MARK",
]


@needs_gnu_sed
@pytest.mark.parametrize("script", SED_PROBES)
def test_sed_probes(script: str, tmp_path: Path) -> None:
    """Hand-picked: each would write MARK if the checker misread it."""
    ours = _sed_reads(script)
    if ours is not None:
        assert ours == _debug_commands(script), script
        assert _sed_leaves_no_file(script, tmp_path) == [], script


def test_sed_findings_are_blocked() -> None:
    for script in (":a e touch X", ":a w out", ":a\te touch X", "$!{N;ba};:x w out"):
        assert _sed_reads(script) is None, script


# --- awk ---------------------------------------------------------------------

_HIDERS = st.sampled_from(
    [
        "x = length /",
        'x = length("a") /',
        "x = NR /",
        "x = 4 /",
        "x = (4) /",
        "x = a[1] /",
        "x = $1 /",
        "x = a++ /",
        "x = length ",
        "/",
        'x = "',
        "#",
        "x = 1 # ",
        "print length /",
        "x = length() /",
        "if (length /",
        "x = y /= 2 /",
        "print 1 /",
        "x = -length /",
        'n = split("a/b", q, "/") /',
    ]
)
_FILLER = st.lists(
    st.sampled_from(["", "#/", "#", '"/', "/", '"', "1/", "/ 2", "/#/", "x/", "\\/", "[/]", "(/)", ";", " "]), max_size=3
).map("".join)
_TAILS = st.sampled_from(
    [
        'print "m" > "MARKr"',
        'print "touch MARKp" | "sh"',
        'printf "m" > "MARKf"',
        'print "m" >> "MARKa"',
        'print("m") > "MARKq"',
        'print "touch MARKc" |& "sh"',
    ]
)
_CLOSERS = st.sampled_from(["", "/", "/;", '"', '";', "\n", '/ "', "# /"])


@st.composite
def awk_programs(draw: st.DrawFn) -> str:
    body = draw(_HIDERS) + draw(_FILLER) + draw(st.sampled_from(["; ", "\n", " ", ""])) + draw(_TAILS) + draw(_CLOSERS)
    return "BEGIN { " + body + "\n}"


def _awk_reads(program: str) -> bool:
    try:
        check_awk_program(program)
    except Blocked:
        return False
    return True


def _awk_leaves_no_file(awk: str, program: str, tmp: Path) -> list[str]:
    work = tmp / f"awkrun-{awk}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        subprocess.run([awk, program], cwd=work, capture_output=True, timeout=5, stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        pass
    return sorted(os.listdir(work))


@needs_awk
@SETTINGS
@given(program=awk_programs())
def test_awk_programs_the_checker_accepts_write_nothing(program: str, tmp_path: Path) -> None:
    if not _awk_reads(program):
        return
    for awk in AWKS:
        assert _awk_leaves_no_file(awk, program, tmp_path) == [], f"{awk} wrote with {program!r}"


AWK_PROBES = [
    'BEGIN { x = length /#/; print "touch MARK" | "sh" }',
    'BEGIN { x = length /#/; print "m" > "MARK" }',
    'BEGIN { x = length /"/; print "m" > "MARK" } #"',
    'BEGIN { x = NR /#/; print "m" > "MARK" }',
    'BEGIN { x = length / 2; print "m" > "MARK"; y = 1 / 2 }',
    'BEGIN { x = length\n/#/; print "m" > "MARK" }',
    'length /#/ { print "m" > "MARK" }',
    'BEGIN { print length /#/; print "m" > "MARK" }',
    'BEGIN { x = a[1] /#/; print "m" > "MARK" }',
    'BEGIN { x = "a" /#/; print "m" > "MARK" }',
]


@needs_awk
@pytest.mark.parametrize("program", AWK_PROBES)
def test_awk_probes(program: str, tmp_path: Path) -> None:
    """Hand-picked: each writes MARK or runs sh in some awk if the checker misread it."""
    if _awk_reads(program):
        for awk in AWKS:
            assert _awk_leaves_no_file(awk, program, tmp_path) == [], f"{awk} wrote with {program!r}"


@needs_awk
def test_the_awk_finding_really_runs_sh(tmp_path: Path) -> None:
    """The lexing gap is real in at least one installed awk, so the probes above can fail."""
    program = 'BEGIN { x = length /#/; print "touch MARK" | "sh" }'
    ran = [awk for awk in AWKS if _awk_leaves_no_file(awk, program, tmp_path)]
    assert ran, f"none of {AWKS} read /#/ after length as a regex"
    assert not _awk_reads(program)


@needs_gnu_sed
def test_the_sed_finding_really_runs_a_command(tmp_path: Path) -> None:
    assert _sed_leaves_no_file(":a e touch MARK", tmp_path) == ["MARK"]
