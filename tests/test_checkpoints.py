"""The shadow repository and the journal, on real trees: what a snapshot holds, what a restore
touches, and that the user's repository and environment cannot redirect either."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import git

from cast.checkpoints import commands
from cast.checkpoints import undo as ops
from cast.checkpoints.journal import Journal
from cast.checkpoints.shadow import Shadow


def make_tree(root: Path, count: int) -> None:
    for n in range(count):
        directory = root / f"d{n // 100:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"f{n:05d}.txt").write_text(f"file {n}\n")


def tree_paths(shadow: Shadow, tree: str) -> list[str]:
    return [p for p in shadow.git("ls-tree", "-r", "-z", "--name-only", tree).decode().split("\0") if p]


def test_a_5000_file_tree_is_snapshotted_whole_and_a_second_snapshot_sees_one_change(tmp_path):
    root = tmp_path / "big"
    make_tree(root, 5000)
    shadow = Shadow(root)
    first = shadow.snapshot()
    assert len(tree_paths(shadow, first.tree)) == 5000
    (root / "d042" / "f04242.txt").write_text("changed\n")
    (root / "d000" / "f00000.txt").unlink()
    second = shadow.snapshot()
    assert {(c.status, c.path) for c in shadow.changes(first.tree, second.tree)} == {
        ("M", "d042/f04242.txt"),
        ("D", "d000/f00000.txt"),
    }
    assert shadow.snapshot().tree == second.tree


def test_cast_dir_ignored_files_and_files_over_the_cap_are_left_out_and_never_restored(tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_text("artefact\n")
    (root / ".cast").mkdir()
    (root / ".cast" / "config.toml").write_text("")
    (root / "small.txt").write_text("small\n")
    (root / "huge.dat").write_bytes(b"x" * 5000)
    journal = Journal(root, max_bytes=1000)
    start = journal.record("item", "s", "plan.md", 1, "one")
    assert tree_paths(journal.shadow, start["tree"]) == [".gitignore", "small.txt"]
    assert start["skipped"] == {"huge.dat": 5000}
    assert sorted(os.listdir(root / ".cast")) == ["config.toml"]  # the store is not in the workspace
    (root / "huge.dat").write_bytes(b"y" * 6000)
    (root / "small.txt").write_bytes(b"z" * 2000)  # grows over the cap: no longer covered
    (root / "build" / "out.bin").write_text("rebuilt\n")
    (root / "added.txt").write_text("new\n")
    journal.record("cast", "s", "plan.md")
    restore = ops.prepare_undo(journal, 1, "plan.md")
    assert restore.uncovered == ["huge.dat", "small.txt"]
    assert [c.path for c in restore.applied] == ["added.txt"]
    assert "over the checkpoint size cap" in restore.preview()
    ops.apply(journal, restore)
    assert not (root / "added.txt").exists()
    assert (root / "huge.dat").read_bytes() == b"y" * 6000 and (root / "small.txt").read_bytes() == b"z" * 2000
    assert (root / "build" / "out.bin").read_text() == "rebuilt\n"


def test_a_nested_repository_is_left_out(tmp_path):
    root = tmp_path / "w"
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "top.txt").write_text("top\n")
    (root / "vendor" / "lib" / "x.txt").write_text("x\n")
    git(root / "vendor" / "lib", "init", "-q")
    shadow = Shadow(root)
    assert tree_paths(shadow, shadow.snapshot().tree) == ["top.txt"]


def test_modes_symlinks_and_crlf_come_back_byte_for_byte(tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    (root / ".gitattributes").write_text("* text=auto eol=lf\n")  # must not convert what is restored
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "link").symlink_to("run.sh")
    journal = Journal(root)
    journal.record("item", "s", "plan.md", 1, "one")
    (root / "run.sh").chmod(0o644)
    (root / "dos.txt").write_bytes(b"changed\n")
    (root / "link").unlink()
    (root / "link").symlink_to("dos.txt")
    journal.record("cast", "s", "plan.md")  # cast's own work: not refused as a hand edit
    ops.apply(journal, ops.prepare_undo(journal, 1, "plan.md"))
    assert os.stat(root / "run.sh").st_mode & 0o777 == 0o755
    assert (root / "dos.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert os.readlink(root / "link") == "run.sh"


def test_the_users_git_environment_cannot_redirect_a_snapshot(tmp_path, repo, monkeypatch):
    index = repo / ".git" / "index"
    before = index.read_bytes()
    monkeypatch.setenv("GIT_INDEX_FILE", str(index))
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    (repo / "app.py").write_text("changed\n")
    journal = Journal(repo)
    record = journal.record("probe", "s")
    assert index.read_bytes() == before
    assert "app.py" in tree_paths(journal.shadow, record["tree"])
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_DIR")
    assert git(repo, "rev-list", "--all", "--count").strip() == "1"
    assert git(repo, "stash", "list") == "" and git(repo, "config", "--local", "--list").count("\n") < 10


def test_prune_forgets_finished_old_plans_and_keeps_the_rest(tmp_path):
    root = tmp_path / "w"
    root.mkdir()
    finished, open_plan = root / "done.md", root / "open.md"
    finished.write_text("- [x] a\n")
    open_plan.write_text("- [ ] b\n")
    journal = Journal(root)
    (root / "f.txt").write_text("1\n")
    journal.record("item", "s1", finished, 1, "a")
    (root / "f.txt").write_text("2\n")
    journal.record("item", "s2", open_plan, 1, "b")
    records = journal.records()
    for record in records:
        record["time"] = "2020-01-01T00:00:00Z"
    journal.path.write_text("".join(json.dumps(r) + "\n" for r in records))
    said: list[str] = []
    assert commands.prune(root, 14, said.append) == 0
    left = journal.records()
    assert [r["plan"] for r in left] == ["open.md"] and "pruned 1 of 2" in said[0]
    assert journal.shadow.git("cat-file", "-t", left[0]["tree"]).strip() == b"tree"
    gone = subprocess.run(
        ["git", "--git-dir", str(journal.shadow.git_dir), "cat-file", "-e", records[0]["tree"]], check=False, capture_output=True
    )
    assert gone.returncode != 0  # the finished plan's tree is gone from the store


def test_checkpoints_false_counts_from_the_user_config_not_from_an_untrusted_repository(tmp_path, monkeypatch):
    from cast import config

    root = tmp_path / "w"
    (root / ".cast").mkdir(parents=True)
    (root / ".cast" / "config.toml").write_text("checkpoints = false\n")
    monkeypatch.setattr(config, "warn_once", lambda *a, **k: None)
    assert config.load(root).checkpoints is True  # a clone cannot take the user's undo away
    user = config.config_dir() / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("checkpoints = false\n")
    assert config.load(root).checkpoints is False


def test_a_long_first_snapshot_says_how_far_it_got(tmp_path, monkeypatch):
    from cast.checkpoints import shadow
    from cast.checkpoints.recorder import Recorder

    monkeypatch.setattr(shadow, "CHUNK", 100)
    root = tmp_path / "w"
    make_tree(root, 250)
    said: list[str] = []
    recorder = Recorder(Journal(root), "s", root / "plan.md", lambda n: "")
    recorder.start(said.append, after=0)
    assert said == [
        "recording the working tree for checkpoints: 100 / 250 files",
        "recording the working tree for checkpoints: 200 / 250 files",
        "recording the working tree for checkpoints: 250 / 250 files",
        said[-1],
    ]
    assert said[-1].startswith("working tree recorded in ")
    assert len(tree_paths(recorder.journal.shadow, recorder.journal.records()[0]["tree"])) == 250
    recorder.start(said.append, after=0)  # once per run
    assert len(said) == 4


def test_the_store_is_packed_once_it_holds_many_loose_objects(tmp_path, monkeypatch):
    from cast.checkpoints import shadow

    monkeypatch.setattr(shadow, "PACK_AT", 50)
    root = tmp_path / "w"
    make_tree(root, 60)
    journal = Journal(root)
    first = journal.record("item", "s", "plan.md", 1, "one")
    (root / "d000" / "f00001.txt").write_text("changed\n")
    second = journal.record("done", "s", "plan.md", 1, "one")

    def counts() -> dict[str, str]:
        return dict(line.partition(": ")[::2] for line in journal.shadow.git("count-objects", "-v").decode().splitlines())

    assert int(counts()["count"]) >= 60 and counts()["packs"] == "0"
    journal.shadow.maintain()
    assert int(counts()["count"]) < 5 and counts()["packs"] == "1"  # left loose: an older HEAD commit, unreachable
    assert [(c.status, c.path) for c in journal.shadow.changes(first["tree"], second["tree"])] == [("M", "d000/f00001.txt")]
    assert "changed" in journal.shadow.patch(first["tree"], second["tree"])


def test_an_edit_through_a_symlinked_directory_is_recorded_where_it_landed(tmp_path):
    from cast.agent import events as ev
    from cast.checkpoints.recorder import Recorder

    root = tmp_path / "w"
    (root / "real").mkdir(parents=True)
    (root / "real" / "f.txt").write_text("one\n")
    (root / "link").symlink_to("real")
    recorder = Recorder(Journal(root), "s", root / "plan.md", lambda n: "")
    recorder.observe(ev.StepStarted(1))
    recorder.observe(ev.ToolCall("c1", "write_file", {"path": "link/f.txt", "content": "two\n"}, writes="path"))
    (root / "real" / "f.txt").write_text("two\n")
    recorder.observe(ev.ToolResult("c1", "write_file", True, "", "", changed=("link/f.txt",)))
    records = recorder.journal.records()
    assert records[-1]["kind"] == "cast" and not recorder.error
    assert [c.path for c in recorder.journal.shadow.changes(records[0]["tree"], records[-1]["tree"])] == ["real/f.txt"]


def test_a_group_writable_umask_still_gives_a_usable_store(tmp_path):
    """git creates the store's directories after the umask (0775 under umask 002): inside cast's
    0700 directory that is nobody else's to use, and the store opens again."""
    root = tmp_path / "w"
    make_tree(root, 3)
    old = os.umask(0o002)
    try:
        first = Journal(root).record("item", "s", "plan.md", 1, "one")
        assert Journal(root).records()[0]["tree"] == first["tree"]
    finally:
        os.umask(old)


def _snapshot_of_a_git_tree(tmp_path: Path, commit_cast: bool) -> tuple[Shadow, str, Path]:
    root = tmp_path / "work"
    (root / "sub").mkdir(parents=True)
    (root / ".cast").mkdir()
    for name, text in {"a.txt": "committed\n", ".env": "SECRET=1\n", "sub/b.txt": "b\n", ".cast/config.toml": "# mine\n"}.items():
        (root / name).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "a.txt", ".env", "sub/b.txt", *([".cast/config.toml"] if commit_cast else []))
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    (root / "a.txt").write_text("staged\n")
    git(root, "add", "a.txt")
    (root / "a.txt").write_text("in the work tree\n")
    git(root, "rm", "-q", "--cached", ".env")
    (root / ".gitignore").write_text(".env\n")
    (root / "new.txt").write_text("untracked\n")
    index = (root / ".git" / "index").read_bytes()
    shadow = Shadow(root)
    tree = shadow.snapshot().tree
    assert (root / ".git" / "index").read_bytes() == index
    return shadow, tree, root


@pytest.mark.parametrize("commit_cast", [False, True], ids=["the user's HEAD as the base", "a cleaned index as the base"])
def test_a_first_snapshot_from_the_users_index_records_the_work_tree_not_the_index_or_head(tmp_path, commit_cast):
    """The store starts from the user's index and HEAD: what they staged, dropped from the index
    (and now ignore) or committed under .cast must not leak into the snapshot."""
    shadow, tree, root = _snapshot_of_a_git_tree(tmp_path, commit_cast)
    assert tree_paths(shadow, tree) == [".gitignore", "a.txt", "new.txt", "sub/b.txt"]
    assert shadow.git("cat-file", "blob", f"{tree}:a.txt") == b"in the work tree\n"
    (root / "sub" / "b.txt").write_text("changed\n")
    assert {(c.status, c.path) for c in shadow.changes(tree, shadow.snapshot().tree)} == {("M", "sub/b.txt")}
