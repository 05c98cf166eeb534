"""The quality gates run with the tests, so the README's one test command is the whole check:
ruff's lint rules and formatting over the repository, and mypy over cast/ (settings in
pyproject.toml). A failure prints what the tool said."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# mypy's incremental cache: one per checkout in the temp dir, never in the repository, kept between runs
# (the tests' $HOME is a fresh temp dir each time, so pyproject.toml's ~/.cache would always start cold).
MYPY_CACHE = Path(tempfile.gettempdir()) / f"cast-mypy-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MYPY_CACHE_DIR": str(MYPY_CACHE)}
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.parametrize("args", [("ruff", "check", "."), ("ruff", "format", "--check", ".")], ids=["lint", "format"])
def test_ruff(args):
    result = run(*args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy():
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
    assert MYPY_CACHE.is_dir()


MAX_MODULE_LINES = 375


def test_no_module_holds_two_ideas_by_size():
    """A module past MAX_MODULE_LINES has grown a second idea: split it along them (AGENTS.md)."""
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / "cast").rglob("*.py"))
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}, f"over {MAX_MODULE_LINES} lines: {long}"
