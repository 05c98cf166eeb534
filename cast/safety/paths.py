"""Workspace confinement: every path a tool touches must resolve inside the workspace root.

Resolution follows symlinks, so a link inside the tree that points outside is caught as well as a
plain `..`; the error says which of the two happened, because the model fixes them differently.
"""

from __future__ import annotations

import os
from pathlib import Path


class PathError(Exception):
    pass


def confine(root: Path, path: str) -> Path:
    """Return the real path of `path` (relative to root, or absolute inside it) or raise PathError."""
    if "\x00" in path:
        raise PathError("path contains a NUL byte")
    real_root = Path(os.path.realpath(root))
    candidate = Path(path) if os.path.isabs(path) else real_root / path
    lexical = Path(os.path.normpath(candidate))
    if not _inside(lexical, real_root):
        raise PathError(f"path '{path}' is outside the workspace ({real_root}); use a path inside it")
    resolved = Path(os.path.realpath(candidate))
    if not _inside(resolved, real_root):
        raise PathError(f"path '{path}' leads through a symlink to {resolved}, outside the workspace ({real_root})")
    return resolved


def relative(root: Path, path: Path) -> str:
    real_root = os.path.realpath(root)
    rel = os.path.relpath(path, real_root)
    return "." if rel == "." else rel


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
