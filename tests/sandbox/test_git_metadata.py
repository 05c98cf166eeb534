"""Which git metadata outside the workspace cast believes (cast/gitdir.py): only what git's own
back-link ties to it, never a hidden location, never `core.worktree`; and what follows from that
for the sandbox's view, the workspace root, the private index copy and the checkpoint store.
tests/redteam/test_git_files.py plans in the same workspaces end to end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitfiles import ATTACKS, LEGIT, git

from cast import git as cast_git
from cast.checkpoints.shadow import Shadow
from cast.gitdir import belongs, locate
from cast.sandbox import visible
from cast.tools.process import private_git_index, read_only_env


@pytest.mark.parametrize("layout", sorted(LEGIT))
def test_a_real_worktree_and_submodule_are_proven_by_their_back_links(layout, tmp_path):
    legit = LEGIT[layout](tmp_path)
    found = locate(str(legit.root))
    assert found.kind == layout.rpartition("-")[2] and found.unseen == ()
    expected = {
        "worktree": tmp_path / "main" / ".git",
        "submodule": tmp_path / "super" / ".git" / "modules" / "lib",
        "worktree-submodule": tmp_path / "super" / ".git" / "worktrees" / "superwt" / "modules" / "lib",
    }[layout]
    assert visible.git_dirs(str(legit.root)) == [str(expected)] and visible.git_unseen(str(legit.root)) is None


@pytest.mark.parametrize("variant", sorted(set(ATTACKS) - {"core-worktree"}))
def test_every_attack_shows_nothing_and_says_why(variant, tmp_path):
    attack = ATTACKS[variant](tmp_path)
    assert visible.git_dirs(str(attack.root)) == []
    note = visible.git_unseen(str(attack.root))
    assert note is not None and note.startswith("git metadata outside the workspace is not visible: "), note


def test_a_back_link_written_inside_the_workspace_proves_nothing(tmp_path):
    """A workspace named `worktrees` inside a directory dressed as a git dir: the `.git` file's
    target and its `gitdir` back-link are both the workspace's own content."""
    common = tmp_path / "proj"
    for sub in ("objects", "refs"):
        (common / sub).mkdir(parents=True)
    (common / "HEAD").write_text("ref: refs/heads/main\n")
    (common / "secret.env").write_text("TOKEN=planted\n")
    root = common / "worktrees"
    (root / "x").mkdir(parents=True)
    (root / ".git").write_text("gitdir: x\n")
    (root / "x" / "commondir").write_text("../..\n")
    (root / "x" / "gitdir").write_text(f"{root}/.git\n")
    assert locate(str(root)).kind == "unproven" and visible.git_dirs(str(root)) == []


def test_a_proven_common_dir_that_is_a_hidden_location_is_not_shown(tmp_path, monkeypatch):
    legit = LEGIT["worktree"](tmp_path)
    common = str(tmp_path / "main" / ".git")
    monkeypatch.setattr(visible, "homes", lambda: [common])  # as if the common dir were a home
    assert visible.git_dirs(str(legit.root)) == []
    assert f"{common} is or holds a hidden location" in (visible.git_unseen(str(legit.root)) or "")


def test_core_worktree_does_not_move_the_workspace_root(tmp_path):
    attack = ATTACKS["core-worktree"](tmp_path)
    (attack.root / "src").mkdir()
    assert git(attack.root / "src", "rev-parse", "--show-toplevel").strip() == os.environ["HOME"]  # git believes it
    assert cast_git.toplevel(attack.root / "src") == attack.root
    legit = LEGIT["submodule"](tmp_path / "legit")  # its config's core.worktree points back at it
    assert cast_git.toplevel(legit.root) == legit.root


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    git(vault, "init", "-q")
    (vault / "secret.txt").write_text("PLANTED-VAULT-SECRET\n")
    git(vault, "add", ".")
    git(vault, "commit", "-qm", "vault")
    return vault


def test_a_git_file_naming_another_repository_seeds_no_snapshot_and_no_index_copy(tmp_path):
    vault = _vault(tmp_path)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print('app')\n")
    (root / ".git").write_text(f"gitdir: {vault}/.git\n")
    assert not belongs(str(root), str(vault / ".git" / "index"))
    shadow = Shadow(root)
    tree = shadow.snapshot().tree
    assert shadow.borrowed is None
    listed = shadow.git("ls-tree", "-r", "--name-only", tree).decode().split()
    assert listed == ["app.py"], listed
    with private_git_index(root, read_only_env(root)) as env:
        assert "GIT_INDEX_FILE" not in env


def test_a_real_worktree_still_borrows_its_objects_and_copies_its_index(tmp_path):
    legit = LEGIT["worktree"](tmp_path)
    shadow = Shadow(legit.root)
    shadow.snapshot()
    assert shadow.borrowed == str(tmp_path / "main" / ".git" / "objects")
    with private_git_index(legit.root, read_only_env(legit.root)) as env:
        assert os.path.isfile(env["GIT_INDEX_FILE"])
