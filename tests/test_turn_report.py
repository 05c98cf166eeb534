"""Each turn tells its own story: the report after a turn (the REPL shows one after every execute
turn, an interrupted one included) holds that turn's commands, changes, ticks and claims alone."""

from __future__ import annotations

from cast import runs
from cast.agent import events as ev
from cast.models.scripted import ScriptedModel
from cast.options import Options

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def test_an_interrupted_turn_after_a_finished_one_reports_nothing_of_the_first(repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-two" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Write `notes.md`\n")
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress")]},
        {"tool_uses": [use("write_file", path="notes.md", content="notes\n")]},
        {"tool_uses": [use("bash", command="echo checked")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "The item is done."},
        {
            "text": '{"complete": true, "missing": [], "claims": '
            '[{"claim": "The item is done.", "rests_on": "item", "ref": "1", "says": "done"}]}'
        },
    ]
    run = runs.execute_run("2026-01-01-two", Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    run.execute(lambda event: None)
    first = run.outcome().report
    assert first is not None and first.commands and "notes.md" in first.files_changed and first.claims
    run.stop_before(lambda event: None)  # Esc before the next turn's first request
    second = run.outcome().report
    assert second is not None
    assert second.commands == [] and second.files_changed == [] and second.claims == []
    assert second.ticked_this_run == 0 and not any(i.evidence for i in second.items_done)
    shown = second.render_text(commands="/")
    assert "The item is done" not in shown and "echo checked" not in shown
    run.close()


def test_a_turn_reports_its_own_command_and_not_the_last_turns(repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-two" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Run `echo one`\n")
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress"), use("bash", command="echo one")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "Item 1 is done."},
        VERDICT,
        {"tool_uses": [use("bash", command="echo two")]},
        {"text": "It printed two."},
        VERDICT,
    ]
    run = runs.execute_run("2026-01-01-two", Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    run.execute(lambda event: None)
    events: list[ev.Event] = []
    run.turn("Run echo two.", events.append)
    report = run.outcome().report
    assert report is not None
    assert [c.command for c in report.commands] == ["echo two"]
    assert report.ticked_this_run == 0 and not any(i.evidence for i in report.items_done)
    assert [c.text for c in report.claims] != ["Item 1 is done."]
    run.close()


def test_resume_says_when_the_last_reply_came_before_an_interrupted_turn():
    from cast.repl.jobs import _later_turn

    reply = {"role": "assistant", "content": [{"type": "text", "text": "Both items are done."}]}
    asked = {"role": "user", "content": [{"type": "text", "text": "now the docs"}]}
    tool = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]}
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}, {"type": "text", "text": "[note]"}],
    }
    assert _later_turn([asked, reply, asked]) is True
    assert _later_turn([asked, reply]) is False
    assert _later_turn([asked, reply, asked, tool, result]) is True
    assert _later_turn([asked, tool, result, reply]) is False


def test_after_several_compactions_the_original_request_is_still_the_users_task():
    from cast.agent.context import ContextEconomy

    economy = ContextEconomy.__new__(ContextEconomy)
    economy.reinject = None
    task = {"role": "user", "content": [{"type": "text", "text": "Fix the discount rounding in shop/cart.py"}]}
    reply = {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]}
    messages = [task, reply]
    for n in range(3):
        restarted = economy._restart_text(messages, f"summary {n}")
        messages = [{"role": "user", "content": [{"type": "text", "text": restarted}]}, reply]
    assert restarted.count("# Original request") == 1 and restarted.count("[cast: this conversation was compacted") == 1
    assert "# Original request\nFix the discount rounding in shop/cart.py\n\n# Summary of the work so far\nsummary 2" in restarted
