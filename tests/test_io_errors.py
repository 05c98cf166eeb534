"""The machine's errors are said plainly: a read-only file names its path, a full disk ends the
run cleanly saying what is kept and how to go on, and no traceback reaches the user."""

from __future__ import annotations

import errno

from cast import runs
from cast.agent import events as ev
from cast.models.scripted import ScriptedModel
from cast.options import Options
from cast.tools import edit
from cast.tools.base import ToolContext, run_tool
from cast.workspace import Workspace


def refuse(code: int, text: str):
    def write(path, data, *args, **kwargs):
        raise OSError(code, text, str(path))

    return write


def test_write_file_on_a_read_only_checkout_names_the_path(repo, monkeypatch):
    monkeypatch.setattr(edit, "atomic_write", refuse(errno.EROFS, "Read-only file system"))
    obs = run_tool(edit.WRITE_FILE, {"path": "notes.txt", "content": "x\n"}, ToolContext(workspace=Workspace(repo)))
    assert not obs.ok and obs.summary == "notes.txt: Read-only file system" and "internal error" not in obs.text
    assert obs.result is not None and not obs.result.fatal  # type: ignore[union-attr]  # the model can say so and go on with what it can do


def execute(repo, turns):
    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Write notes.txt\n")
    run = runs.execute_run("2026-01-01-x", Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    events: list[ev.Event] = []
    run.execute(events.append)
    return run, events


def test_a_full_disk_in_a_tool_ends_the_run_at_once(repo, monkeypatch):
    monkeypatch.setattr(edit, "atomic_write", refuse(errno.ENOSPC, "No space left on device"))
    write = {"tool_uses": [{"name": "write_file", "input": {"path": "notes.txt", "content": "x\n"}}]}
    run, events = execute(repo, [write, write, write, {"text": "never"}])
    assert run.last is not None and run.last.status == "stopped"
    assert run.last.reason.startswith("notes.txt: No space left on device; the run stops here: what was done so far is kept")
    assert len([e for e in events if isinstance(e, ev.ToolResult)]) == 1


def test_a_full_disk_under_the_session_ends_the_run_cleanly_with_how_to_resume(repo, monkeypatch):
    from cast.sessions import Session

    appended = Session.append
    count = [0]

    def append(self, message):
        count[0] += 1
        if count[0] > 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.dir / "transcript.jsonl"))
        appended(self, message)

    monkeypatch.setattr(Session, "append", append)
    read = {"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}
    run, events = execute(repo, [read, read, {"text": "never"}])
    stop = run.last
    assert stop is not None and stop.status == "failed" and events[-1] is stop
    assert "No space left on device" in stop.reason and f"`cast resume {run.session_id}` goes on from here" in stop.reason
    assert "the plan file and the changes made so far are kept" in stop.reason
    outcome = run.close()  # the books close without raising
    assert outcome.code == 1
