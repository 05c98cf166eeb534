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
import shutil
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


def in_process(root: Path, command: str) -> tuple[int, list[str], list[str]]:
    """`cast undo --yes`, `redo --yes`, `diff` or `checkpoints` through the functions the CLI
    calls (cast/checkpoints/commands.py): the exit code, what they said, what they said as errors."""
    from cast.checkpoints import commands

    out: list[str] = []
    err: list[str] = []
    calls = {
        "undo": lambda: commands.undo(root, None, None, True, False, out.append, None, err=err.append),
        "redo": lambda: commands.redo(root, True, False, out.append, None, err=err.append),
        "diff": lambda: commands.diff(root, None, None, out.append, err=err.append),
        "checkpoints": lambda: commands.listing(root, out.append, err.append),
    }
    return calls[command](), out, err


@pytest.mark.parametrize("kind", PLANTS)
def test_a_planted_store_is_never_used_nor_written(tmp_path: Path, kind: str) -> None:
    """End to end through every command for the fake store (the plant that ran code); through
    `cast execute` and the commands' own functions for the others."""
    root, outside, marker = clone(tmp_path, kind)
    before = (tree_digest(root / ".git"), tree_digest(outside), planted_digest(root))

    ran = execute(root, tmp_path, edit_turns())
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "checkpoints are off" not in ran.stdout + ran.stderr  # they worked, elsewhere
    assert (root / "app.py").read_text() == "VALUE = 2\n"
    if kind == "fake store":
        shown, undone = cast(root, "diff", "1"), cast(root, "undo", "--yes")
        assert shown.returncode == 0 and "+VALUE = 2" in shown.stdout, shown.stderr
        assert undone.returncode == 0 and (root / "app.py").read_text() == "VALUE = 1\n", undone.stdout + undone.stderr
        redone, listed = cast(root, "redo", "--yes"), cast(root, "checkpoints")
        assert redone.returncode == 0 and (root / "app.py").read_text() == "VALUE = 2\n", redone.stderr
        assert listed.returncode == 0 and ".cast/plans/2026-12-01-touch/plan.md" in listed.stdout
        assert len([line for line in listed.stderr.splitlines() if ".cast/checkpoints" in line]) == 1  # one notice
        assert all("Traceback" not in out.stderr for out in (ran, shown, undone, redone, listed))
        kinds = [json.loads(line)["kind"] for line in (shadow_dir(root) / "journal.jsonl").read_text().splitlines()]
        assert kinds[:2] == ["probe", "item"] and {"done", "undo", "redo"} <= set(kinds)
        assert root not in shadow_dir(root).parents and shadow_dir(root).stat().st_mode & 0o777 == 0o700
    else:
        assert in_process(root, "diff")[0] == 0
        assert in_process(root, "undo")[0] == 0 and (root / "app.py").read_text() == "VALUE = 1\n"
        assert in_process(root, "redo")[0] == 0 and (root / "app.py").read_text() == "VALUE = 2\n"
        code, _, errors = in_process(root, "checkpoints")
        assert code == 0 and len(errors) == 1 and ".cast/checkpoints" in errors[0]

    assert not marker.exists()
    assert (tree_digest(root / ".git"), tree_digest(outside), planted_digest(root)) == before
    assert git(root, "diff", "--cached", "--name-only") == ""  # nothing staged in the user's index


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


def with_checkpoints(tmp_path: Path) -> Path:
    """A clone with one recorded item (taken in-process: what is tested is what comes after)."""
    from cast.checkpoints.journal import Journal

    root, _, _ = clone(tmp_path, "none")
    journal = Journal(root)
    journal.record("item", "s", "plan.md", 1, "one")
    (root / "app.py").write_text("VALUE = 2\n")
    journal.record("done", "s", "plan.md", 1, "one")
    return root


@pytest.mark.parametrize("redirect", ["symlink", "commondir", "file"])
def test_a_redirected_store_is_refused_in_one_line(tmp_path: Path, redirect: str) -> None:
    root = with_checkpoints(tmp_path)
    real = shadow_dir(root) / "git"
    if redirect == "symlink":
        (real / "objects").rename(tmp_path / "objects")
        (real / "objects").symlink_to(tmp_path / "objects")
    elif redirect == "commondir":
        (real / "commondir").write_text(str(root / ".git") + "\n")
    else:  # the store's directory replaced by a file
        shutil.rmtree(shadow_dir(root))
        shadow_dir(root).write_text("not a store\n")
    before = tree_digest(root / ".git")
    for command in ("diff", "undo", "redo", "checkpoints"):
        code, _, errors = in_process(root, command)
        assert code == 1 and len(errors) == 1 and "checkpoint store" in errors[0], (command, errors)
    out = cast(root, "diff")
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1 and "checkpoint store" in out.stderr
    assert tree_digest(root / ".git") == before and (root / "app.py").read_text() == "VALUE = 2\n"


def test_checkpoints_false_turns_them_off_and_undo_says_so(tmp_path: Path) -> None:
    root, outside, marker = clone(tmp_path, "none")
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text("checkpoints = false\n")  # a repository's config cannot take the user's undo away
    ran = execute(root, tmp_path, edit_turns())
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert not shadow_dir(root).exists()
    out = cast(root, "undo", "--yes")
    off = "cast: checkpoints are off (checkpoints = false in the configuration): there is nothing to"
    assert out.returncode == 1 and out.stderr.strip() == f"{off} undo"
    assert in_process(root, "diff") == (1, [], [f"{off} diff"])
    assert (root / "app.py").read_text() == "VALUE = 2\n"


def test_the_users_repository_settings_run_nothing_through_checkpoints(tmp_path: Path) -> None:
    """A repository whose own config arms a required filter, textconv, hooks, fsmonitor and a
    split index, with stale stat data: execute, undo and diff run none of it, and .git is as it was."""
    import hostile_repo

    repo = hostile_repo.build(tmp_path / "hostile", traps=("hooks", "textconv", "filter", "fsmonitor", "splitindex"))
    plan = repo.root / ".cast" / "plans" / "2026-12-01-touch" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    turns = edit_turns(("data.flt", "two\n"), ("notes.txt", "changed\n"))
    before = repo.git_digest()
    ran = execute(repo.root, tmp_path, turns)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "checkpoints are off" not in ran.stdout
    shown = cast(repo.root, "diff", "1")
    assert shown.returncode == 0 and "+two" in shown.stdout, shown.stderr
    undone = cast(repo.root, "undo", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (repo.root / "data.flt").read_text() == "one\n"
    assert repo.fired() == []
    assert repo.git_digest() == before


def test_a_snapshot_of_the_paths_cast_wrote_never_reads_through_a_committed_symlink(tmp_path: Path) -> None:
    """A clone commits `notes.txt` and `shared/` as symlinks out of the tree, and `alias.py` as one
    to app.py; the model writes through each name, then to app.py. The snapshot after each write
    is built from the names cast wrote (cast/checkpoints/path_snapshot.py): no byte from outside
    may reach the store, nothing outside may change, and the user's objects keep even their times."""
    root, outside, _ = clone(tmp_path, "none")
    (root / "notes.txt").symlink_to(outside / "precious.txt")
    (root / "shared").symlink_to(outside)
    (root / "alias.py").symlink_to("app.py")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "links out")
    objects = root / ".git" / "objects"
    times = {p: p.stat().st_mtime_ns for p in objects.rglob("*")}
    writes = [("notes.txt", "overwritten\n"), ("alias.py", "VALUE = 3\n"), ("shared/new.txt", "planted\n")]
    ran = execute(root, tmp_path, edit_turns(*writes))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (outside / "precious.txt").read_text() == "keep me\n"
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]
    assert (root / "app.py").read_text() == "VALUE = 2\n"
    store_git = shadow_dir(root) / "git"
    local = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        env={"GIT_DIR": str(store_git), "PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)},
        capture_output=True,
        check=True,
    ).stdout
    assert b"VALUE = 2" in local and b"VALUE = 3" in local  # the store does hold the edits
    assert b"keep me" not in local
    assert {p: p.stat().st_mtime_ns for p in objects.rglob("*")} == times
