"""Which files a command changed, as evidence for the observation and the final report.

In a git repository: the dirty set (porcelain status plus each dirty file's size and mtime)
before and after. Cheap, and it catches edits to already-dirty files that status alone misses.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

State = dict[str, tuple[str, int, int]]


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
