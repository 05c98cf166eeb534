"""A synthetic monorepo for the scale benchmarks: N text files in four projects of unequal size.

Deterministic (same N, same tree), shaped like the real ones that hurt: a few top-level projects,
directories a few levels deep, mostly small source files, some long lines, a .gitignore. Built once
per N under the system temp dir and reused, since writing 200k files takes a while.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

PROJECTS = (("ansible", 0.40), ("googleapis", 0.30), ("sympy", 0.25), ("tldr", 0.05))
PER_DIR = 40


def build(files: int, git: bool = False) -> Path:
    root = Path(tempfile.gettempdir()) / f"cast-monotree-{files}"
    marker = root / ".built"
    if not marker.exists():
        _write(root, files)
        marker.write_text("ok\n")
    if git and not (root / ".git").exists():
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@x",
            "GIT_COMMITTER_NAME": "b",
            "GIT_COMMITTER_EMAIL": "b@x",
        }
        for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
            subprocess.run(["git", *argv], cwd=root, env=env, check=True, capture_output=True)
    return root


def _write(root: Path, files: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text("build/\n*.pyc\n")
    (root / "README.md").write_text("# monorepo\n")
    n = 0
    for project, share in PROJECTS:
        count = int(files * share)
        for i in range(count):
            d = root / project / f"pkg{i // (PER_DIR * PER_DIR)}" / f"mod{(i // PER_DIR) % PER_DIR}"
            if i % PER_DIR == 0:
                d.mkdir(parents=True, exist_ok=True)
            body = f"# {project} file {i}\ndef f{i}(x):\n    return x + {i}\n\nvalue = '{'e' * (i % 50)}'\n"
            if i % 997 == 0:
                body += "long = '" + "x" * 5000 + "'\n"
            (d / f"file{i}.py").write_text(body)
            n += 1
    while n < files:  # rounding leftovers
        (root / f"extra{n}.txt").write_text("extra\n")
        n += 1
