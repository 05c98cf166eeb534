"""The proven commands' environment is worked out once per repository and used again only while
every config file git read is unchanged (cast/tools/command_env.py): a driver defined after the
first command, in the repository's config or in a file an include names (made later, or chosen
by the branch), is overridden for the next one; the private index copy follows the user's index."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cast import git
from cast.tools import command_env
from cast.tools.command_env import private_git_index, read_only_env
from cast.tools.process import run_command

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", *args], cwd=root, check=True, env=env, stdout=subprocess.DEVNULL)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "notes.txt").write_text("one\n")
    (root / ".gitattributes").write_text("notes.txt filter=evil diff=evil\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "start")
    (root / "notes.txt").write_text("one\ntwo\n")
    return root


def _overridden(env: dict[str, str]) -> set[str]:
    return {value for name, value in env.items() if name.startswith("GIT_CONFIG_KEY_")}


def _arm(config: Path, fired: Path) -> None:
    with config.open("a") as handle:
        handle.write(f'[filter "evil"]\n\tclean = "touch {fired}; cat"\n[diff "evil"]\n\ttextconv = "touch {fired}; cat"\n')


def test_a_driver_added_to_the_config_after_a_command_is_overridden_for_the_next(repo, tmp_path):
    fired = tmp_path / "fired"
    assert "filter.evil.clean" not in _overridden(read_only_env(repo))
    _arm(repo / ".git" / "config", fired)
    env = read_only_env(repo)
    assert {"filter.evil.clean", "diff.evil.textconv"} <= _overridden(env)
    with private_git_index(repo, env) as env:
        result = run_command("git diff; git status --short", repo, 60, None, env)
    assert "+two" in result.output and not fired.exists(), result.output


def test_an_include_made_after_a_command_is_read_for_the_next(repo, tmp_path):
    fired = tmp_path / "fired"
    _git(repo, "config", "include.path", "../extra.cfg")  # relative to .git/config: beside the repository
    assert "filter.evil.clean" not in _overridden(read_only_env(repo))
    _arm(repo / "extra.cfg", fired)
    assert "filter.evil.clean" in _overridden(read_only_env(repo))


def test_an_include_the_branch_turns_on_is_read(repo, tmp_path):
    _arm(tmp_path / "on-branch.cfg", tmp_path / "fired")
    _git(repo, "config", "includeIf.onbranch:armed.path", str(tmp_path / "on-branch.cfg"))
    assert "filter.evil.clean" not in _overridden(read_only_env(repo))
    _git(repo, "checkout", "-q", "-b", "armed")
    assert "filter.evil.clean" in _overridden(read_only_env(repo))


def test_nothing_changed_means_no_git_runs(repo, monkeypatch):
    first = read_only_env(repo)
    monkeypatch.setattr(git, "driver_overrides", lambda *a, **k: pytest.fail("asked git again"))
    monkeypatch.setattr(git, "call", lambda *a, **k: pytest.fail("asked git again"))
    assert read_only_env(repo) == first


def test_the_index_copy_follows_the_users_index(repo, monkeypatch):
    with private_git_index(repo, {}) as env:
        copy = Path(env["GIT_INDEX_FILE"])
    assert copy.read_bytes() == (repo / ".git" / "index").read_bytes()
    (repo / "new.txt").write_text("new\n")
    _git(repo, "add", "new.txt")
    with private_git_index(repo, {}) as env:
        assert Path(env["GIT_INDEX_FILE"]).read_bytes() == (repo / ".git" / "index").read_bytes()
    monkeypatch.setattr(command_env.shutil, "copy2", lambda *a, **k: pytest.fail("copied an unchanged index"))
    with private_git_index(repo, {}) as env:
        assert Path(env["GIT_INDEX_FILE"]).read_bytes() == (repo / ".git" / "index").read_bytes()
