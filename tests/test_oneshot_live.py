"""The one-shot front-end shows a running command's newest line on a terminal, in one row redrawn
in place; a pipe gets no live rows at all (a log is not a screen), and --json prints the lines as
`command_output` events, in order, before the call's result."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time

import pytest
from conftest import cast_env, write_script
from rich.console import Console

from cast.agent import events as ev
from cast.tools.results import Ran
from cast.ui.oneshot import Printer

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COMMAND = "printf 'collecting %s\\n' tests; sleep 2; echo \"all $((1+2)) passed\"; sleep 2"


def terminal(width: int = 40) -> tuple[Printer, io.StringIO]:
    out = io.StringIO()
    return Printer(Console(file=out, force_terminal=True, width=width, soft_wrap=True, markup=False, highlight=False)), out


def test_on_a_terminal_the_newest_line_is_one_row_redrawn_then_erased():
    printer, out = terminal(40)
    assert printer.live
    printer(ev.ToolCall("c1", "bash", {"command": "make"}))
    printer(ev.CommandOutput("c0", "not this command's"))
    assert out.getvalue() == ""
    printer(ev.CommandOutput("c1", "\x1b[31mbuilding [bold]" + "x" * 100))
    row = ANSI.sub("", out.getvalue())
    assert row.startswith("⋯ bash make · 0s │ building [bold]xx") and row.endswith("…") and len(row) == 39
    printer(ev.CommandOutput("c1", "linking"))
    printer(ev.ToolResult("c1", "bash", True, "exit_code=0", "exit_code=0\n...", result=Ran("make", 0)))
    shown = out.getvalue()
    assert shown.count("\r\x1b[2K") == 2  # erased before each redraw and before the call's line
    assert ANSI.sub("", shown.rsplit("\r", 1)[-1]).startswith("✓ bash make · exit_code=0")
    printer(ev.CommandOutput("c1", "late"))  # the call has ended: nothing is drawn
    assert out.getvalue() == shown


def test_a_pipe_gets_no_live_rows():
    assert not Printer(Console(file=io.StringIO())).live


def oneshot(repo, tmp_path, *args: str) -> str:
    plan = repo / ".cast" / "plans" / "2026-01-01-live" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Plan: live\n\n- [ ] Run the tests\n")
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": COMMAND}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "3 passed"}}]},
            {"text": "Done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    return f"script:{script}"


def test_one_shot_on_a_terminal_shows_the_running_line(repo, tmp_path):
    pexpect = pytest.importorskip("pexpect")
    model = oneshot(repo, tmp_path)
    shell = f"exec {sys.executable} -m cast --model {model} execute --yes < /dev/null"  # stdout a terminal, stdin not
    child = pexpect.spawn("bash", ["-c", shell], cwd=str(repo), env=cast_env(TERM="xterm-256color"), encoding="utf-8")
    child.expect(pexpect.EOF, timeout=60)
    shown = ANSI.sub("", child.before)
    running = shown.index("│ collecting tests")
    assert running < shown.index("│ all 3 passed") < shown.index("✓ bash printf")


def test_one_shot_in_a_pipe_has_no_live_rows(repo, tmp_path):
    model = oneshot(repo, tmp_path)
    args = [sys.executable, "-m", "cast", "--model", model, "execute", "--yes"]
    started = time.monotonic()
    done = subprocess.run(args, cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert time.monotonic() - started > 4  # the command ran (and printed) while nothing was drawn
    assert "\r" not in done.stdout and "⋯" not in done.stdout
    assert "collecting tests" not in done.stdout


def test_json_prints_a_running_commands_lines_as_events_before_its_result(repo, tmp_path):
    """How many lines are sent depends on how the output arrives (at most ten a second); what is
    sure: only lines the command printed, in its order, under its call, the last one among them,
    all before the result."""
    model = oneshot(repo, tmp_path)
    args = [sys.executable, "-m", "cast", "--json", "--model", model, "execute", "--yes"]
    done = subprocess.run(args, cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, env=cast_env())
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert "\r" not in done.stdout and "⋯" not in done.stdout
    call = next(e for e in events if e["type"] == "tool_call" and e["name"] == "bash")
    result = next(i for i, e in enumerate(events) if e["type"] == "tool_result" and e["id"] == call["id"])
    lines = [(i, e) for i, e in enumerate(events) if e["type"] == "command_output"]
    assert lines and all(i < result and e["call_id"] == call["id"] for i, e in lines)
    printed = ["collecting tests", "all 3 passed"]
    said = [e["line"] for _, e in lines]
    assert said[-1] == printed[-1] and said == sorted(set(said), key=printed.index)  # in order, each once
    assert "all 3 passed" in events[result]["text"]  # the result holds the whole output


def test_ctrl_c_at_an_approval_question_interrupts_the_one_shot_run(repo, tmp_path):
    """`cast execute > log` on a terminal asks before a command; Ctrl+C there stops the run as
    interrupted (as at any other moment), it is not a "no" after which the model goes on."""
    import pexpect

    plan = repo / ".cast" / "plans" / "2026-01-01-ask" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("---\ntask: ask\nsession: 2026-01-01-ask\n---\n# Plan\n\n- [ ] Make b\n")
    later = [{"text": "Declined: another way.", "tool_uses": [{"name": "bash", "input": {"command": "touch c"}}]}]
    later += [{"text": "Giving up."}, {"text": '{"complete": true, "missing": [], "claims": []}'}]
    script = write_script(
        tmp_path / "execute.jsonl",
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "touch b"}}]},
            *later,
        ],
    )
    log = tmp_path / "log.txt"
    shell = f"{sys.executable} -m cast --model script:{script} execute > {log}; echo rc=$?"
    child = pexpect.spawn("/bin/bash", ["-c", shell], cwd=str(repo), env=cast_env(), encoding="utf-8", timeout=40)
    child.expect(r"run it\? ")
    child.sendintr()
    child.expect(pexpect.EOF)
    assert "run it?" not in child.before and "rc=1" in child.before, child.before
    out = log.read_text()
    assert "Result: interrupted (interrupted by user)" in out and "touch c" not in out and "Giving up" not in out, out
