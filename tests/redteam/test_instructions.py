"""A cloned repository's AGENTS.md cannot carry a secret to the API nor exhaust cast: symlinks to
/proc/self/environ, an SSH key in $HOME and /dev/zero, a FIFO and a huge file, end to end through
`cast plan`, judged by what the model was sent and what the user was told."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from conftest import git, run_cast, write_script

API_KEY = "sk-ant-api03-REDTEAM-environ-secret"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- REDTEAM-ssh-secret"
OUTSIDE = "REDTEAM-outside-secret"
TURNS = [
    {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] Do it\n"}}]},
    {"text": "Planned."},
]


def _plan(cwd: Path, tmp_path: Path) -> tuple[str, str]:
    """Run `cast plan` from `cwd` with a secret in its environment; (stderr, everything sent)."""
    record = tmp_path / "requests.jsonl"
    started = time.monotonic()
    done = run_cast(
        cwd, "--model", f"script:{write_script(tmp_path / 's.jsonl', TURNS)}", "plan", "Do it", record=record, CAST_KEY=API_KEY
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert time.monotonic() - started < 60
    return done.stderr, record.read_text()


def test_symlinks_to_secrets_outside_the_workspace_are_skipped_and_said(repo, tmp_path):
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(SSH_KEY + "\n")
    (tmp_path / "outside.md").write_text(OUTSIDE)
    (repo / "AGENTS.md").symlink_to("/proc/self/environ")
    (repo / "sub" / "deep").mkdir(parents=True)
    (repo / "sub" / "AGENTS.md").symlink_to(home / ".ssh" / "id_rsa")
    (repo / "sub" / "deep" / "AGENTS.md").symlink_to(Path("..") / ".." / ".." / "outside.md")
    (repo / "sub" / "deep" / "rules.md").write_text("DEEP RULE")
    (repo / "sub" / "deep" / "real").mkdir()
    (repo / "sub" / "deep" / "real" / "AGENTS.md").symlink_to(Path("..") / "rules.md")  # inside: followed
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "instructions")
    said, sent = _plan(repo / "sub" / "deep" / "real", tmp_path)
    assert "DEEP RULE" in sent
    for secret in (API_KEY, "REDTEAM-ssh-secret", OUTSIDE, "CAST_KEY"):
        assert secret not in sent
    for skipped in ("AGENTS.md", "sub/AGENTS.md", "sub/deep/AGENTS.md"):
        assert f"cast: skipped {skipped}: it leads outside {repo} through a symlink" in said, said


def test_dev_zero_a_fifo_and_a_huge_file_neither_hang_nor_fill_memory(repo, tmp_path):
    (repo / "AGENTS.md").symlink_to("/dev/zero")
    (repo / "sub" / "deep").mkdir(parents=True)
    os.mkfifo(repo / "sub" / "AGENTS.md")
    (repo / ".gitignore").write_text(
        "/sub/deep/AGENTS.md\n"
    )  # spares the file from the run's git baseline, which digests dirty files
    with open(repo / "sub" / "deep" / "AGENTS.md", "wb") as out:
        out.write(b"HUGE RULE\n")
        out.truncate(16 << 30)  # 16 GiB, sparse: read whole, it would take the machine's memory
    said, sent = _plan(repo / "sub" / "deep", tmp_path)
    assert "cast: skipped AGENTS.md: it leads outside" in said
    assert "cast: skipped sub/AGENTS.md: not a regular file" in said
    [first] = [json.loads(line) for line in sent.splitlines()][:1]
    system = json.dumps(first["system"])
    assert "HUGE RULE" in system and "[truncated: AGENTS.md content is capped" in system
    assert len(sent) < 2_000_000
