"""git, as cast runs it, runs nothing a hostile repository or local config names.

Each trap in ``tests/hostile_repo.py`` is first shown to fire with a plain
git (so the assertions below can fail), then the same reads run through cast:
its own git runner (``cast.git``), and the model's commands the way plan mode
runs them (hardened env, private index copy, real bash). Nothing may fire,
and ``.git``, the tree and ``$HOME`` must hash the same before and after.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hostile_repo import HostileRepo, build, plain_env, tree_digest

from cast import git
from cast.agent.git_baseline import GitBaseline
from cast.tools.changes import dirty_state
from cast.tools.process import private_git_index, read_only_env, run_command

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ARMED = [
    ("status", ["status"], {"fsmonitor", "filter"}),
    ("diff", ["diff"], {"textconv", "extdiff", "hooks", "filter", "fsmonitor"}),
    ("log-p", ["log", "-p", "-2"], {"textconv", "signature"}),
    ("show", ["show", "HEAD~1"], {"textconv"}),
    ("log", ["log", "-1"], {"signature"}),
    ("format-G", ["-c", "log.showSignature=false", "log", "-1", "--format=%G?"], {"signature"}),
    ("blame", ["blame", "notes.txt"], {"textconv"}),
    ("help", ["log", "--help"], {"man"}),
]


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HostileRepo:
    repo = build(tmp_path)
    monkeypatch.setenv("HOME", str(repo.home))
    return repo


@pytest.mark.parametrize("name,args,traps", ARMED, ids=[a[0] for a in ARMED])
def test_each_trap_fires_with_plain_git(hostile: HostileRepo, name: str, args: list[str], traps: set[str]) -> None:
    hostile.stale()
    hostile.plain_git(*args)
    assert traps <= set(hostile.fired())


def test_bare_repository_in_the_tree_fires_with_plain_git(hostile: HostileRepo) -> None:
    hostile.plain_git("status", cwd=hostile.root / "evil")
    assert hostile.fired() == ["bare"]


def test_split_index_settings_rewrite_the_shared_index_with_plain_git(hostile: HostileRepo) -> None:
    before = sorted(p.name for p in (hostile.root / ".git").glob("sharedindex.*"))
    hostile.plain_git("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "diff")
    assert before and sorted(p.name for p in (hostile.root / ".git").glob("sharedindex.*")) != before


MODEL_COMMANDS = [
    "git status",
    "git status -v",
    "git diff",
    "git diff --stat",
    "git diff HEAD~1",
    "git log -p -2",
    "git log -1",
    "git log --format=%H%x20%s",
    "git show HEAD~1",
    "git show --stat",
    "git blame notes.txt",
    "git grep one",
    "git stash list -p",
    "git reflog -p",
    "git reflog show -p HEAD",
    "git diff-index -p HEAD",
    "git -P log --no-ext-diff -p -1",
    "env git diff",
    "timeout 10 git diff",
    "command git diff",
    "cd evil && git status",
    "cd evil && git log -1",
    "git ls-files && git diff-files -p",
]


def _plan_mode_run(repo: HostileRepo, command: str) -> str:
    with private_git_index(repo.root, read_only_env(repo.root)) as env:
        result = run_command(command, repo.root, 60, None, env)
    return result.output


@pytest.mark.parametrize("command", MODEL_COMMANDS)
def test_model_git_runs_nothing_and_writes_nothing(hostile: HostileRepo, command: str) -> None:
    digests = hostile.git_digest(), hostile.tree_digest(), hostile.home_digest()
    output = _plan_mode_run(hostile, command)
    assert hostile.fired() == [], output
    assert (hostile.git_digest(), hostile.tree_digest(), hostile.home_digest()) == digests


def test_model_git_still_shows_the_real_content(hostile: HostileRepo) -> None:
    """Textconv and external diff are off, not broken: the diff is the file's own."""
    output = _plan_mode_run(hostile, "git diff")
    assert "+three" in output and "diff --git a/notes.txt" in output
    assert "+two" in _plan_mode_run(hostile, "git log -p -1 -- notes.txt")
    assert "notes.txt" in _plan_mode_run(hostile, "cd evil && git status --short")  # the outer repository


def test_cast_own_git_runs_nothing_and_writes_nothing(hostile: HostileRepo) -> None:
    digests = hostile.git_digest(), hostile.tree_digest(), hostile.home_digest()
    entries = git.status(hostile.root)
    assert entries is not None and {e.path for e in entries} == {"notes.txt", "data.ext"}
    assert git.head(hostile.root) and git.index_path(hostile.root)
    assert git.toplevel(hostile.root) == hostile.root.resolve()
    assert git.toplevel(hostile.root / "evil") is None  # a bare repository is used only when explicit
    assert dirty_state(hostile.root) is not None
    baseline = GitBaseline.take(hostile.root)
    assert baseline is not None
    (hostile.root / "new.txt").write_text("x\n")
    assert [path for path, _ in baseline.changes()] == ["new.txt"]
    (hostile.root / "new.txt").unlink()
    assert hostile.fired() == []
    assert (hostile.git_digest(), hostile.tree_digest(), hostile.home_digest()) == digests


def test_no_discovery_past_the_workspace(tmp_path: Path) -> None:
    """A directory that is not a repository gets no answers from an enclosing one."""
    outer = build(tmp_path / "outer", traps=("fsmonitor",))
    inner = outer.root / "plain"
    inner.mkdir()
    assert git.status(inner) is None and git.head(inner) is None
    out = run_command("git log -1 --format=%H", inner, 30, None, read_only_env(inner))
    assert out.exit_code != 0 and outer.fired() == []


def test_partial_clone_does_not_fetch(tmp_path: Path) -> None:
    """Every transport is refused, so a promisor remote cannot be reached (lazy fetch writes packs)."""
    source = build(tmp_path / "src", traps=("textconv",))
    home = source.home
    env = plain_env(home)
    clone = tmp_path / "clone"
    source.plain_git("config", "uploadpack.allowFilter", "true")
    subprocess.run(
        ["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{source.root}", str(clone)],
        env=env,
        check=True,
        capture_output=True,
    )
    before = HostileRepo(clone, source.markers, home).git_digest()
    result = run_command("git log -p -1", clone, 60, None, read_only_env(clone))
    assert HostileRepo(clone, source.markers, home).git_digest() == before, result.output
    plain = subprocess.run(["git", "log", "-p", "-1"], cwd=clone, env=env, capture_output=True, check=False)
    assert plain.returncode == 0
    assert HostileRepo(clone, source.markers, home).git_digest() != before  # plain git fetched


def test_env_drops_redirecting_variables(tmp_path: Path) -> None:
    env = git.hardened_env(
        tmp_path,
        {
            "PATH": "/usr/bin:/bin",
            "GIT_DIR": "/elsewhere",
            "GIT_EXTERNAL_DIFF": "x",
            "GIT_CONFIG_PARAMETERS": "'core.pager=x'",
            "GIT_INDEX_FILE": "/tmp/copy",
        },
    )
    assert env["GIT_DIR"] == str(tmp_path.resolve() / ".git")
    assert "GIT_EXTERNAL_DIFF" not in env and "GIT_CONFIG_PARAMETERS" not in env
    assert env["GIT_INDEX_FILE"] == "/tmp/copy"
    assert env["PATH"].split(":")[0] == str(git.shim_dir())
    keys = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))}
    assert keys["core.hooksPath"] == "/dev/null" and keys["safe.bareRepository"] == "explicit"


# The checkpoints' shadow repository is created and owned by cast (in its private state),
# and its runner builds its own environment from scratch for that repository.
OWN_REPOSITORY_RUNNERS = {"checkpoints/shadow.py"}


def test_git_runs_only_through_cast_git() -> None:
    """One hardening: no other module starts git in the user's repository itself."""
    import re

    package = Path(git.__file__).parent
    offenders = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "git.py" and re.search(r"""\[\s*["']git["']\s*,""", path.read_text())
    ]
    assert sorted(set(offenders) - OWN_REPOSITORY_RUNNERS) == []


def test_submodule_config_is_hardened_too(tmp_path: Path) -> None:
    """git status asks each submodule's own git, which reads the submodule's config: the
    hardening travels with it (GIT_CONFIG_COUNT reaches the git processes git starts)."""
    repo = build(tmp_path / "outer", traps=())
    env = plain_env(repo.home)
    lib = tmp_path / "lib"
    lib.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "lib"]):
        subprocess.run(["git", *args], cwd=lib, env=env, check=True, capture_output=True)
    repo.plain_git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "sub")
    repo.plain_git("commit", "-qm", "add sub")
    trap = tmp_path / "fsmonitor.sh"
    trap.write_text(f"#!/bin/sh\n: > '{repo.markers}/submodule'\nexit 1\n")
    trap.chmod(0o755)
    repo.plain_git("config", "core.fsmonitor", str(trap), cwd=repo.root / "sub")
    (repo.root / "sub" / "new.txt").write_text("x\n")
    repo.plain_git("status")
    assert repo.fired() == ["submodule"]  # armed
    repo.reset()
    for command in ("git status", "git status --ignore-submodules=none", "git diff --submodule=log"):
        output = _plan_mode_run(repo, command)
        assert repo.fired() == [], (command, output)
    assert "sub" in _plan_mode_run(repo, "git status --short --ignore-submodules=none")


def _index_mtimes(repo: Path, index: str) -> dict[str, str]:
    """path -> the mtime an index file records for it (`git ls-files --debug`)."""
    env = {**plain_env(repo.parent), "GIT_INDEX_FILE": index}
    out = subprocess.run(["git", "ls-files", "--debug"], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout
    found, path = {}, ""
    for line in out.splitlines():
        if not line.startswith(" "):
            path = line
        elif line.strip().startswith("mtime:"):
            found[path] = line.split(":", 1)[1].strip()
    return found


def test_status_keeps_refreshed_stat_data_in_casts_copy_of_the_index_never_in_the_users(repo: Path) -> None:
    """After a checkout or a build touched every file, the first status re-hashes them and keeps
    the new stat data in cast's private copy; the user's index stays byte for byte as it was."""
    for path in (repo / "README.md", repo / "app.py"):
        os.utime(path, ns=(time.time_ns() + 5_000_000_000,) * 2)
    before = tree_digest(repo / ".git")
    user_index = str(repo / ".git" / "index")
    stale = _index_mtimes(repo, user_index)
    assert git.status(repo) == [] and git.status(repo) == []
    kept = git.kept_index(repo)
    assert kept is not None and not kept.startswith(str(repo))
    refreshed = _index_mtimes(repo, kept)
    assert (
        refreshed["app.py"] == f"{os.stat(repo / 'app.py').st_mtime_ns // 10**9}:{os.stat(repo / 'app.py').st_mtime_ns % 10**9}"
    )
    assert refreshed["app.py"] != stale["app.py"]
    assert tree_digest(repo / ".git") == before and _index_mtimes(repo, user_index) == stale
    # The user's own `git add` changes their index: cast's copy is taken again, nothing is stale.
    (repo / "new.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "new.py"], cwd=repo, check=True, capture_output=True)
    assert [(e.code, e.path) for e in git.status(repo) or []] == [("A ", "new.py")]
