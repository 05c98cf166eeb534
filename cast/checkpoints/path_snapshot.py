"""A snapshot of the few paths cast just wrote, built from the store's HEAD without its index.

Why: the store's index lists every file of the workspace (5 MB at 50,000 files), and each git
command that changes it rewrites it whole, with a SHA-1 over the lot. Recording one edited file
through the index took two such rewrites (`update-index`, then `write-tree` for its cache), which
on a big tree cost more than a `git status` of the path. A snapshot around one edit should cost
what the edit touched.

How: the new tree is the HEAD tree with each named path's entry replaced. The file is read from
the work tree (never through a symlink: each directory is opened without following one). The
trees along its path come from one `git cat-file --batch` (or from the last such snapshot), and
the ones that changed are written back with the blob and a commit (objects.py). A path HEAD does
not hold is recorded only if git would not ignore it (one `git check-ignore`). A file over the
size cap is left out and listed, as a full look does.

The index then lags HEAD for those paths. Each changed entry is appended to `index-lag` before HEAD
moves. Before the index is used again, `catch_up` feeds the file to `update-index --index-info`,
so the index holds what HEAD holds, and git's status compares the work tree with it as before.

Anything unusual returns None, and the caller looks through the index, which is always right:
- a name through a symlink, a file or a nested repository where a directory was;
- a directory or a special file where a file was, or a subtree where HEAD has a file;
- a name git refuses or reads specially.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from cast.checkpoints import objects
from cast.checkpoints.objects import TREE_MODE, Entries
from cast.checkpoints.store import Shadow, ShadowError
from cast.fsutil import O_CLOEXEC, NotRegularFile, read_regular

LAG = "index-lag"  # in the store's git directory, so a new store never inherits one
ZERO = b"0" * 40
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | O_CLOEXEC


class NeedsIndex(Exception):
    """This path needs git's own look through the index (see the module's docstring)."""


@dataclass(frozen=True)
class OnDisk:
    """What the work tree holds at a path, as git would record it."""

    mode: bytes | None = None  # None: nothing to record there
    data: bytes = b""
    over_cap: int = 0  # the size of a regular file over the cap: left out, and listed


def snapshot_paths(shadow: Shadow, paths: list[str], untracked: set[str] | None = None) -> tuple[str, dict[str, int]] | None:
    """(tree, skipped) after the named paths changed, or None when one needs the index's look.
    `untracked`: new paths git's status listed, so known not to be ignored."""
    wanted = [p for p in dict.fromkeys(paths) if not p.startswith(".cast/")]  # never recorded
    if any(_odd(p) for p in wanted) or _nested(wanted):
        return None
    head = shadow.head_tree()
    if not wanted:
        return head, {}
    try:
        found = {path: _on_disk(shadow.root, path, shadow.max_bytes) for path in wanted}
        trees = _trees(shadow, head, wanted)
        recordable = [p for p in wanted if found[p].mode is not None or found[p].over_cap]
        ignored = _ignored(shadow, [p for p in recordable if _entry(trees, p) is None and p not in (untracked or ())])
        lag, skipped = _apply(shadow, trees, found, ignored)
        tree = _write_trees(shadow, trees, head)
    except (NeedsIndex, OSError):  # an unreadable name too: git's look says what it makes of it
        return None
    if tree != head:
        with open(shadow.git_dir / LAG, "ab") as log:  # before HEAD moves: the index's catch-up must know
            log.write(lag)
        shadow._commit(tree)
    shadow.trees = (tree, trees)
    return tree, skipped


def catch_up(shadow: Shadow) -> None:
    """Give the store's index the entries path snapshots changed, so it holds what HEAD holds
    (their stat data unknown: git's status reads those files again)."""
    lag = shadow.git_dir / LAG
    try:
        data = lag.read_bytes()
    except FileNotFoundError:
        return
    if data:
        try:
            shadow.git("update-index", "--add", "--replace", "-z", "--index-info", data=data, borrow=False)
        except ShadowError:  # an entry the index cannot take as it stands: start it from HEAD (slower, right)
            shadow.git("read-tree", shadow.head_tree())
    lag.unlink()


def _odd(path: str) -> bool:
    """A name this module does not decide: anything git refuses or treats specially."""
    if not path or "\n" in path or "\\" in path:
        return True
    return any(_odd_part(part) for part in path.split("/"))


def _odd_part(part: str) -> bool:
    """git's own names (`.git` in any case, with NTFS's trailing dots and spaces, streams and short
    names, as core.protectNTFS refuses them; `.gitmodules`, which may not be a symlink)."""
    low = part.lower()
    return part in ("", ".", "..") or low.rstrip(" .") == ".git" or low.startswith((".git:", "git~")) or low == ".gitmodules"


def _nested(paths: list[str]) -> bool:
    """One named path inside another: a file turned directory, or back."""
    names = set(paths)
    return any(path[:i] in names for path in paths for i in range(len(path)) if path[i] == "/")


def _on_disk(root: Path, path: str, max_bytes: int) -> OnDisk:
    """What git would record at `path`, each directory on the way opened without following a
    symlink, so that no name can make this read a file outside the work tree."""
    *folders, name = path.split("/")
    fd = os.open(root, _DIR_FLAGS)
    try:
        for folder in folders:
            try:
                inner = os.open(folder, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                return OnDisk()
            except OSError as exc:  # a symlink or a file where a directory was
                raise NeedsIndex(path) from exc
            os.close(fd)
            fd = inner
            if _exists(".git", fd):  # a nested repository: status decides what it means
                raise NeedsIndex(path)
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return OnDisk()
        if stat.S_ISLNK(info.st_mode):
            return OnDisk(b"120000", os.fsencode(os.readlink(name, dir_fd=fd)))
        if not stat.S_ISREG(info.st_mode):
            raise NeedsIndex(path)
        try:
            data = read_regular(name, max_bytes, dir_fd=fd)
        except (NotRegularFile, FileNotFoundError) as exc:  # changed under us: let git look
            raise NeedsIndex(path) from exc
        if len(data) > max_bytes:
            return OnDisk(over_cap=max(info.st_size, len(data)))
        return OnDisk(b"100755" if info.st_mode & stat.S_IXUSR else b"100644", data)
    finally:
        os.close(fd)


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        return exc.errno != errno.ENOENT
    return True


def _folders(paths: list[str]) -> list[str]:
    """Every directory along the paths, the top ("") included, deepest last."""
    found = {""}
    for path in paths:
        parts = path.split("/")[:-1]
        found.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return sorted(found, key=lambda d: (d.count("/") + bool(d), d))


def _trees(shadow: Shadow, head: str, paths: list[str]) -> dict[str, Entries | None]:
    """HEAD's tree at each directory along the paths (None: HEAD has none there)."""
    known_root, known = shadow.trees
    folders = _folders(paths)
    trees = {d: known[d] for d in folders if known_root == head and d in known}
    asked = [d for d in folders if d not in trees]
    if asked and head == objects.object_id("tree", b"").hex():
        trees.update(dict.fromkeys(asked))
    elif asked:
        names = [head.encode() + (b":" + os.fsencode(d) if d else b"") for d in asked]
        out = shadow.git("cat-file", "--batch", data=b"".join(n + b"\n" for n in names))
        try:
            answers = objects.parse_batch(out, names)
        except ValueError as exc:
            raise NeedsIndex(str(exc)) from None
        for folder, got in zip(asked, answers, strict=True):
            if got is not None and got[0] != "tree":
                raise NeedsIndex(folder)  # HEAD has a file where the path needs a directory
            trees[folder] = objects.parse_tree(got[1]) if got is not None else None
    return {d: dict(trees[d] or {}) if trees[d] is not None else None for d in folders}  # copies, in _folders' order


def _entry(trees: dict[str, Entries | None], path: str) -> tuple[bytes, bytes] | None:
    folder, _, name = path.rpartition("/")
    return (trees[folder] or {}).get(os.fsencode(name))


def _ignored(shadow: Shadow, paths: list[str]) -> set[str]:
    """Which new paths git would not record (the work tree's .gitignore files, the store's excludes)."""
    if not paths:
        return set()
    out = shadow.git(
        "check-ignore", "--no-index", "-z", "--stdin", data=b"".join(os.fsencode(p) + b"\0" for p in paths), exits=(0, 1)
    )
    return {os.fsdecode(p) for p in out.split(b"\0") if p}


def _apply(
    shadow: Shadow, trees: dict[str, Entries | None], found: dict[str, OnDisk], ignored: set[str]
) -> tuple[bytes, dict[str, int]]:
    """Each path's entry set in its directory's tree; returns the index's catch-up lines and the
    paths left out for their size."""
    lag: list[bytes] = []
    skipped: dict[str, int] = {}
    for path, disk in found.items():
        folder, _, name = path.rpartition("/")
        key, old = os.fsencode(name), _entry(trees, path)
        if old is not None and old[0] not in (b"100644", b"100755", b"120000"):
            raise NeedsIndex(path)  # a subtree or a submodule where cast wrote a file
        if old is None and path in ignored:
            continue
        if disk.over_cap:
            skipped[path] = disk.over_cap
        entry = None if disk.mode is None else (disk.mode, objects.object_id("blob", disk.data))
        if entry == old:
            continue
        if entry is None:
            (trees[folder] or {}).pop(key, None)
            lag.append(b"0 %s\t%s\0" % (ZERO, os.fsencode(path)))
            continue
        objects.write(shadow.git_dir / "objects", "blob", disk.data)
        trees[folder] = {**(trees[folder] or {}), key: entry}
        lag.append(b"%s %s\t%s\0" % (entry[0], entry[1].hex().encode(), os.fsencode(path)))
    return b"".join(lag), skipped


def _write_trees(shadow: Shadow, trees: dict[str, Entries | None], head: str) -> str:
    """Write each changed directory's tree into its parent's, deepest first; the top tree's id.
    A directory left empty has no tree, as in git."""
    for folder in reversed(list(trees)):  # _folders' order: the top first, the deepest last
        entries = trees[folder] or {}
        body = objects.tree_body(entries)
        oid = objects.object_id("tree", body)
        if folder == "":
            if oid.hex() != head:
                objects.write(shadow.git_dir / "objects", "tree", body)
            return oid.hex()
        parent, _, name = folder.rpartition("/")
        siblings, key = trees[parent] or {}, os.fsencode(name)
        if not entries:
            siblings.pop(key, None)
            trees[folder] = None
        elif siblings.get(key) != (TREE_MODE, oid):
            objects.write(shadow.git_dir / "objects", "tree", body)
            siblings[key] = (TREE_MODE, oid)
        trees[parent] = siblings
    raise AssertionError("the top directory is always among the folders")
