"""Which files a command changed, as evidence for the observation and the final report.

In a git repository: the dirty set (porcelain status plus each dirty file's size and mtime)
before and after. Cheap, and it catches edits to already-dirty files that status alone misses.
Elsewhere: size and mtime of every file, for trees small enough to walk quickly.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

State = dict[str, tuple[str, int, int]]


WALK_LIMIT = 20_000
SKIP_DIRS = {".git", ".cast", "node_modules", "__pycache__", ".venv", "venv"}


def workspace_state(root: Path) -> State | None:
    """What `changed_between` compares: git's dirty set, or a walk of a small plain tree."""
    state = dirty_state(root)
    return state if state is not None else walk_state(root)


def walk_state(root: Path) -> State | None:
    state: State = {}
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIP_DIRS]
        for name in files:
            path = os.path.join(directory, name)
            try:
                stat = os.lstat(path)
            except OSError:
                continue
            state[os.path.relpath(path, root)] = ("", stat.st_size, stat.st_mtime_ns)
            if len(state) > WALK_LIMIT:
                return None  # too big to watch this way; say nothing rather than something wrong
    return state


def dirty_state(root: Path) -> State | None:
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            cwd=root, capture_output=True, timeout=30, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    state: State = {}
    entries = out.stdout.decode("utf-8", "replace").split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if code[0] in "RC":
            index += 1  # the rename source follows
        try:
            stat = (root / path).lstat()
            state[path] = (code, stat.st_size, stat.st_mtime_ns)
        except OSError:
            state[path] = (code, -1, -1)
    return state


def changed_between(before: State | None, after: State | None) -> tuple[str, ...]:
    if before is None or after is None:
        return ()
    paths = set(before) | set(after)
    return tuple(sorted(p for p in paths if before.get(p) != after.get(p)))
