"""A run owns its one ledger, whichever mode it is in: the builder makes it with the run and hands
it to the task board, the report, the self-check and the feed, so a plan run has one exactly as an
execute run does and no reader keeps or feeds one of its own."""

from __future__ import annotations

from pathlib import Path

from cast import runs
from cast.models.scripted import ScriptedModel
from cast.options import Options

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}
PLAN_ID = "2026-01-01-fix"


def execute_plan(repo: Path) -> Path:
    plan = repo / ".cast" / "plans" / PLAN_ID / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Run `true`\n- [ ] Run `echo two`\n")
    return plan


def bash(command: str) -> dict:
    return {"tool_uses": [{"name": "bash", "input": {"command": command}}]}


def task(number: int, status: str) -> dict:
    return {"tool_uses": [{"name": "update_task", "input": {"id": number, "status": status}}]}


def test_an_execute_runs_board_report_and_self_check_read_the_ledger_the_run_owns(repo: Path):
    execute_plan(repo)
    turns = [task(1, "in_progress"), bash("true"), task(1, "done"), {"text": "Stopping after one."}, VERDICT]
    run = runs.execute_run(PLAN_ID, Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    run.execute(lambda event: None)
    board, check = run.tasks, run.agent.hooks.on_finish
    assert board is not None and run.report is not None and check is not None
    assert board.ledger is run.ledger and run.report.obs.ledger is run.ledger and check.obs.ledger is run.ledger  # type: ignore[attr-defined]
    assert [c.command for c in run.ledger.commands] == ["true"]  # the feed wrote into the run's, once
    found = board.evidence_for("Run `true`")
    assert found is not None and found.commands == ["`true` exit 0"]
    run.close()


def test_a_plan_run_owns_a_ledger_the_same_way_and_its_report_reads_it(repo: Path):
    turns = [bash("true"), {"text": "Nothing to plan."}]
    run = runs.plan_run("look around", Options(cwd=repo), model=ScriptedModel(turns))
    assert run.tasks is None and run.agent.hooks.on_finish is None  # no board, no self-check: still a ledger
    run.turn("look around", lambda event: None)
    assert run.report is not None and run.report.obs.ledger is run.ledger
    assert [(c.command, c.label) for c in run.ledger.commands] == [("true", "ok")]
    run.close()


def test_each_run_gets_its_own_ledger_and_a_resumed_execute_run_hands_its_new_one_to_its_board(repo: Path):
    execute_plan(repo)
    first = runs.execute_run(PLAN_ID, Options(cwd=repo, yes=True), model=ScriptedModel([{"text": "Later."}, VERDICT]))
    first.execute(lambda event: None)
    first.close()
    resumed = runs.resume_run(first.session_id, Options(cwd=repo, yes=True), model=ScriptedModel([]))
    planning = runs.plan_run("other", Options(cwd=repo), model=ScriptedModel([]))
    assert resumed.tasks is not None and resumed.tasks.ledger is resumed.ledger and resumed.report is not None
    assert resumed.report.obs.ledger is resumed.ledger
    assert len({id(first.ledger), id(resumed.ledger), id(planning.ledger)}) == 3
    resumed.close()
    planning.close()
