"""A snapshot of the paths cast wrote is built from the store's HEAD without its index
(cast/checkpoints/path_snapshot.py). Its answers must be the index's answers: every step here runs
on two stores of one work tree, one taking the path snapshot and one made to look through the
index, and their trees and skipped files must agree, before and after a full look."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import git

from cast.checkpoints import path_snapshot
from cast.checkpoints import shadow as shadow_module
from cast.checkpoints.shadow import Shadow, Snap

CAP = 64


class Twins:
    """Two stores on one work tree. `direct` may take path snapshots; `indexed` never does."""

    def __init__(self, root: Path, state: Path, monkeypatch: pytest.MonkeyPatch):
        self.root = root
        self.tracks_ignored = (root / ".git").exists()  # the user's index tracks kept.log, ignored or not
        self.direct = Shadow(root, max_bytes=CAP, directory=state / "direct")
        self.indexed = Shadow(root, max_bytes=CAP, directory=state / "indexed")
        self.answers: list[object] = []
        real = path_snapshot.snapshot_paths

        def spied(shadow: Shadow, paths: list[str], untracked: set[str] | None = None) -> tuple[str, dict[str, int]] | None:
            if shadow is self.indexed:
                return None
            answer = real(shadow, paths, untracked)
            self.answers.append(answer)
            return answer

        monkeypatch.setattr(shadow_module, "snapshot_paths", spied)
        self.last = self.full()

    def full(self) -> Snap:
        mine, theirs = self.direct.snapshot(), self.indexed.snapshot()
        assert mine == theirs
        return mine

    def step(self, *paths: str, direct: bool = True) -> Snap:
        """Both stores snapshot `paths`; the direct one took its own way (or the index's, as told),
        without writing its index when it did."""
        index = self.direct.git_dir / "index"
        before = index.read_bytes() if index.exists() else None
        self.answers.clear()
        mine, theirs = self.direct.snapshot(list(paths)), self.indexed.snapshot(list(paths))
        assert mine == theirs, f"{paths}: {self.changes(theirs.tree, mine.tree)}"
        assert (self.answers[0] is not None) == direct, self.answers
        if direct:
            assert (index.read_bytes() if index.exists() else None) == before
        self.last = mine
        return mine

    def changed(self, *paths: str, direct: bool = True) -> set[tuple[str, str]]:
        old = self.last.tree
        return self.changes(old, self.step(*paths, direct=direct).tree)

    def changes(self, old: str, new: str) -> set[tuple[str, str]]:
        return {(c.status, c.path) for c in self.indexed.changes(old, new)}

    def settle(self) -> None:
        """A full look in each store, and a store made fresh, hold the last path snapshot's tree."""
        last = self.last.tree
        assert self.full().tree == last
        assert Shadow(self.root, max_bytes=CAP, directory=self.root.parent / "fresh").snapshot().tree == last


def write(root: Path, path: str, text: str = "x\n") -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


@pytest.fixture(params=["a git work tree", "a plain directory"])
def twins(request, tmp_path, monkeypatch) -> Twins:
    root = tmp_path / "work"
    for path in ("README.md", "src/a.py", "src/b.py", "src/only/one.py", "tools/run.sh", "docs/keep/deep/note.md"):
        write(root, path, f"{path}\n")
    (root / "tools" / "run.sh").chmod(0o755)
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\nout/*\n!out/x.txt\n")
    write(root, "src/.gitignore", "*.tmp\n")
    write(root, "kept.log", "tracked although ignored\n")
    os.symlink("README.md", root / "readme-link")
    if request.param == "a git work tree":
        git(root, "init", "-q")
        git(root, "add", ".")
        git(root, "add", "-f", "kept.log")
        git(root, "commit", "-qm", "base")
    return Twins(root, tmp_path / "state", monkeypatch)


def test_edits_new_files_deletions_and_modes_agree_with_the_index(twins):
    root = twins.root
    write(root, "src/a.py", "changed\n")
    assert twins.changed("src/a.py") == {("M", "src/a.py")}
    (root / "src" / "a.py").chmod(0o755)
    assert twins.changed("src/a.py") == {("M", "src/a.py")}
    write(root, "src/new/deep/n.py")
    assert twins.changed("src/new/deep/n.py") == {("A", "src/new/deep/n.py")}
    (root / "src" / "only" / "one.py").unlink()
    (root / "src" / "only").rmdir()
    assert twins.changed("src/only/one.py") == {("D", "src/only/one.py")}
    (root / "src" / "b.py").unlink()
    os.symlink("../README.md", root / "src" / "b.py")
    assert twins.changed("src/b.py") == {("T", "src/b.py")}
    write(root, "src/a.py", "src/a.py\n")  # back as it was, but executable
    write(root, "src/c.py", "three\n")
    (root / "docs" / "keep" / "deep" / "note.md").unlink()
    assert twins.changed("src/a.py", "src/c.py", "docs/keep/deep/note.md") == {
        ("M", "src/a.py"),
        ("A", "src/c.py"),
        ("D", "docs/keep/deep/note.md"),
    }
    assert twins.changed("src/a.py") == set()  # nothing new: the same tree
    write(root, "name with spaces/é ü.txt")
    os.makedirs(root / "raw", exist_ok=True)
    (root / os.fsdecode(b"raw/caf\xe9.txt")).write_text("latin-1 name\n")
    assert twins.changed("name with spaces/é ü.txt", os.fsdecode(b"raw/caf\xe9.txt")) == {
        ("A", "name with spaces/é ü.txt"),
        ("A", os.fsdecode(b"raw/caf\xe9.txt")),
    }
    twins.settle()


def test_ignored_files_the_size_cap_and_cast_s_own_directory_agree_with_the_index(twins):
    root = twins.root
    for path in ("build/out.py", "x.log", "src/scratch.tmp", "out/z.txt", "keep.log", "out/x.txt"):
        write(root, path)
    assert twins.changed("build/out.py", "x.log", "src/scratch.tmp", "out/z.txt", "keep.log", "out/x.txt") == {
        ("A", "keep.log"),
        ("A", "out/x.txt"),
    }
    write(root, "kept.log", "still tracked\n")  # tracked: recorded although a pattern ignores it
    assert twins.changed("kept.log") == ({("M", "kept.log")} if twins.tracks_ignored else set())
    write(root, "src/a.py", "y" * (CAP + 1))  # tracked, over the cap: left out, and listed
    write(root, "big.txt", "y" * (CAP + 5))
    write(root, "build/big.txt", "y" * (CAP + 5))  # ignored and over the cap: not listed
    snap = twins.step("src/a.py", "big.txt", "build/big.txt")
    assert snap.skipped == {"src/a.py": CAP + 1, "big.txt": CAP + 5}
    write(root, ".cast/plans/p/plan.md", "- [ ] one\n")
    assert twins.changed(".cast/plans/p/plan.md") == set()
    twins.settle()


def test_the_index_catches_up_before_a_full_look_and_before_the_index_s_own_path_look(twins):
    """Path snapshots leave the index behind HEAD; a full look, and a path look through the index,
    must still record what HEAD holds for the paths they do not name."""
    root = twins.root
    write(root, "src/a.py", "edited by cast\n")
    (root / "kept.log").unlink()  # tracked and ignored: deleted by cast, then made again by hand
    write(root, "src/fresh.py")
    assert twins.changed("src/a.py", "kept.log", "src/fresh.py") == {
        ("M", "src/a.py"),
        ("A", "src/fresh.py"),
        *([("D", "kept.log")] if twins.tracks_ignored else []),
    }
    assert (twins.direct.git_dir / path_snapshot.LAG).stat().st_size > 0
    os.symlink("src", root / "linked")
    write(root, "src/b.py", "edited through a symlinked directory\n")
    assert twins.changed("linked/b.py", "src/b.py", direct=False) == {("M", "src/b.py")}
    lag = (twins.direct.git_dir / path_snapshot.LAG).read_bytes()  # caught up, then what this look recorded
    assert b"src/fresh.py" not in lag and b"src/b.py" in lag
    write(root, "kept.log", "made again, ignored now\n")
    write(root, "src/a.py", "edited by hand\n")
    mine = twins.full()
    assert twins.changes(twins.last.tree, mine.tree) == {("M", "src/a.py"), ("A", "linked")}


def test_a_lag_the_index_cannot_take_starts_the_index_from_head(twins):
    root = twins.root
    write(root, "src/a.py", "edited\n")
    twins.step("src/a.py")
    with open(twins.direct.git_dir / path_snapshot.LAG, "ab") as lag:
        lag.write(b"not an index entry\0")
    write(root, "src/b.py", "edited by hand\n")
    assert twins.changes(twins.last.tree, twins.full().tree) == {("M", "src/b.py")}


def _through_a_symlinked_directory(root: Path) -> list[str]:
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside the workspace\n")
    os.symlink(outside, root / "away")
    return ["away/secret.txt"]


def _in_a_nested_repository(root: Path) -> list[str]:
    write(root, "vendor/lib/f.py")
    git(root / "vendor" / "lib", "init", "-q")
    return ["vendor/lib/f.py"]


def _a_file_where_head_has_a_directory(root: Path) -> list[str]:
    for name in ("one.py",):
        (root / "src" / "only" / name).unlink()
    (root / "src" / "only").rmdir()
    write(root, "src/only", "now a file\n")
    return ["src/only"]


def _a_directory_where_a_file_was(root: Path) -> list[str]:
    (root / "src" / "a.py").unlink()
    write(root, "src/a.py/inner.py")
    return ["src/a.py"]


def _a_fifo(root: Path) -> list[str]:
    os.mkfifo(root / "src" / "pipe")
    return ["src/pipe"]


def _git_s_own_names(root: Path) -> list[str]:
    write(root, "sub/.GIT/config")
    write(root, "git~1/x")
    return ["sub/.GIT/config", "git~1/x"]


def _one_path_inside_another(root: Path) -> list[str]:
    write(root, "src/a.py", "changed\n")
    return ["src", "src/a.py"]


@pytest.mark.parametrize(
    "make",
    [
        _through_a_symlinked_directory,
        _in_a_nested_repository,
        _a_file_where_head_has_a_directory,
        _a_directory_where_a_file_was,
        _a_fifo,
        _git_s_own_names,
        _one_path_inside_another,
    ],
)
def test_what_a_path_snapshot_does_not_decide_goes_to_the_index(twins, make):
    paths = make(twins.root)
    twins.step(*paths, direct=False)
    listing = twins.direct.git("ls-tree", "-r", "--name-only", twins.last.tree).decode()
    assert "secret.txt" not in listing
    twins.full()


def test_a_snapshot_starts_from_the_head_another_cast_process_left(twins):
    """Two processes in one workspace take turns on the store: one's path snapshot must keep what
    the other recorded since its own last look (and a new process reads a HEAD that is still the
    user's commit's tree through the user's objects)."""
    root = twins.root
    other = Shadow(root, max_bytes=CAP, directory=twins.direct.dir)
    write(root, "src/a.py", "recorded by the other process\n")
    theirs = other.snapshot(["src/a.py"])
    write(root, "src/b.py", "recorded here\n")
    mine = twins.direct.snapshot(["src/b.py"])

    def changes(old: str, new: str) -> set[tuple[str, str]]:
        return {(c.status, c.path) for c in other.changes(old, new)}

    assert changes(twins.last.tree, mine.tree) == {("M", "src/a.py"), ("M", "src/b.py")}
    assert changes(theirs.tree, mine.tree) == {("M", "src/b.py")}


@pytest.mark.parametrize("staged", [False, True], ids=["changed in the work tree", "changed in the user's index too"])
def test_a_first_look_at_a_changed_tree_records_what_the_index_would(tmp_path, monkeypatch, staged):
    """A full look that finds a few changes where the store's index holds what HEAD holds builds
    the tree from HEAD's; where the user's index differs from their HEAD (staged, dropped,
    force-added), the index's answer is the only right one, and it is taken."""
    root = tmp_path / "work"
    for path in ("README.md", "src/a.py", "src/b.py", "src/c.py", "old.log"):
        write(root, path, f"{path}\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "add", "-f", "old.log")
    git(root, "commit", "-qm", "base")
    write(root, "src/a.py", "modified\n")
    (root / "src" / "b.py").unlink()
    write(root, "src/new.py")
    write(root, "build/out.py")
    write(root, "huge.txt", "y" * (CAP + 1))
    if staged:
        write(root, "src/c.py", "staged\n")
        git(root, "add", "src/c.py")
        git(root, "rm", "-q", "--cached", "old.log")  # dropped from the index, and ignored
        write(root, "forced.log", "force-added\n")
        git(root, "add", "-f", "forced.log")
    twins = Twins(root, tmp_path / "state", monkeypatch)
    assert bool(twins.answers) != staged and all(twins.answers)
    assert twins.last.skipped == {"huge.txt": CAP + 1}
    names = set(twins.direct.git("ls-tree", "-r", "--name-only", twins.last.tree).decode().split())
    assert names == {".gitignore", "README.md", "src/a.py", "src/new.py"} | (
        {"src/c.py", "forced.log"} if staged else {"src/c.py", "old.log"}
    )
    write(root, "src/a.py", "again\n")
    assert twins.changes(twins.last.tree, twins.full().tree) == {("M", "src/a.py")}
