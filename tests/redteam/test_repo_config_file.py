"""A clone's `.cast/config.toml` is data, read as data: a symlink in its place (to a settings file
or a secret elsewhere, to a binary), bytes that are not UTF-8, or a file of megabytes is refused
in one line, by `cast plan` and by `cast doctor` (which goes on to its other checks), never with a
traceback, never after reading a file outside the workspace, and never after reading without end."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from conftest import git, invoke_cast, write_script

PLANTS = ["symlink to settings", "symlink to a secret", "symlink to a binary", "not utf-8", "megabytes", "broken toml"]


def _plant(repo: Path, tmp_path: Path, kind: str) -> None:
    config = repo / ".cast" / "config.toml"
    config.parent.mkdir()
    if kind == "symlink to settings":
        (tmp_path / "elsewhere.toml").write_text("max_steps = 1\n")  # valid: read through the link, it would count
        config.symlink_to(tmp_path / "elsewhere.toml")
    elif kind == "symlink to a secret":
        aws = Path(os.environ["HOME"]) / ".aws"
        aws.mkdir()
        (aws / "credentials").write_text('[default]\naws_secret_access_key = "PLANTED-AWS-SECRET"\n')
        config.symlink_to(aws / "credentials")
    elif kind == "symlink to a binary":
        config.symlink_to(sys.executable)
    elif kind == "not utf-8":
        config.write_bytes(b"max_steps = 5\n# \xff\xfe\n")
    elif kind == "megabytes":
        config.write_text("max_steps = 5\n" + "#" * (8 << 20) + "\n")
    else:
        config.write_text("[x\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")


@pytest.mark.parametrize("kind", PLANTS)
def test_a_hostile_config_file_is_refused_in_one_line(repo, tmp_path, kind):
    _plant(repo, tmp_path, kind)
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    started = time.monotonic()
    planned = invoke_cast(repo, "--model", f"script:{script}", "plan", "x")
    assert planned.returncode == 2 and planned.stderr.startswith("cast: ") and len(planned.stderr.splitlines()) == 1, planned
    assert str(repo / ".cast" / "config.toml") in planned.stderr
    if kind.startswith("symlink"):
        assert "symlink" in planned.stderr
    doctor = invoke_cast(repo, "doctor")
    assert "trust: cannot read the workspace's config" in doctor.stdout, doctor.stdout
    assert "sandbox" in doctor.stdout  # the other checks still ran
    assert "PLANTED-AWS-SECRET" not in planned.stderr + doctor.stdout + doctor.stderr
    assert time.monotonic() - started < 30
