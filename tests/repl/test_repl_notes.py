"""In the REPL, the agent's notes (thinking blocks with text) appear dimmed between tool lines."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("pexpect")

from conftest import write_script
from test_repl_pty import finish, spawn


def test_notes_appear_between_tool_lines_dimmed(repo, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"thinking": "Checking app.py before planning.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
        {"thinking": "Enough seen; writing the plan.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# P\n\n- [ ] One\n"}}]},
        {"text": "Planned."},
    ])
    child = spawn(repo, script)
    child.send("plan it\r")
    child.expect(r"Checking app\.py before planning\.")
    assert re.search(r"\x1b\[(?:[0-9]+;)*2(?:;[0-9]+)*mChecking app\.py", child.raw)  # dim (SGR 2)
    child.expect(r"read_file app\.py")
    child.expect("Enough seen; writing the plan.")
    child.expect("write_plan plan")
    child.expect("■ done")
    child.expect(r"\[e\]xecute · ")
    child.send("n")
    child.expect("/execute runs it")
    assert finish(child) == 0
