"""The checkpoint store cannot be planted, redirected or armed by the repository or the model.

A cloned repository commits `.cast/checkpoints` (a fake store whose config names a filter and a
textconv program, with `.gitattributes` arming them for every path; a symlink into `.git`; a
symlink out of the tree; a plain file), then `cast execute` (no --yes, no terminal), `cast undo
--yes`, `cast redo --yes`, `cast diff` and `cast checkpoints` run on it. A hostile model writes the
same files during the run, and tries the store's real place. The verdict comes from outside: the
marker the planted programs would write, the user's `.git` and the plant hashed before and after,
a directory outside the tree, and the store's own config.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, write_script
from conftest import run_cast as cast
from hostile_repo import tree_digest

from cast.checkpoints import store
from cast.checkpoints.shadow import shadow_dir

PLAN = """---
task: Touch a file
session: 2026-12-01-touch
created: 2026-12-01T10:00:00Z
---
# Plan: Touch a file

- [ ] Change app.py
"""
SELF_CHECK = {"text": '{"complete": true, "missing": [], "claims": []}'}


def edit_turns(*writes: tuple[str, str]) -> list[dict]:
    """Item 1 in progress, the hostile writes, an edit to app.py, item 1 done."""
    turns: list[dict] = [{"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]}]
    turns += [{"tool_uses": [{"name": "write_file", "input": {"path": p, "content": c}}]} for p, c in writes]
    turns += [
        {"tool_uses": [{"name": "write_file", "input": {"path": "app.py", "content": "VALUE = 2\n"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "checked by hand"}}]},
        {"text": "Done."},
        SELF_CHECK,
    ]
    return turns


def evil_config(marker: Path) -> str:
    program = f"\"sh -c 'echo fired >> {marker}; cat'\""  # quoted: `;` starts a comment in git config
    return (
        "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"
        f'[filter "evil"]\n\tclean = {program}\n\tsmudge = {program}\n\trequired = true\n'
        f'[diff "evil"]\n\ttextconv = {program}\n[core]\n\tfsmonitor = {program}\n\thooksPath = hooks\n'
    )


def fake_store(git_dir: Path, marker: Path) -> None:
    for sub in ("objects/info", "objects/pack", "refs/heads", "info", "hooks"):
        (git_dir / sub).mkdir(parents=True, exist_ok=True)
        (git_dir / sub / ".keep").write_text("")
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "config").write_text(evil_config(marker))
    (git_dir / "info" / "attributes").write_text("")
    for hook in ("post-index-change", "reference-transaction", "pre-auto-gc"):
        (git_dir / "hooks" / hook).write_text(f"#!/bin/sh\necho fired >> {marker}\n")
        (git_dir / "hooks" / hook).chmod(0o755)


def plant(kind: str, root: Path, outside: Path, marker: Path) -> None:
    place = root / ".cast" / "checkpoints"
    place.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fake store":
        fake_store(place / "git", marker)
    elif kind == "symlink into .git":
        place.mkdir()
        (place / "git").symlink_to("../../.git")
    elif kind == "symlink outside":
        place.symlink_to(outside)
    elif kind == "regular file":
        place.write_text("not a store\n")


def clone(tmp_path: Path, kind: str) -> tuple[Path, Path, Path]:
    """A repository as a clone would bring it: the plant and the attributes committed."""
    root, outside, marker = tmp_path / "repo", tmp_path / "outside", tmp_path / "marker"
    root.mkdir()
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n")
    git(root, "init", "-q")
    (root / "app.py").write_text("VALUE = 1\n")
    (root / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n")
    plant(kind, root, outside, marker)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a clone")
    plan = root / ".cast" / "plans" / "2026-12-01-touch" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    return root, outside, marker


def execute(root: Path, tmp_path: Path, turns: list[dict]) -> subprocess.CompletedProcess[str]:
    script = write_script(tmp_path / "model.jsonl", turns)
    return cast(root, "--model", f"script:{script}", "execute")  # no --yes: one-shot applies edits unasked


def planted_digest(root: Path) -> str:
    place = root / ".cast" / "checkpoints"
    return f"{os.path.islink(place) and os.readlink(place)}:{tree_digest(place) if place.is_dir() else place.exists()}"


PLANTS = ["fake store", "symlink into .git", "symlink outside", "regular file"]


@pytest.mark.parametrize("kind", PLANTS)
def test_a_planted_store_is_never_used_nor_written(tmp_path: Path, kind: str) -> None:
    root, outside, marker = clone(tmp_path, kind)
    before = (tree_digest(root / ".git"), tree_digest(outside), planted_digest(root))

    ran = execute(root, tmp_path, edit_turns())
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "checkpoints are off" not in ran.stdout + ran.stderr  # they worked, elsewhere
    assert (root / "app.py").read_text() == "VALUE = 2\n"
    shown = cast(root, "diff", "1")
    assert shown.returncode == 0 and "+VALUE = 2" in shown.stdout, shown.stderr
    undone = cast(root, "undo", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (root / "app.py").read_text() == "VALUE = 1\n"
    redone = cast(root, "redo", "--yes")
    assert redone.returncode == 0 and (root / "app.py").read_text() == "VALUE = 2\n", redone.stderr
    listed = cast(root, "checkpoints")
    assert listed.returncode == 0 and ".cast/plans/2026-12-01-touch/plan.md" in listed.stdout
    assert len([line for line in listed.stderr.splitlines() if ".cast/checkpoints" in line]) == 1  # one notice

    assert not marker.exists()
    assert (tree_digest(root / ".git"), tree_digest(outside), planted_digest(root)) == before
    assert git(root, "diff", "--cached", "--name-only") == ""  # nothing staged in the user's index
    for out in (ran, shown, undone, redone, listed):
        assert "Traceback" not in out.stderr


def test_a_hostile_model_cannot_arm_the_store(tmp_path: Path) -> None:
    """write_file of a store config, attributes and `.gitattributes` in the workspace, and of the
    store's real config: the next checkpoint still runs nothing."""
    root, outside, marker = clone(tmp_path, "none")
    real = shadow_dir(root) / "git"
    writes = [
        (".cast/checkpoints/git/config", evil_config(marker)),
        (".cast/checkpoints/git/info/attributes", ""),
        (".gitattributes", "* filter=evil diff=evil\n"),
        (str(real / "config"), evil_config(marker)),
        (str(real / "info" / "attributes"), ""),
    ]
    before = tree_digest(root / ".git")
    ran = execute(root, tmp_path, edit_turns(*writes))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert cast(root, "undo", "--yes").returncode == 0
    assert cast(root, "diff").returncode == 0
    assert not marker.exists()
    assert (real / "config").read_text() == store.CONFIG
    assert (real / "info" / "attributes").read_text() == store.ATTRIBUTES
    assert tree_digest(root / ".git") == before


def test_a_store_changed_behind_casts_back_is_put_right_before_git_reads_it(tmp_path: Path) -> None:
    """Had anything written the store's config or attributes (another program of the user's),
    the next open writes cast's own back before git runs: the armed filter never fires."""
    root, outside, marker = clone(tmp_path, "none")
    assert execute(root, tmp_path, edit_turns()).returncode == 0
    real = shadow_dir(root) / "git"
    (real / "config").write_text(evil_config(marker))
    (real / "info" / "attributes").write_text("")
    (root / "app.py").write_text("VALUE = 3\n")  # stale stat data: the next snapshot hashes app.py
    undone = cast(root, "undo", "--yes", "--force")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert not marker.exists()
    assert (root / "app.py").read_text() == "VALUE = 1\n"


@pytest.mark.parametrize("redirect", ["symlink", "commondir"])
def test_a_redirected_store_is_refused_in_one_line(tmp_path: Path, redirect: str) -> None:
    root, outside, marker = clone(tmp_path, "none")
    assert execute(root, tmp_path, edit_turns()).returncode == 0
    real = shadow_dir(root) / "git"
    if redirect == "symlink":
        (real / "objects").rename(tmp_path / "objects")
        (real / "objects").symlink_to(tmp_path / "objects")
    else:
        (real / "commondir").write_text(str(root / ".git") + "\n")
    before = tree_digest(root / ".git")
    for command in (["diff"], ["undo", "--yes"], ["redo", "--yes"], ["checkpoints"]):
        out = cast(root, *command)
        lines = out.stderr.strip().splitlines()
        assert out.returncode == 1 and len(lines) == 1 and "checkpoint store" in lines[0], (command, out.stderr)
    assert tree_digest(root / ".git") == before


def test_checkpoints_false_turns_them_off_and_undo_says_so(tmp_path: Path) -> None:
    root, outside, marker = clone(tmp_path, "none")
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text("checkpoints = false\n")  # a repository's config cannot take the user's undo away
    ran = execute(root, tmp_path, edit_turns())
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert not shadow_dir(root).exists()
    for command in (["undo", "--yes"], ["diff"]):
        out = cast(root, *command)
        assert (
            out.returncode == 1
            and out.stderr.strip()
            == f"cast: checkpoints are off (checkpoints = false in the configuration): there is nothing to {command[0]}"
        )
    assert (root / "app.py").read_text() == "VALUE = 2\n"


def test_the_journal_names_the_store_outside_the_workspace(tmp_path: Path) -> None:
    root, outside, marker = clone(tmp_path, "none")
    assert execute(root, tmp_path, edit_turns()).returncode == 0
    journal = shadow_dir(root) / "journal.jsonl"
    kinds = [json.loads(line)["kind"] for line in journal.read_text().splitlines()]
    assert kinds[:2] == ["probe", "item"] and "done" in kinds
    assert root not in shadow_dir(root).parents
    assert oct(shadow_dir(root).stat().st_mode & 0o777) == "0o700"
