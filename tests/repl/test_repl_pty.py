"""The real REPL in a pseudo-terminal, with a scripted model on a temporary git repository."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from conftest import cast_env, write_script  # noqa: E402

TIMEOUT = 20  # generous for a loaded machine; every stream or command interrupted below lasts longer
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")
CLI = Path(__file__).resolve().parents[2] / "cast" / "cli.py"


def cli_runs_repl() -> bool:
    return CLI.is_file() and "run_repl" in CLI.read_text()


def spawn(root: Path, script: Path, mode: str = "plan", **env: str):
    if cli_runs_repl():
        args = ["-m", "cast", "--model", f"script:{script}"] + (["execute"] if mode == "execute" else [])
    else:
        args = [
            "-c",
            "from cast.repl.app import run_repl; from cast.runs import Options; "
            f"raise SystemExit(run_repl(Options(model={f'script:{script}'!r}), mode={mode!r}))",
        ]
    environment = cast_env(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", EDITOR="true", **env)
    child = pexpect.spawn(
        sys.executable, args, cwd=str(root), env=environment, encoding="utf-8", dimensions=(30, 100), timeout=TIMEOUT
    )
    term = Term(child)
    term.expect(r"(plan|execute) ›")
    return term


class Term:
    """Reads the child's output and matches patterns against it with escape codes removed (a
    bold word must not break a match). Cursor-forward moves count as spaces."""

    def __init__(self, child):
        self.child = child
        self.raw = ""
        self.pos = 0

    @property
    def text(self) -> str:
        spaced = re.sub(r"\x1b\[(\d*)C", lambda m: " " * int(m.group(1) or 1), self.raw)
        return ANSI.sub("", spaced).replace("\r", "")

    def expect(self, pattern: str, timeout: float = TIMEOUT) -> re.Match:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.text, self.pos)
            if found:
                self.pos = found.end()
                return found
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no {pattern!r} within {timeout}s; output since the last match:\n{self.text[self.pos :][-3000:]}"
                )
            try:
                self.raw += self.child.read_nonblocking(65536, timeout=0.05)
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                raise AssertionError(f"cast exited before {pattern!r}; output:\n{self.text[-3000:]}") from None

    def expect_exact(self, text: str, timeout: float = TIMEOUT) -> re.Match:
        return self.expect(re.escape(text), timeout)

    def send(self, data: str) -> None:
        self.child.send(data)


def finish(term: Term) -> int:
    term.send("/exit\r")
    term.child.expect(pexpect.EOF)
    term.child.close()
    return term.child.exitstatus


def test_modes_help_and_exit(repo, tmp_path):
    child = spawn(repo, write_script(tmp_path / "s.jsonl", []))
    child.send("\x1b[Z")  # Shift+Tab
    child.expect("execute ›")
    child.send("\x1b[Z")
    child.expect("plan ›")
    child.send("/help\r")
    for name in ("/plan", "/execute", "/tasks", "/plans", "/cost", "/compact", "/resume", "/clear", "/model", "/help", "/exit"):
        child.expect_exact(name)
    assert finish(child) == 0
    from cast.state import private_dir

    assert (private_dir(repo, "history") / "prompts").read_text().count("/help") == 1


def test_task_streams_text_runs_tools_and_offers_the_plan(repo, tmp_path):
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {
                "text": "I will **look** at the code first.\n\nThen plan.",
                "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}],
            },
            {
                "text": "Writing it down.",
                "tool_uses": [
                    {
                        "name": "write_plan",
                        "input": {"name": "plan", "content": "# Plan: sub\n\n- [ ] Add sub to app.py\n- [ ] Test it\n"},
                    }
                ],
            },
            {"text": "The plan has two steps."},
        ],
    )
    child = spawn(repo, script)
    child.send("add a sub function\r")
    child.expect("look at the code first")
    child.expect(r"read_file app\.py · lines 1-2 of 2")
    child.expect("write_plan plan · 2 items")
    child.expect("■ done")
    child.expect(r"Plan written: \.cast/plans/\S+/plan\.md \(2 items\)")
    child.expect(r"\[e\]xecute · ")
    child.send("n\r")  # not now: the plan stays, nothing runs
    child.expect("/execute runs it")
    plans = list((repo / ".cast" / "plans").glob("*/plan.md"))
    assert len(plans) == 1 and "- [ ] Add sub to app.py" in plans[0].read_text()
    assert finish(child) == 0


def test_leaving_the_plan_offer_is_not_approval(repo, tmp_path):
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] Change app.py\n"}}]},
            {"text": "Planned."},
        ],
    )
    child = spawn(repo, script)
    child.send("plan it\r")
    child.expect(r"\[e\]xecute · ")
    child.send("\x03")  # Ctrl+C leaves the question
    child.expect("/execute runs it")
    child.expect("plan ›")
    assert "Executing" not in child.text
    assert finish(child) == 0
    assert (repo / "app.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_guidance_typed_while_working_reaches_the_next_request(repo, tmp_path):
    record = tmp_path / "requests.jsonl"
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {
                "text": "Reading slowly " + "and carefully " * 40,
                "delay": 0.08,
                "tool_uses": [{"name": "list_files", "input": {}}],
            },
            {"text": "Understood, using tabs."},
        ],
    )
    child = spawn(repo, script, CAST_SCRIPT_RECORD=str(record))
    child.send("survey the repo\r")
    child.expect("Reading slowly")  # the run exists: guidance can be queued
    child.send("please use tabs\r")
    child.expect("queued")
    child.expect("Understood, using tabs")
    child.expect("■ done")
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(requests) == 2
    assert "please use tabs" not in json.dumps(requests[0]["messages"])
    assert "please use tabs" in json.dumps(requests[1]["messages"][-1])
    assert finish(child) == 0


def test_ctrl_c_interrupts_streaming_and_keeps_the_prompt(repo, tmp_path):
    # Uninterrupted, the essay streams for over a minute: a lost Ctrl+C cannot pass for a slow one.
    script = write_script(tmp_path / "s.jsonl", [{"text": "word " * 4000, "delay": 0.05}])
    child = spawn(repo, script)
    child.send("write an essay\r")
    child.expect("word word")  # streaming, not still starting (test_repl_interrupt covers that)
    child.send("\x03")
    child.expect("■ interrupted", timeout=TIMEOUT)
    child.expect("plan ›")
    assert "■ done" not in child.text
    assert finish(child) == 0


def test_ctrl_c_while_the_agent_starts_is_not_lost(repo, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "word " * 4000, "delay": 0.05}])
    child = spawn(repo, script)
    child.send("write an essay\r\x03")  # almost always before the run exists
    child.expect("■ interrupted", timeout=TIMEOUT)
    child.expect("plan ›")
    assert "■ done" not in child.text
    assert finish(child) == 0


def _processes_with(argv: list[str] | None = None, pgid: int | None = None) -> list[tuple[int, int]]:
    """(pid, pgid) of live (not zombie) processes whose command line is exactly `argv`, or that
    are in process group `pgid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")[:-1]
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":  # exited; only waiting for a parent to reap it
            continue
        if (argv is not None and [p.decode(errors="replace") for p in cmdline] == argv) or int(fields[2]) == pgid:
            found.append((int(entry.name), int(fields[2])))
    return found


def _group_alive(pgid: int) -> bool:
    return bool(_processes_with(pgid=pgid))


@pytest.mark.skipif(
    importlib.util.find_spec("cast.safety.bash_check") is None,
    reason="the bash read-only checker (cast.safety.bash_check) is not in this tree yet",
)
def test_ctrl_c_during_a_command_kills_its_process_group(repo, tmp_path):
    plan = repo / ".cast" / "plans" / "2026-01-01-wait" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan: wait\n\n- [ ] Wait for the build\n")
    duration = "29.731"
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"text": "Waiting.", "tool_uses": [{"name": "bash", "input": {"command": f"sleep {duration} && echo done"}}]},
        ],
    )
    child = spawn(repo, script, mode="execute")
    child.expect(r"\[y\]es")  # not provably read-only: cast asks first
    child.send("y\r")
    child.expect(f"approved once: sleep {duration}")
    deadline = time.monotonic() + TIMEOUT
    while not (running := _processes_with(["sleep", duration])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running, "the command never started"
    groups = {pgid for _, pgid in running}
    child.send("\x03")
    child.expect("■ interrupted", timeout=TIMEOUT)  # well before the sleep would end by itself
    child.expect("execute ›")
    assert not any(_group_alive(g) for g in groups)
    assert finish(child) == 0
