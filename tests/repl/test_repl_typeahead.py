"""Keys typed while a slash command runs are keys: an Enter typed meanwhile sends the line.

A terminal left in cooked mode while a command runs would turn that Enter into a newline (Ctrl+J),
and the line would sit in the input instead of being sent. The command is made slow the way a
large repository or a cold disk makes it slow: its file listing takes seconds (a sitecustomize in
the child wraps cast.plans.store.list_plans with a sleep)."""

from __future__ import annotations

import json
import os
import time

import pytest
from conftest import write_script
from test_repl_pty import finish, spawn

pytest.importorskip("pexpect")

SLOW = """
import os, time
import cast.plans.store as store

_list_plans = store.list_plans


def list_plans(*args, **kwargs):
    time.sleep(float(os.environ.get("CAST_TEST_SLOW_PLANS", "0")))
    return _list_plans(*args, **kwargs)


store.list_plans = list_plans
"""


def test_a_line_typed_while_a_slash_command_runs_is_sent_whole(repo, tmp_path):
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(SLOW)
    record = tmp_path / "requests.jsonl"
    script = write_script(tmp_path / "s.jsonl", [{"text": "Answered."}])
    path = os.pathsep.join(p for p in (str(slow), os.environ.get("PYTHONPATH", "")) if p)
    term = spawn(repo, script, PYTHONPATH=path, CAST_TEST_SLOW_PLANS="3", CAST_SCRIPT_RECORD=str(record))
    term.send("/plans\r")
    time.sleep(1.0)  # /plans is still listing: the loop is busy and the terminal must stay raw
    term.send("hello there\r")
    term.expect("No plans yet")
    term.expect("plan › hello there")
    term.expect("Answered.")
    term.expect("■ done")
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(requests) == 1
    assert json.dumps(requests[0]["messages"]).count("hello there") == 1
    assert "hello there\\n" not in json.dumps(requests[0]["messages"])
    assert finish(term) == 0
