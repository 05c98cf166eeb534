"""The same command with the same outcome and nothing changed since its last run: the second run
is nudged, the third ends the run with the reason; the report shows the repeats as one line."""

from __future__ import annotations

from pathlib import Path

from cast import runs
from cast.agent import events as ev
from cast.models.scripted import ScriptedModel
from cast.options import Options

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}
CHECK = "test -e fixed.txt"


def bash(command: str = CHECK) -> dict:
    return {"tool_uses": [{"name": "bash", "input": {"command": command}}]}


def execute(root: Path, turns: list[dict]) -> tuple[list[ev.Event], runs.Run]:
    plan = root / ".cast" / "plans" / "2026-01-01-fix" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Make `test -e fixed.txt` pass\n")
    run = runs.execute_run("2026-01-01-fix", Options(cwd=root, yes=True), model=ScriptedModel(turns))
    events: list[ev.Event] = []
    run.execute(events.append)
    return events, run


def test_a_command_that_fails_the_same_way_with_nothing_changed_is_nudged_then_ends_the_run(repo):
    events, run = execute(repo, [bash(), bash(), bash(), {"text": "never reached"}])
    results = [e for e in events if isinstance(e, ev.ToolResult)]
    assert len(results) == 3
    assert "no file has changed" not in results[0].text and "no file has changed" in results[1].text
    stop = run.last
    assert stop is not None and stop.status == "stopped"
    assert stop.reason == f"no progress: `{CHECK}` exited 1 3 times in a row with no file changed in between"
    outcome = run.close()
    assert outcome.code == 1 and outcome.report is not None
    text = outcome.report.render_text()
    assert f"FAIL `{CHECK}` exit 1 ×3" in text and text.count("  FAIL ") == 1, text  # one line for the three


def test_a_change_in_between_is_progress(repo):
    write = {"tool_uses": [{"name": "write_file", "input": {"path": "notes.txt", "content": "tried\n"}}]}
    write2 = {"tool_uses": [{"name": "write_file", "input": {"path": "notes.txt", "content": "tried again\n"}}]}
    events, run = execute(
        repo,
        [bash(), bash(), write, bash(), bash(), write2, bash(), {"text": "Gave up."}, VERDICT, {"text": "Still stuck."}, VERDICT],
    )
    assert run.last is not None and run.last.status == "done", run.last
    assert len([e for e in events if isinstance(e, ev.ToolResult) and e.name == "bash"]) == 5
