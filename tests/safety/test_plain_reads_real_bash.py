"""Plain reads the checker proves: each runs in real bash in a scratch tree and changes nothing,
and its writing neighbours (`tar x`, `tar c`, `fd -x`, `find -exec` of a writer, a value read at
run time that bash evaluates as arithmetic) really write there and are refused."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from test_bash_check_real_bash import _env, _snapshot

from cast.safety.bash_check import check

_BASH = shutil.which("bash")

READS = [
    ("ps aux | grep python", ()),
    ("ps -ef | head -3", ()),
    ("tar tf ./archive.tar", ()),
    ("tar -tvf ./archive.tar", ()),
    ("tar --list --file=./archive.tar", ()),
    ("tar tzf ./archive.tgz", ()),
    ("awk --version", ("awk",)),
    ("sed --version | head -1", ()),
    ("find --help | head -1", ()),
    ("node --check app.js", ("node",)),
    ("fd pattern src", ("fd",)),
    ("find ./src -exec grep x {} \\;", ()),
    ("find ./src -type f -exec grep -l x {} +", ()),
    ("find src -name '*.txt' -exec wc -l {} +", ()),
    ("cat <<-EOF\n\thello $HOME\n\tEOF", ()),
    ("cat <<-'EOF'\n\t$(touch pwned)\n\tEOF", ()),
    ('find ./src -type f | while read f; do cat "$f"; done', ()),
    ('while IFS= read -r line; do echo "$line"; done < evil.txt', ()),
    ('out=$(cat evil.txt); echo "$out"', ()),
    ("for x in 1 2; do if test $x = 1; then echo one; fi; done", ()),
    ("for x in a b; do [ $x = a ] && cat evil.txt; done", ()),
    ('for ln in 10 20; do echo "line $((ln - 1))"; [[ $ln -gt 10 ]] && echo more; done', ()),
]
WRITES = [
    ("tar xf ./archive.tar", "option 'x' is not allowed", ()),
    ("tar cf out.tar in.txt", "option 'c' is not allowed", ()),
    ("tar -tf ./archive.tar --checkpoint=1 --checkpoint-action=exec='touch pwned'", "--checkpoint", ()),
    ("tar -x -f ./archive.tar", "option 'x' is not allowed", ()),
    ("fd -x touch pwned", "fd: flag -x runs a command", ("fd",)),
    ("fd in.txt --exec touch pwned", "fd: flag --exec runs a command", ("fd",)),
    ("find . -name in.txt -exec sort -o out.txt {} \\;", "find: -exec runs commands: sort: flag -o", ()),
    ("find . -name in.txt -exec touch {}.new \\;", "find: -exec runs commands", ()),
    ("cat <<-EOF\n\t$(touch pwned)\n\tEOF", "<<- here-document", ()),
    # A value read at run time is data: where bash evaluates it (arithmetic, [[ -eq ]]), it runs.
    ("while read f; do echo $((f)); done < evil.txt", "non-literal operand 'f'", ()),
    ("while read f; do [[ $f -eq 1 ]]; done < evil.txt", "[[ -eq ]]", ()),
    ("out=$(cat evil.txt); echo $((out))", "non-literal operand 'out'", ()),
    ("for x in -v; do test $x 'a[$(touch pwned)]'; done", "evaluates array subscripts", ()),
    ("for x in 'a[$(touch pwned)]'; do echo $((x)); done", "is not a plain number", ()),
    ("for x in 1 'a[$(touch pwned)]'; do [[ $x -eq 1 ]]; done", "is not a plain number", ()),
    ('find . -name in.txt | while read f; do rm "$f"; done', "rm: deletes files", ()),
]


def _tree(work: Path) -> None:
    (work / "src").mkdir(parents=True)
    (work / "src" / "pattern.txt").write_text("x\n")
    (work / "in.txt").write_text("b\na\n")
    (work / "evil.txt").write_text("a[$(touch pwned)]\n")
    (work / "app.js").write_text("console.log(require('fs').writeFileSync('pwned', 'x'))\n")
    with tarfile.open(work / "archive.tar", "w") as archive:
        archive.add(work / "in.txt", arcname="member.txt")
    with tarfile.open(work / "archive.tgz", "w:gz") as archive:
        archive.add(work / "in.txt", arcname="member.txt")


def _run(command: str, work: Path, home: Path) -> None:
    subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", command],
        cwd=work,
        env=_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )


def _changes_the_tree(command: str, needs: tuple[str, ...], tmp_path: Path) -> bool:
    """Run `command` in real bash in a fresh scratch tree; did anything in it change?"""
    for tool in needs:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    work, home = tmp_path / "work", tmp_path / "home"
    home.mkdir()
    _tree(work)
    before = _snapshot(work)
    _run(command, work, home)
    return _snapshot(work) != before


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command,needs", READS)
def test_a_plain_read_passes_and_changes_nothing(command: str, needs: tuple[str, ...], tmp_path: Path) -> None:
    verdict = check(command, root=tmp_path / "work")
    assert verdict.allowed, verdict.reason
    assert not _changes_the_tree(command, needs, tmp_path), command


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command,why,needs", WRITES)
def test_its_writing_neighbour_writes_and_is_refused(command: str, why: str, needs: tuple[str, ...], tmp_path: Path) -> None:
    verdict = check(command, root=tmp_path / "work")
    assert not verdict.allowed and why in verdict.reason, verdict.reason
    assert _changes_the_tree(command, needs, tmp_path), f"bash changed nothing for {command!r}"


def test_a_listing_of_a_remote_or_secret_archive_is_refused() -> None:
    assert "runs rsh" in check("tar tf host:archive.tar").reason
    assert ".ssh holds the user's credentials" in check("tar tf ~/.ssh/keys.tar").reason
    assert ".ssh holds the user's credentials" in check("node --check ~/.ssh/x.js").reason
    assert not check("node --check app.js", strict=True).allowed  # a version manager may pick node from the tree
    assert ".ssh holds the user's credentials" in check("find ~/.ssh -exec cat {} +").reason
    assert "computed at run time" in check("find ./src -exec cat {} +", strict=True).reason


@pytest.mark.skipif(_BASH is None or shutil.which("git") is None, reason="bash and git are needed")
def test_an_assignment_of_git_status_changes_nothing(tmp_path: Path) -> None:
    """`out=$(git status)` as plan mode runs it (GIT_OPTIONAL_LOCKS=0: no index refresh)."""
    work, home = tmp_path / "work", tmp_path / "home"
    home.mkdir()
    _tree(work)
    env = {**_env(home), "GIT_OPTIONAL_LOCKS": "0"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    (work / "in.txt").write_text("changed\n")
    command = 'out=$(git status); echo "$out"'
    assert check(command, root=work).allowed
    before = _snapshot(work)
    done = subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", command], cwd=work, env=env, capture_output=True, text=True
    )
    assert "in.txt" in done.stdout
    assert _snapshot(work) == before
