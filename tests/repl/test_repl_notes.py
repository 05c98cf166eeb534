"""In the REPL, the agent's notes (thinking blocks with text) appear dimmed between tool lines."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pexpect")

from conftest import write_script
from test_repl_pty import finish, spawn


def test_notes_appear_between_tool_lines_dimmed(repo, tmp_path):
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"thinking": "Checking app.py before planning.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
            {"thinking": "Enough seen; listing the rest.", "tool_uses": [{"name": "list_files", "input": {}}]},
            {"text": "Nothing to plan."},
        ],
    )
    child = spawn(repo, script)
    child.send("plan it\r")
    child.expect(r"Checking app\.py before planning\.")
    assert re.search(r"\x1b\[(?:[0-9]+;)*2(?:;[0-9]+)*mChecking app\.py", child.raw)  # dim (SGR 2)
    child.expect(r"read_file app\.py")
    child.expect("Enough seen; listing the rest.")
    child.expect("list_files")
    child.expect("■ done")
    assert finish(child) == 0
