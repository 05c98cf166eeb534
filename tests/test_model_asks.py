"""When the executor ends its turn asking the user something, the turn ends there and the user
answers: the self-check does not send it back as "not finished"."""

from __future__ import annotations

from cast import runs
from cast.agent import events as ev
from cast.agent.guards import asks_user
from cast.models.scripted import ScriptedModel
from cast.options import Options

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def said(text: str) -> list[dict]:
    return [{"role": "assistant", "content": [{"type": "text", "text": text}]}]


def execute(repo, turns):
    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Remove the build directory\n")
    model = ScriptedModel(turns)
    run = runs.execute_run("2026-01-01-x", Options(cwd=repo), model=model)
    events: list[ev.Event] = []
    run.execute(events.append)
    return run, model, events


def test_a_question_ends_the_turn_without_the_self_check(repo):
    run, model, events = execute(repo, [{"text": "The command was declined.\n\nTell me how you want to proceed."}])
    assert run.last is not None and run.last.status == "done" and run.last.reason == "the model asks you a question"
    assert len(model.requests) == 1  # no self-check request, no "not finished" sent back
    assert not any(isinstance(e, ev.Notice) and "self-check" in e.text for e in events)
    outcome = run.close()
    assert outcome.code == 1 and outcome.status == "incomplete"  # the item is still open, and the report says so


def test_a_statement_still_gets_the_self_check(repo):
    turns = [{"text": "I removed it."}, VERDICT, {"text": "Nothing else to do."}, VERDICT]
    run, model, events = execute(repo, turns)
    assert any(isinstance(e, ev.Notice) and "self-check" in e.text for e in events)
    assert len(model.requests) == 4


def test_what_counts_as_asking():
    assert asks_user(said("Done with 1.\n\nShould I also update the README?"))
    assert not asks_user(said("Should I use a loop? No: a comprehension is clearer.\n\nDone: all items ticked."))
    assert not asks_user(said("All three items are done."))
    assert not asks_user(said("Item 1 is done.\n\nLet me know if you need anything else."))  # a pleasantry, not a question
    assert asks_user(said("Let me know which of the two fixes you prefer."))
