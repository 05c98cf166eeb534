"""Which files a command changed, as evidence for the observation and the final report.

In a git repository: the dirty set (porcelain status plus each dirty file's size and mtime)
before and after. Cheap, and it catches edits to already-dirty files that status alone misses.
Elsewhere: size and mtime of every file that ignore rules keep, for trees small enough to walk
quickly (caches such as `.pytest_cache/` are not the command's work).
"""

from __future__ import annotations

from pathlib import Path

from cast import git
from cast.tools.snapshot import walk

State = dict[str, tuple[str, int, int]]


WALK_LIMIT = 20_000


def workspace_state(root: Path) -> State | None:
    """What `changed_between` compares: git's dirty set, or a walk of a small plain tree."""
    state = dirty_state(root)
    return state if state is not None else walk_state(root)


def walk_state(root: Path) -> State | None:
    """Size and mtime of every file ignore rules keep (see snapshot.py), for trees small enough."""

    entries, capped = walk(root, WALK_LIMIT)
    if capped:
        return None  # too big to watch this way; say nothing rather than something wrong
    return {rel: ("", info.st_size, info.st_mtime_ns) for rel, info in entries}


def dirty_state(root: Path) -> State | None:
    entries = git.status(root)
    if entries is None:
        return None
    state: State = {}
    for entry in entries:
        shown = entry.path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # observations are text
        try:
            stat = (root / entry.path).lstat()
            state[shown] = (entry.code, stat.st_size, stat.st_mtime_ns)
        except OSError:
            state[shown] = (entry.code, -1, -1)
    return state


def changed_between(before: State | None, after: State | None) -> tuple[str, ...]:
    if before is None or after is None:
        return ()
    paths = set(before) | set(after)
    return tuple(sorted(p for p in paths if before.get(p) != after.get(p)))
