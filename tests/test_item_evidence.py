"""Evidence that means what it says: an item that changes a named file needs a change to that file
(or a note), and a count in the final message must be the plan's."""

from __future__ import annotations

from cast import runs
from cast.agent import events as ev
from cast.agent.claims import Facts, check_text
from cast.models.scripted import ScriptedModel
from cast.options import Options

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def test_an_item_that_names_a_file_is_not_ticked_on_a_passing_command_alone(repo):
    (repo / "test_app.py").write_text("import unittest\n")
    plan = repo / ".cast" / "plans" / "2026-01-01-zero" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Add `test_mul_zero` to `test_app.py`\n- [ ] Run the tests\n")
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("bash", command="python3 -m unittest -q")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},  # refused: test_app.py was not changed
        {"tool_uses": [use("read_file", path="test_app.py")]},
        {
            "tool_uses": [
                use("edit_file", path="test_app.py", old_string="import unittest\n", new_string="import unittest  # x\n")
            ]
        },
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"tool_uses": [use("update_task", id=2, status="done", note="ran above")]},
        {"text": "All three items are done."},
        VERDICT,
        {"text": "Both items are done."},
        VERDICT,
    ]
    run = runs.execute_run("2026-01-01-zero", Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    events: list[ev.Event] = []
    run.execute(events.append)
    ticks = [e for e in events if isinstance(e, ev.ToolResult) and e.name == "update_task"]
    assert not ticks[1].ok and "the item names `test_app.py` and no change to it was made since it started" in ticks[1].text
    assert ticks[2].ok, ticks[2].text
    assert "- [x] Add `test_mul_zero`" in plan.read_text()
    report = run.close().report
    assert (
        report is not None
        and report.items_done[0].evidence is not None
        and report.items_done[0].evidence.files == ["test_app.py"]
    )


def test_a_count_that_contradicts_the_plan_is_flagged():
    facts = Facts(done={1: "a", 2: "b", 3: "c"}, left={4: "d"})
    [claim] = check_text("All three items are done.", facts)
    assert not claim.checked and claim.evidence == "the plan has 4 items, not 3"
    [claim] = check_text("Four tasks are complete.", facts)
    assert not claim.checked and claim.evidence == "3 plan items are ticked, not 4"
    [claim] = check_text("3 items are done.", facts)
    assert claim.checked
    [claim] = check_text("All 3 items are done.", Facts(done={1: "a", 2: "b", 3: "c"}))
    assert claim.checked
