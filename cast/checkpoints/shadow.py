"""The shadow repository: cast's own git object store for snapshots of the workspace.

Why git, and why a separate one: git already knows how to honour `.gitignore`, to hash only the
files whose stat data changed (so a second snapshot of a large tree is cheap), and to store many
near-identical trees in little space. But the user's repository is theirs: a checkpoint must never
write its index, refs, stash or objects, nor run its hooks or read its config. So the snapshots
live in a bare repository of cast's own (`GIT_DIR`), pointed at the workspace (`GIT_WORK_TREE`),
with a private index file (`GIT_INDEX_FILE`) and no system or global git config.

It sits at `<workspace>/.cast/checkpoints/git`: it belongs to this workspace, goes when the
workspace goes, and `.cast/.gitignore` keeps it out of the user's repository. `.cast/` itself is
never snapshotted (plans are unticked byte-exactly instead of restored), nor is any file larger
than the size cap (those are listed as skipped and never touched by a restore), nor a nested
git repository (it has a history of its own).

Attributes in the workspace (`.gitattributes`: eol conversion, filters) are switched off for
every path by the shadow's own `info/attributes`, so what is restored is byte for byte what was
there.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
EXCLUDE = "/.cast/\n.git\n"
ATTRIBUTES = "* -text -filter -ident -working-tree-encoding -eol\n"
SHADOW_CONFIG = {
    "core.autocrlf": "false",
    "core.symlinks": "true",
    "core.quotePath": "false",
    "core.fsmonitor": "false",
    "core.untrackedCache": "true",
    "core.hooksPath": "/dev/null",
    "gc.auto": "0",
    "index.version": "4",
    "advice.addEmbeddedRepo": "false",
    "diff.renames": "false",
}


class ShadowError(Exception):
    """The shadow repository could not be created or used; the message says why."""


def shadow_dir(root: Path) -> Path:
    return Path(root) / ".cast" / "checkpoints"


def run_git(
    git_dir: Path, work_tree: Path, *args: str, index: Path | None = None, data: bytes | None = None, cwd: Path | None = None
) -> bytes:
    """The one place the shadow repository runs git: through cast's hardened runner (no system or
    global config, no hooks, no inherited GIT_* variable), pointed at the shadow repository, so
    a user's GIT_DIR or GIT_INDEX_FILE can never redirect a snapshot into their repository."""
    from cast import git

    env = {
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(work_tree),
        "GIT_INDEX_FILE": str(index or git_dir / "index"),
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_AUTHOR_NAME": "cast",
        "GIT_AUTHOR_EMAIL": "cast@localhost",
        "GIT_COMMITTER_NAME": "cast",
        "GIT_COMMITTER_EMAIL": "cast@localhost",
        "LC_ALL": "C",
    }
    if args[:1] == ("init",):  # creating the repository: no GIT_DIR or work tree yet
        env = {"LC_ALL": "C"}
    out = git.call(None, *args, cwd=cwd or work_tree, timeout=300, env=env, input=data)
    if out is None:
        raise ShadowError(f"git {args[0]} could not run (is git installed?) or timed out; checkpoints need it")
    if out.returncode != 0:
        message = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ShadowError(f"git {args[0]} failed: {message[-1] if message else f'exit {out.returncode}'}")
    return out.stdout


@dataclass(frozen=True)
class Snap:
    tree: str
    skipped: dict[str, int] = field(default_factory=dict)  # path -> size, over the cap


@dataclass(frozen=True)
class Change:
    status: str  # A (created since `old`), D (deleted since), M (modified), T (type changed)
    path: str


def _nul(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _paths(out: bytes) -> list[str]:
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


class Shadow:
    """Snapshots of one workspace. Not thread-safe; `Journal` serialises use across processes."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root = Path(root).resolve()
        self.dir = shadow_dir(self.root)
        self.git_dir = self.dir / "git"
        self.max_bytes = max_bytes

    def git(self, *args: str, index: Path | None = None, data: bytes | None = None) -> bytes:
        return run_git(self.git_dir, self.root, *args, index=index, data=data)

    def ensure(self) -> None:
        if (self.git_dir / "HEAD").is_file():
            return
        from cast.fsutil import ensure_gitignore

        ensure_gitignore(self.root)  # `.cast/.gitignore` lists checkpoints/: the user's repository never sees the store
        self.dir.mkdir(parents=True, exist_ok=True)
        run_git(self.git_dir, self.root, "init", "-q", "--bare", "--template=", str(self.git_dir), cwd=self.dir)
        with open(self.git_dir / "config", "a", encoding="utf-8") as config:  # one write, not a git call per key
            for key, value in SHADOW_CONFIG.items():
                section, name = key.split(".")
                config.write(f"[{section}]\n\t{name} = {value}\n")
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(ATTRIBUTES)
        (info / "exclude").write_text(EXCLUDE)

    def snapshot(self) -> Snap:
        """The tree as it is now: every file git would not ignore, except `.cast/` and files over
        the size cap. Only files whose stat data changed since the last snapshot are read."""
        self.ensure()
        # A path ending in "/" is a nested repository: it keeps its own history, and is not recorded.
        listed = [
            p for p in _paths(self.git("ls-files", "-z", "--others", "--modified", "--exclude-standard")) if not p.endswith("/")
        ]
        skipped: dict[str, int] = {}
        for path in dict.fromkeys(listed):
            try:
                info = os.lstat(self.root / path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > self.max_bytes:
                skipped[path] = info.st_size
        # The walk above found every path that needs updating, so the index is updated for those
        # paths alone instead of walking the tree a second time with `git add -A`.
        changed = [p for p in dict.fromkeys(listed) if p not in skipped]
        try:
            if changed:
                self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin", data=_nul(changed))
        except ShadowError:  # a path turned from file to directory or back in ways update-index refuses
            self.git(
                "add",
                "-A",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                data=_nul([".", *(f":(exclude,literal){p}" for p in sorted(skipped))]),
            )
        if skipped:
            self.git("update-index", "--force-remove", "-z", "--stdin", data=_nul(sorted(skipped)))
        return Snap(self.git("write-tree").decode().strip(), skipped)

    def keep(self, name: str, tree: str) -> None:
        """A ref so that `git gc` in the shadow keeps the tree (refs may name trees directly)."""
        self.git("update-ref", f"refs/cast/{name}", tree)

    def changes(self, old: str, new: str) -> list[Change]:
        if old == new:
            return []
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--name-status", old, new, "--").split(b"\0")
        return [Change(os.fsdecode(out[i])[:1], os.fsdecode(out[i + 1])) for i in range(0, len(out) - 1, 2) if out[i]]

    def numstat(self, old: str, new: str) -> list[tuple[str, tuple[int, int] | str]]:
        if old == new:
            return []
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--numstat", old, new, "--")
        rows: list[tuple[str, tuple[int, int] | str]] = []
        for record in out.split(b"\0"):
            parts = record.split(b"\t", 2)
            if len(parts) == 3:
                rows.append((os.fsdecode(parts[2]), "Bin" if parts[0] == b"-" else (int(parts[0]), int(parts[1]))))
        return rows

    def patch(self, old: str, new: str, paths: list[str] | None = None, color: bool = False) -> str:
        args = [
            "diff-tree",
            "-r",
            "-p",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--stat",
            "--color=always" if color else "--no-color",
            old,
            new,
            "--",
            *(f":(literal){p}" for p in paths or []),
        ]
        return self.git(*args).decode("utf-8", "replace")

    def restore(self, tree: str, changes: list[Change]) -> None:
        """Make each changed path what it was in `tree`: paths absent there are removed (and the
        directories that leaves empty), the others written back with their modes. Only the
        listed paths are touched."""
        gone = [c.path for c in changes if c.status == "A"]
        for path in sorted(gone, key=lambda p: p.count("/"), reverse=True):
            target = self.root / path
            try:
                if target.is_dir() and not target.is_symlink():
                    continue  # replaced by a directory that holds other things; leave it
                target.unlink()
            except FileNotFoundError:
                pass
            _prune_empty(target.parent, self.root)
        wanted = [c.path for c in changes if c.status != "A"]
        if not wanted:
            return
        for path in wanted:  # a directory now where the file was: it must go first
            target = self.root / path
            if target.is_dir() and not target.is_symlink() and not any(target.iterdir()):
                target.rmdir()
        index = self.git_dir / "restore-index"
        try:
            self.git("read-tree", tree, index=index)
            self.git("checkout-index", "-f", "-z", "--stdin", index=index, data=_nul(wanted))
        finally:
            index.unlink(missing_ok=True)


def _prune_empty(directory: Path, root: Path) -> None:
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent
