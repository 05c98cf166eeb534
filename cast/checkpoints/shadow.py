"""The shadow repository: cast's own git object store for snapshots of the workspace.

Why git, and why a separate one: git already knows how to honour `.gitignore`, to hash only the
files whose stat data changed (so a second snapshot of a large tree is cheap), and to store many
near-identical trees in little space. But the user's repository is theirs: a checkpoint must never
write its index, refs, stash or objects, nor run its hooks or read its config. So the snapshots
live in a bare repository of cast's own (`GIT_DIR`, in cast's private state: store.py says where
and why), pointed at the workspace (`GIT_WORK_TREE`), with its own index and no system or global
git config.

In a git workspace the first snapshot costs about a `git status`, not a re-hash of the tree: the
store starts from a copy of the user's index (its stat data says which files are unchanged) and
reads the user's objects through an alternate (`GIT_ALTERNATE_OBJECT_DIRECTORIES`, reads only), so
it stores only what differs. Commands that write blobs run without the alternate: git
"freshens" an object it finds in an alternate (it sets the file's time), and the user's `.git`
must stay as it was. `write-tree` needs it (to reuse the user's trees instead of rewriting every
one), so the one thing it can do to `.git` is set the time of a pack that holds a tree a snapshot
recomputed identically, never a byte of its content. The user's objects must stay readable: a
checkpoint whose objects the user's own `git gc` pruned (unreachable, weeks old) cannot be
restored, and says so in one line. Each snapshot's tree is also committed as the store's HEAD, so the next
snapshot is one `git status` in the store: it refreshes the stat data in the store's index (never
the user's) and lists what changed, and only those paths are hashed. A snapshot after an edit
cast made itself looks at that path alone, and is built from HEAD's trees without rewriting the
index (path_snapshot.py).

`.cast/` is never snapshotted (plans are unticked byte-exactly instead of restored), nor is any
file larger than the size cap (those are listed as skipped and never touched by a restore), nor a
nested git repository or submodule (it has a history of its own).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cast import git
from cast.checkpoints import objects, store
from cast.checkpoints.borrow import borrow
from cast.checkpoints.objects import Entries
from cast.checkpoints.path_snapshot import catch_up, snapshot_paths
from cast.checkpoints.store import ShadowError as ShadowError  # what every user of the shadow catches, from here

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
PACK_AT = 6700  # loose objects: git's own gc.auto threshold
CHUNK = 5000  # files hashed per update-index call
MANY_PATHS = 500  # a restore of more paths lists the whole tree rather than name each one
FEW = 100  # changes a full look records without the index (path_snapshot.py); more go through git's C
IDENTITY = {
    "GIT_AUTHOR_NAME": "cast",
    "GIT_AUTHOR_EMAIL": "cast@localhost",
    "GIT_COMMITTER_NAME": "cast",
    "GIT_COMMITTER_EMAIL": "cast@localhost",
}


def shadow_dir(root: Path) -> Path:
    return store.store_dir(Path(root).resolve())


def run_git(
    git_dir: Path,
    work_tree: Path,
    *args: str,
    index: Path | None = None,
    data: bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
    exits: tuple[int, ...] = (0,),
) -> bytes:
    """The one place the shadow repository runs git: through cast's hardened runner (no system or
    global config, no hooks, no inherited GIT_* variable), pointed at the shadow repository, so
    a user's GIT_DIR or GIT_INDEX_FILE can never redirect a snapshot into their repository."""

    full = {
        "GIT_DIR": str(git_dir),
        "GIT_WORK_TREE": str(work_tree),
        "GIT_INDEX_FILE": str(index or git_dir / "index"),
        "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
        **IDENTITY,
        **(env or {}),
    }
    if args[:1] == ("init",):  # creating the repository: no GIT_DIR or work tree yet
        full = {"LC_ALL": "C"}
    out = git.call(None, *args, cwd=cwd or work_tree, timeout=300, env=full, input=data)
    if out is None:
        raise ShadowError(f"git {args[0]} could not run (is git installed?) or timed out; checkpoints need it")
    if out.returncode not in exits and check:
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


class Shadow:
    """Snapshots of one workspace. Not thread-safe; `Journal` serialises use across processes."""

    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES, directory: Path | None = None):
        self.root = Path(root).resolve()
        self.dir = directory or shadow_dir(self.root)
        self.git_dir = self.dir / "git"
        self.max_bytes = max_bytes
        self.borrowed: str | None = None  # the user's object directory, read through an alternate
        self._open = False
        self._head: str | None = None  # the tree the store's HEAD commit holds, once known
        self._head_commit: str | None = None  # the commit (the HEAD file's text) that `_head` is the tree of
        self.trees: tuple[str, dict[str, Entries | None]] = ("", {})  # HEAD's trees a path snapshot last read
        self.progress: Callable[[int, int], None] | None = None  # (files recorded, of how many) in a long snapshot

    def exists(self) -> bool:
        return os.path.lexists(self.git_dir)

    def git(
        self,
        *args: str,
        index: Path | None = None,
        data: bytes | None = None,
        borrow: bool = True,
        exits: tuple[int, ...] = (0,),
        **env: str,
    ) -> bytes:
        """git in the store. `borrow=False` for commands that write objects (see the docstring);
        `exits`: the exit codes that are answers, not failures."""
        self.ensure()
        if borrow and self.borrowed:
            env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = self.borrowed
        return run_git(self.git_dir, self.root, *args, index=index, data=data, env=env, exits=exits)

    def ensure(self) -> None:
        """Open the store, creating it on first use; every open checks it is as cast left it."""
        if self._open:
            return
        self._open = True  # from here on its own git calls run
        try:
            store.open_dir(self.root, self.dir)
            if not self.exists():
                store.create(self.git_dir, self._init)
                borrow(self)
            else:
                store.verify(self.git_dir)
            borrowed = self.dir / store.BORROW
            if os.path.lexists(borrowed):
                path = borrowed.read_text(encoding="utf-8").strip()
                self.borrowed = path if os.path.isabs(path) and os.path.isdir(path) else None
        except store.StoreError as exc:
            self._open = False
            error = ShadowError(str(exc))
            error.exit_code = exc.exit_code  # type: ignore[attr-defined]  # read by checkpoints.commands
            raise error from None
        except OSError as exc:
            self._open = False
            raise ShadowError(f"checkpoint store {self.dir}: {exc.strerror or exc}") from None
        except ShadowError:
            self._open = False
            raise

    def _init(self, directory: Path) -> None:
        """What `git init --bare --template=` makes, without a git process (store.create writes
        cast's own config, attributes and excludes into it)."""
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        (directory / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")

    def _commit(self, tree: str) -> None:
        """The store's HEAD holds the newest snapshot, so its `git status` lists only what changed."""
        if tree == self.head_tree():
            return
        commit = objects.write(self.git_dir / "objects", "commit", objects.commit_body(tree)).hex()
        store.write_own(self.git_dir / "HEAD", commit + "\n")  # a detached HEAD, as update-ref writes it
        self._head, self._head_commit = tree, commit

    def head_tree(self) -> str:
        """The tree the store's HEAD commit holds. Read again whenever HEAD names another commit
        than this one last knew: another cast process in the workspace took a snapshot since."""
        try:
            commit = (self.git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            commit = None
        if commit != self._head_commit and (commit or "ref:").startswith("ref:"):  # a new store: no commit yet
            self._head, self._head_commit = None, commit
        elif commit != self._head_commit:
            borrowed = {"GIT_ALTERNATE_OBJECT_DIRECTORIES": self.borrowed} if self.borrowed else None  # HEAD may be theirs
            out = run_git(self.git_dir, self.root, "rev-parse", "--verify", "-q", "HEAD^{tree}", env=borrowed, check=False)
            self._head, self._head_commit = out.decode().strip() or None, commit
        return self._head or EMPTY_TREE

    def snapshot(self, paths: list[str] | None = None) -> Snap:
        """The tree as it is now: every file git would not ignore, except `.cast/` and files over
        the size cap. Only files whose stat data changed since the last snapshot are read.
        `paths`: only these changed since the last snapshot, as far as cast knows (an edit it
        made itself); `[]` means nothing did."""
        self.ensure()
        self.head_tree()
        if paths == []:
            return Snap(self.head_tree())
        if paths is not None and (direct := snapshot_paths(self, paths)) is not None:
            return Snap(*direct)
        catch_up(self)  # the index holds what HEAD holds again before git compares the work tree with it
        spec = [] if paths is None else ["--", *(f":(literal){p}" for p in paths)]
        out = self.git(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", *spec,
            # A whole look: the store's index keeps the refreshed stat data (and untracked cache), so the next
            # one reads only what changed. A look at a few paths does not rewrite the whole index for theirs:
            # on a big tree that write costs more than the look; update-index below records what changed.
            GIT_OPTIONAL_LOCKS="1" if paths is None else "0",
        )  # fmt: skip
        # A path ending in "/" is a nested repository: it keeps its own history, and is not recorded.
        entries = _status_entries(out)
        listed = [p for p in dict.fromkeys(path for _, path in entries) if not p.endswith("/")]
        # A few changes where the index holds what HEAD holds: built from HEAD's trees, as after an edit.
        if listed and len(listed) <= FEW and all(code[0] == " " or code == "??" for code, _ in entries):
            untracked = {path for code, path in entries if code == "??"}  # status has said: not ignored
            if (direct := snapshot_paths(self, listed, untracked)) is not None:
                return Snap(*direct)
        unstaged = _unstaged(entries)
        skipped: dict[str, int] = {}
        for path in listed:
            try:
                info = os.lstat(self.root / path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > self.max_bytes:
                skipped[path] = info.st_size
        changed = [p for p in listed if p not in skipped and p not in unstaged]
        try:
            for start in range(0, len(changed), CHUNK):  # in chunks, so a long first snapshot can show progress
                part = changed[start : start + CHUNK]
                self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin", data=_nul(part), borrow=False)
                if self.progress is not None and len(changed) > CHUNK:
                    self.progress(start + len(part), len(changed))
        except ShadowError:  # a path turned from file to directory or back, or now lies beyond a symlink
            gone = {p for p in changed if any(os.path.islink(self.root / d) for d in Path(p).parents[:-1])}
            self.git("update-index", "--force-remove", "-z", "--stdin", data=_nul(sorted(gone)), borrow=False)
            literal = [f":(literal){p}" for p in changed if p not in gone]
            if literal:
                self.git("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", data=_nul(literal), borrow=False)
        if skipped or unstaged:
            self.git("update-index", "--force-remove", "-z", "--stdin", data=_nul(sorted({*skipped, *unstaged})), borrow=False)
        if not listed and self._head:  # status compares the index with HEAD too: nothing listed, nothing differs
            return Snap(self.head_tree())
        tree = self.git("write-tree").decode().strip()
        self._commit(tree)
        return Snap(tree, skipped)

    def keep(self, tree: str) -> None:
        """A ref so that `git gc` in the store keeps the tree (refs may name trees directly);
        written as a loose ref file, the format git reads, without a process per snapshot."""
        refs = self.git_dir / "refs" / "keep"
        if not (refs / tree).exists():
            refs.mkdir(exist_ok=True)
            (refs / tree).write_text(tree + "\n")

    def maintain(self) -> None:
        """Pack the store's loose objects once there are many (a first snapshot of a tree git
        does not know stores one per file), in the store only."""
        if not self._open:
            return
        counts = dict(line.partition(": ")[::2] for line in self.git("count-objects", "-v").decode().splitlines())
        if int(counts.get("count", "0")) >= PACK_AT:
            self.git("repack", "-d", "-l", "-q")
            self.git("prune-packed", "-q")

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

    def patch(self, old: str, new: str, paths: list[str] | None = None, color: bool = False, stat: bool = True) -> str:
        args = [
            "diff-tree",
            "-r",
            "-p",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            *(["--stat"] if stat else []),
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
        # An index of just the wanted entries (not the whole tree): a restore costs what it restores.
        named = [] if len(wanted) > MANY_PATHS else ["--", *wanted]
        listing = self.git("ls-tree", "-r", "-z", "--full-tree", tree, *named, GIT_LITERAL_PATHSPECS="1")
        keep = set(map(os.fsencode, wanted))
        entries = [e for e in listing.split(b"\0") if e and e.partition(b"\t")[2] in keep]
        index = self.dir / "restore-index"
        try:
            index.unlink(missing_ok=True)
            self.git("update-index", "-z", "--index-info", index=index, data=b"".join(e + b"\0" for e in entries), borrow=False)
            self.git("checkout-index", "-f", "-z", "--stdin", index=index, data=_nul(wanted))
        finally:
            index.unlink(missing_ok=True)


def _status_entries(out: bytes) -> list[tuple[str, str]]:
    """(code, path) of `git status --porcelain=v1 -z` (renames are off: one path per entry)."""
    return [(os.fsdecode(entry[:2]), os.fsdecode(entry[3:])) for entry in out.split(b"\0") if len(entry) > 3]


def _unstaged(entries: list[tuple[str, str]]) -> set[str]:
    """Paths the user's index dropped (`git rm --cached`) that status does not list as untracked
    either: ignored now, so not recorded. Only a store still based on the user's HEAD (its first
    snapshot) lists any; the file may well be in the work tree."""
    return {path for code, path in entries if code == "D "} - {path for code, path in entries if code == "??"}


def _prune_empty(directory: Path, root: Path) -> None:
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent
