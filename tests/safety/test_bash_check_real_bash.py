"""Each refused class really writes: run a representative in bash and watch the tree.

Every case sets up a scratch directory, runs the command with real bash inside
it, and asserts that something under the directory was created or modified,
proving the refusal is necessary. The checker must refuse the same command.
Nothing outside ``tmp_path`` is touched: HOME and git config point inside it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cast.safety.bash_check import check

_BASH = shutil.which("bash")


@dataclass(frozen=True)
class RealCase:
    id: str
    command: str
    files: dict[str, str] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    git: bool = False
    executable: tuple[str, ...] = ()
    git_config: tuple[tuple[str, str], ...] = ()


_IN = {"in.txt": "b\na\nb\n"}

CASES = [
    # redirections
    RealCase("redirect", "echo hi > out.txt"),
    RealCase("redirect-dup-to-word", "echo hi >&out.txt"),
    RealCase("read-write-open", "cat <>new.txt </dev/null"),
    RealCase("tee", "echo hi | tee out.txt"),
    RealCase("output-procsub", "ls > >(cat > out.txt); wait"),
    # writing flags and their spellings
    RealCase("sort-o", "sort -o out.txt in.txt", _IN),
    RealCase("sort-combined", "sort -uo out.txt in.txt", _IN),
    RealCase("sort-abbrev", "sort --out=out.txt in.txt", _IN),
    RealCase("sort-quoted-escaped", 's\\ort "-o" out.txt in.txt', _IN),
    RealCase("brace-expansion", "sort {-o,out.txt} in.txt", _IN),
    RealCase("uniq-in-out", "uniq in.txt out.txt", _IN),
    RealCase("xxd-in-out", "xxd in.txt out.txt", _IN, needs=("xxd",)),
    RealCase("file-compile", "file -C -m m", {"m": "0\tstring\tABC\tabc file\n"}, needs=("file",)),
    RealCase("sed-i", "sed -i s/a/z/ in.txt", _IN),
    RealCase("sed-e-w", "sed -n 1p '-ew out.txt' in.txt", _IN),
    RealCase("sed-s-w", "sed 's/a/z/w out.txt' in.txt", _IN),
    RealCase("sed-e-command", "sed '1e touch pwned' in.txt", _IN),
    RealCase("awk-print-redirect", "awk 'BEGIN { print 1 > \"out.txt\" }'"),
    RealCase("awk-system", "awk 'BEGIN { system(\"touch pwned\") }'"),
    RealCase("awk-pipe", 'awk \'BEGIN { print "x" | "cat > out.txt" }\''),
    RealCase("find-delete", "find . -name in.txt -delete", _IN),
    RealCase("find-exec", "find . -name in.txt -exec touch pwned \\;", _IN),
    RealCase("find-fprint", "find . -fprint out.txt"),
    RealCase("pip-log", "pip --log out.txt list", needs=("pip",)),
    # globs that turn file names into options
    RealCase("glob-sort", "sort *", {**_IN, "-oout.txt": ""}),
    RealCase("glob-rg-pre", "rg x *", {"a.txt": "touch pwned\n", "--pre=sh": ""}, needs=("rg",)),
    # substitutions run their commands
    RealCase("cmdsub", "echo $(touch pwned)"),
    RealCase("backticks", "echo `touch pwned`"),
    RealCase("procsub", "cat <(touch pwned)"),
    RealCase("heredoc-cmdsub", "cat <<EOF\n$(touch pwned)\nEOF"),
    RealCase("herestring-cmdsub", 'cat <<< "$(touch pwned)"'),
    # places where tree-sitter and bash disagree
    RealCase("words-after-redirect", "sort >/dev/null -o out.txt in.txt", _IN),
    RealCase("continuation-comment", "echo a\\\n#; touch pwned"),
    RealCase("heredoc-tab-cmdsub", "cat <<EOF\n\t$(touch pwned)\nEOF"),
    RealCase("heredoc-joined-delimiter", "cat <<EOF\na\nEO\\\nF\ntouch pwned\nEOF"),
    RealCase("bracket-test-redirect", "[ a > out.txt ]"),
    RealCase("nested-backticks", "echo `echo \\`touch pwned\\``"),
    # arithmetic evaluates array subscripts
    RealCase("dbl-bracket-eq", "[[ 'a[$(touch pwned)]' -eq 0 ]]"),
    RealCase("test-v", "test -v 'a[$(touch pwned)]'"),
    RealCase("arith-var", "for x in 'a[$(touch pwned)]'; do echo $((x)); done"),
    RealCase("dbl-bracket-var", "for x in 'a[$(touch pwned)]'; do [[ $x -eq 0 ]]; done"),
    # wrappers run their operands
    RealCase("xargs", "echo pwned | xargs touch"),
    RealCase("timeout", "timeout 5 touch pwned"),
    RealCase("env", "env touch pwned"),
    RealCase("command", "command touch pwned"),
    RealCase("nice", "nice touch pwned"),
    RealCase("time", "time touch pwned"),
    # interpreters
    RealCase("pipe-into-sh", "echo 'touch pwned' | sh"),
    RealCase("bash-c", "bash -c 'touch pwned'"),
    RealCase("python", "python3 -c \"open('pwned', 'w')\"", needs=("python3",)),
    RealCase("eval", "eval 'touch pwned'"),
    RealCase("source", ". ./script.sh", {"script.sh": "touch pwned\n"}),
    # command names
    RealCase("path-qualified", "/usr/bin/env touch pwned"),
    RealCase("quoted-name", "'tou'ch pwned"),
    RealCase("variable-name", "for c in touch; do $c pwned; done"),
    # shell state reaching later commands
    RealCase("assignment-path", "PATH=.:$PATH ls", {"ls": "#!/bin/sh\n: > pwned\n"}, executable=("ls",)),
    RealCase("loop-var-path", "for PATH in .; do ls; done", {"ls": "#!/bin/sh\n: > pwned\n"}, executable=("ls",)),
    # git
    RealCase("git-log-output", "git log --output=out.txt -1", git=True, needs=("git",)),
    RealCase("git-show-output", "git show --output=out.txt HEAD", git=True, needs=("git",)),
    RealCase("git-branch-create", "git branch newbranch", git=True, needs=("git",)),
    RealCase("git-tag-create", "git tag v9", git=True, needs=("git",)),
    RealCase("git-config-set", "git config user.name someone", git=True, needs=("git",)),
    RealCase("git-global-c-alias", "git -c alias.pw='!touch pwned' pw", git=True, needs=("git",)),
    RealCase(
        "git-external-diff-env",
        "GIT_EXTERNAL_DIFF='touch pwned; :' git diff",
        {"tracked.txt": "changed\n"},
        git=True,
        needs=("git",),
    ),
    RealCase("git-reflog-expire", "git reflog expire --expire=now --all", git=True, needs=("git",)),
    RealCase(
        "git-help-man-viewer",
        "git log --help",
        git=True,
        needs=("git",),
        git_config=(("man.viewer", "evil"), ("man.evil.cmd", "touch pwned; :"), ("help.format", "man")),
    ),
    # sed labels end at whitespace; awk reads '/' after length as a regex
    RealCase("sed-label-e", "sed -n ':a e touch pwned' in.txt", _IN, needs=("sed",)),
    RealCase("sed-label-w", "sed -n ':a w out' in.txt", _IN, needs=("sed",)),
    RealCase("sed-label-tab-w", "sed -n ':a\tw out' in.txt", _IN, needs=("sed",)),
    RealCase("sed-bracket-delimiter", "sed -n '/[/]/w out' in.txt", _IN, needs=("sed",)),
    RealCase("awk-length-regex", 'mawk \'BEGIN { x = length /#/; print "touch pwned" | "sh" }\'', needs=("mawk",)),
    RealCase("command-p", "command -p touch pwned"),
]


def _snapshot(root: Path) -> dict[str, tuple[str, int, str]]:
    out: dict[str, tuple[str, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            path = Path(dirpath, name)
            out[str(path.relative_to(root))] = ("dir", 0, "")
        for name in filenames:
            path = Path(dirpath, name)
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else ""
            out[str(path.relative_to(root))] = ("file", st.st_mtime_ns, digest)
    return out


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BASH_ENV", "ENV", "CDPATH")}
    env.update(
        HOME=str(home),
        LC_ALL="C",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=str(home / "gitconfig"),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
        GIT_PAGER="cat",
        PAGER="cat",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
    )
    return env


def _setup(case: RealCase, work: Path, env: dict[str, str]) -> None:
    if case.git:
        for args in (["init", "-q"], ["config", "user.name", "t"]):
            subprocess.run(["git", *args], cwd=work, env=env, check=True)
        (work / "tracked.txt").write_text("one\n")
        subprocess.run(["git", "add", "tracked.txt"], cwd=work, env=env, check=True)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=work, env=env, check=True)
        for key, value in case.git_config:
            subprocess.run(["git", "config", key, value], cwd=work, env=env, check=True)
    for name, text in case.files.items():
        (work / name).write_text(text)
    for name in case.executable:
        (work / name).chmod(0o755)


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refused_command_really_changes_the_tree(case: RealCase, tmp_path: Path) -> None:
    verdict = check(case.command)
    assert not verdict.allowed, f"checker allowed {case.command!r}"
    assert verdict.reason
    for tool in case.needs:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = _env(home)
    _setup(case, work, env)
    before = _snapshot(work)
    subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", case.command],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
    )
    deadline = time.monotonic() + 5
    while _snapshot(work) == before and time.monotonic() < deadline:
        time.sleep(0.05)  # process substitutions may still be writing
    assert _snapshot(work) != before, f"bash did not change the tree for {case.command!r}"


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
def test_allowed_commands_leave_the_tree_alone(tmp_path: Path) -> None:
    """A sample of accepted commands run for real and change nothing."""
    commands = [
        "sort in.txt | uniq -c | sort -rn",
        "sort -- *",
        "cat * 2>/dev/null | wc -l",
        "sed -n 1p in.txt",
        "awk '$1 > \"a\" { print }' in.txt",
        "grep -c b in.txt >/dev/null 2>&1 && echo found",
        "find . -name '*.txt' -print",
        "xxd in.txt | head -1",
        "cat <<EOF\n$(ls)\nEOF",
        'for f in ./*; do wc -l "$f"; done',
        "diff <(sort in.txt) in.txt || true",
    ]
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    (work / "in.txt").write_text("b\na\nb\n")
    (work / "-oout.txt").write_text("")
    env = _env(home)
    before = _snapshot(work)
    for command in commands:
        assert check(command).allowed, command
        subprocess.run(
            [_BASH or "bash", "--noprofile", "--norc", "-c", command],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
        assert _snapshot(work) == before, command


# Words for random programs: writers, their flags, quoting and operators, but
# only relative paths, so a wrong verdict cannot reach outside the scratch dir.
_TOKENS = [
    "ls",
    "rm",
    "sort",
    "-o",
    "-u",
    "out",
    "in.txt",
    "|",
    "&&",
    ";",
    ">",
    ">>",
    "/dev/null",
    "$(",
    ")",
    "`",
    "'",
    '"',
    "$x",
    "*",
    "./*",
    "{-o,out}",
    "\\",
    "sed",
    "-i",
    "-n",
    "1p",
    "'s/a/b/w out'",
    "awk",
    "'{print > \"out\"}'",
    "'{print}'",
    "uniq",
    "xxd",
    "cat",
    "touch",
    "echo",
    "tee",
    "2>&1",
    "--",
    "wc",
    "-l",
    "find",
    ".",
    "-delete",
    "-name",
    "git",
    "log",
    "--output=out",
    "xargs",
    "<(",
    ">(",
    "<<<",
    "\n",
]


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=8))
def test_random_programs_allowed_by_the_checker_change_nothing(tokens: list[str]) -> None:
    command = " ".join(tokens)
    if not check(command).allowed:
        return
    with tempfile.TemporaryDirectory() as tmp:
        work, home = Path(tmp, "work"), Path(tmp, "home")
        work.mkdir()
        home.mkdir()
        (work / "in.txt").write_text("b\na\n")
        (work / "-oout").write_text("")
        before = _snapshot(work)
        try:
            subprocess.run(
                [_BASH or "bash", "--noprofile", "--norc", "-c", command],
                cwd=work,
                env=_env(home),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=10,
            )
        except subprocess.TimeoutExpired:
            pass
        assert _snapshot(work) == before, command
