"""The tree as a run found it, recorded without writing to `.git`, and what the run changed.

Plan mode promises `.git` is left alone, so no `git stash create` and no porcelain `git diff`
(both write: objects, or an index refresh even with GIT_OPTIONAL_LOCKS=0); only plumbing reads.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from cast import git
from cast.text import path_label, plural

SNAPSHOT_BYTES = 256 * 1024  # dirty files up to this size are kept so the run's own edits can be counted
SNAPSHOT_TOTAL = 32 * 1024 * 1024
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
Stat = tuple[int, int] | str  # (insertions, deletions), or a note when lines were not counted


def _dirty(top: Path) -> set[str] | None:
    """Dirty paths, a rename's source included. cast.git's status does not refresh the index and
    runs no fsmonitor, hook or filter: building a report must leave .git byte for byte as it was."""
    entries = git.status(top)
    if entries is None:
        return None
    return {e.path for e in entries} | {e.source for e in entries if e.source is not None}


def _content(path: Path, keep: bool = True) -> tuple[str | None, bytes | None]:
    """(digest, the bytes if small) of what is at `path` now, read without writing anything;
    (None, None) when nothing is there."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return "link:" + os.readlink(path), None
        if not stat.S_ISREG(info.st_mode):
            return "not a file", None
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            if keep and info.st_size <= SNAPSHOT_BYTES:
                data = f.read()
                return hashlib.sha256(data).hexdigest(), data
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest(), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return f"unreadable: {exc.errno}", None


def line_counts(old: bytes | None, new: bytes | None) -> Stat:
    if old is None or new is None:
        return "changed (lines not counted)"
    if b"\0" in old[:8192] or b"\0" in new[:8192]:
        return f"Bin {len(old)} -> {len(new)} bytes"
    a, b = old.splitlines(), new.splitlines()
    added = deleted = 0
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            deleted, added = deleted + i2 - i1, added + j2 - j1
    return added, deleted


def _numstat(out: bytes | None) -> dict[str, Stat]:
    counts: dict[str, Stat] = {}
    for record in (out or b"").split(b"\0"):
        parts = record.split(b"\t", 2)
        if len(parts) == 3:
            counts[os.fsdecode(parts[2])] = "Bin" if parts[0] == b"-" else (int(parts[0]), int(parts[1]))
    return counts


def format_stat(rows: list[tuple[str, Stat]], notes: dict[str, str] | None = None) -> str:
    """`git diff --stat`'s layout, for counts that did not all come from git; each path quoted as
    git quotes it, followed by its note if it has one."""
    if not rows:
        return ""
    rows = [(path_label(path) + (f"  ({notes[path]})" if notes and path in notes else ""), counts) for path, counts in rows]
    width, out, plus, minus = max(len(path) for path, _ in rows), [], 0, 0
    for path, counts in rows:
        if isinstance(counts, str):
            out.append(f" {path:<{width}} | {counts}")
            continue
        added, deleted = counts
        plus, minus = plus + added, minus + deleted
        scale = min(1.0, 40 / max(added + deleted, 1))
        bar = "+" * (max(1, round(added * scale)) if added else 0) + "-" * (max(1, round(deleted * scale)) if deleted else 0)
        out.append(f" {path:<{width}} | {added + deleted} {bar}".rstrip())
    summary = f" {plural(len(rows), 'file')} changed"
    if plus or not minus:  # as git does: a zero count is left out unless both are zero
        summary += f", {plural(plus, 'insertion')}(+)"
    if minus or not plus:
        summary += f", {plural(minus, 'deletion')}(-)"
    out.append(summary)
    return "\n".join(out)


@dataclass
class GitBaseline:
    """The tree as the run found it, recorded without writing to .git (no `git stash create`, no
    index refresh: plan mode promises .git is left alone too): HEAD, and each file dirty then
    with its content digest, and its bytes if small, so the run's own edits to it can be told
    apart from the user's uncommitted work and counted."""

    top: Path
    head: str | None
    files: dict[str, tuple[str | None, bytes | None]]

    @classmethod
    def take(cls, root: Path) -> GitBaseline | None:
        top_path = git.toplevel(root)
        dirty = _dirty(top_path) if top_path is not None else None
        if top_path is None or dirty is None:
            return None
        files, kept = {}, 0
        for path in sorted(dirty):
            digest, data = _content(top_path / path, keep=kept < SNAPSHOT_TOTAL)
            kept += len(data or b"")
            files[path] = (digest, data)
        return cls(top_path, git.head(top_path), files)

    def changes(self) -> list[tuple[str, Stat]]:
        """Each path (relative to the repository's top) this run changed, with its line counts:
        newly dirty files and commits against the starting HEAD, then files dirty at the start
        whose content is no longer what it was."""
        now, head = _dirty(self.top) or set(), git.head(self.top)
        base = self.head or EMPTY_TREE
        fresh = now - set(self.files)
        if head != self.head:
            committed = git.run(self.top, "diff-tree", "-r", "--name-only", "-z", "--no-renames", base, head or EMPTY_TREE, "--")
            fresh |= {os.fsdecode(p) for p in (committed or b"").split(b"\0") if p} - set(self.files)
        # plumbing: porcelain `git diff` refreshes the index even with GIT_OPTIONAL_LOCKS=0
        counted = _numstat(git.run(self.top, "diff-index", "--numstat", "-z", "--no-renames", base, "--")) if fresh else {}
        rows: list[tuple[str, Stat]] = []
        for path in sorted(fresh):
            if path in counted:
                rows.append((path, counted[path]))
            elif path in now:  # untracked: all of it is new
                digest, data = _content(self.top / path)
                rows.append((path, line_counts(b"", data) if digest else "deleted"))
        for path, (digest, data) in sorted(self.files.items()):
            now_digest, now_data = _content(self.top / path)
            if now_digest != digest:
                old = b"" if digest is None else data
                rows.append((path, line_counts(old, b"" if now_digest is None else now_data)))
        return sorted(rows)
