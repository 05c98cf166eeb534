"""Ctrl+C while two explores run at once: both stop, each returns what it found, and the parent's
transcript keeps those answers (a real `cast plan` process, SIGINT as a terminal sends it)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from conftest import cast_env, write_script
from test_explore_cli import configure

from cast.sessions import sessions_dir

TASKS = ("find the entry point", "find the tests")
CHILD = [
    {"text": "So far: app.py holds add.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
    {"text": "still reading, slowly", "delay": 30},
]


def _written(record):
    """The requests recorded so far: whole lines only, since a writer may be mid-line."""
    text = record.read_text() if record.exists() else ""
    return text.split("\n")[:-1]


def test_ctrl_c_stops_concurrent_explores_and_keeps_what_they_returned(repo, tmp_path):
    configure(tmp_path, CHILD)
    parent = write_script(
        tmp_path / "parent.jsonl",
        [{"tool_uses": [{"name": "explore", "input": {"task": task}} for task in TASKS]}, {"text": "never reached"}],
    )
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cast", "--model", f"script:{parent}", "plan", "look around"],
        cwd=repo,
        env=cast_env(CAST_SCRIPT_RECORD=str(record)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(_written(record)) < 5:
        time.sleep(0.05)  # the parent's request, then each child's two: both children are in their slow reply
    sent = [json.loads(line) for line in _written(record)]
    assert len(sent) == 5, "both explores were running at once"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    journal = next(sessions_dir(repo).glob("*/transcript.jsonl")).read_text()
    results = [
        block["content"]
        for line in journal.splitlines()
        for block in json.loads(line).get("content", [])
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert len(results) == 2
    for text in results:
        assert "interrupted after 2 steps" in text and "So far: app.py holds add." in text and "files it read (1): app.py" in text
    assert "never reached" not in journal
