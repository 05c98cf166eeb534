"""The words a user reads: a call's line names what it did, a stop says how to go on."""

from __future__ import annotations

from cast.text import call_label


def test_a_grep_line_names_the_pattern_and_where():
    assert call_label("grep", {"pattern": "_external", "path": "src"}) == "grep _external in src"
    assert call_label("grep", {"pattern": "TODO"}) == "grep TODO"
    assert call_label("grep", {"pattern": "TODO", "path": "."}) == "grep TODO"
    assert call_label("read_file", {"path": "src/app.py"}) == "read_file src/app.py"


def test_a_step_limit_stop_says_that_execute_resumes_where_it_stopped(tmp_path):
    from cast.agent.loop import Agent
    from cast.models.scripted import ScriptedModel
    from cast.tools.base import ToolContext
    from cast.workspace import Workspace

    turns = [{"tool_uses": [{"name": "nothing", "input": {}}]}] * 3
    agent = Agent(model=ScriptedModel(turns), tools=[], system="s", ctx=ToolContext(workspace=Workspace(tmp_path)), max_steps=1)
    stop = list(agent.run("go"))[-1]
    assert stop.status == "stopped" and "--max-steps" in stop.reason
    assert "`cast execute` resumes a plan at its first unticked item" in stop.reason


def test_plans_all_after_archiving_the_only_plan_says_where_it_went(repo):
    from conftest import invoke_cast as cast

    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] One\n")
    assert cast(repo, "plans", "archive", "2026-01-01-x").returncode == 0
    listed = cast(repo, "plans", "--all")
    assert "no plans yet" not in listed.stdout and "1 plan archived" in listed.stdout


def test_revoking_trust_twice_does_not_say_no_longer_twice(repo):
    from cast.trust import change

    change(repo, trusted=True)
    assert "no longer trusted" in change(repo, trusted=False)
    again = change(repo, trusted=False)
    assert "no longer trusted" not in again and "was not before either" in again


def test_a_plans_description_of_how_it_will_be_verified_is_no_claim():
    from cast.agent.claims import Facts, check_text

    said = "Plan written: fix add, then add a test. Two items, each verified with `python3 -m unittest`."
    assert check_text(said, Facts()) == []
    assert check_text("The fix is to be verified with `make test`.", Facts()) == []
    [claim] = check_text("I verified it with `make test`.", Facts())
    assert claim.kind == "verified" and not claim.checked  # a check said to be made still needs its run


def test_permissions_and_the_readme_say_what_always_covers_as_the_scope_is_computed():
    from pathlib import Path
    from types import SimpleNamespace

    from cast.repl.permissions import permissions
    from cast.safety.approval_scope import scope_of
    from cast.safety.decision import Remembered

    said: list[str] = []
    remembered = Remembered()
    state = SimpleNamespace(config=lambda: SimpleNamespace(allow=()), options=SimpleNamespace(yes=False))
    session = SimpleNamespace(
        approver=SimpleNamespace(remembered=remembered, edits_auto=False),
        view=SimpleNamespace(say=lambda text, style="": said.append(text)),
        state=state,
    )
    permissions(session, "")
    rule = "else that exact command line and nothing else (pipes and loops of literal words included)"
    assert "git commit …" in said[-1] and rule in said[-1]
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    assert rule in readme and "is never remembered" in readme
    for command in ("python3 -m pytest -q", "pytest -q | tee log", "rm build"):
        remembered.add(scope_of(command))
    permissions(session, "")
    assert "1. python3 -m pytest … (any arguments)" in said[-1]
    assert "2. pytest -q | tee log (exactly this command)" in said[-1] and "3. rm build (exactly this command)" in said[-1]
    assert scope_of("pytest -q | tee $LOG") is None  # computed by bash: never remembered, as both say
