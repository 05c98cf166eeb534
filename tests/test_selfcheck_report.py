"""Self-check (facts first, then one strict-JSON model verdict, at most once per run) and the
evidence report (built from observations; claims nothing supports are marked unchecked)."""
from __future__ import annotations

import json
from pathlib import Path

from cast.agent import events as ev
from cast.agent.loop import Agent, Hooks
from cast.agent.report import ReportBuilder, check_claims, final_text, Observations
from cast.agent.selfcheck import VERDICT_SYSTEM, SelfCheck, parse_verdict
from cast.models.scripted import ScriptedModel
from cast.runs import task_event
from cast.tools.base import Observation, Tool, ToolContext
from cast.tools.shell import BashParams
from cast.tools.tasks import UPDATE_TASK, TaskBoard
from cast.workspace import Workspace
from conftest import git

PLAN = """---
task: Add a greeting
session: 2026-01-05-add-a-greeting
---
# Plan: Add a greeting
- [ ] Write greet() in app.py
- [ ] Add a test for greet()
"""


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def plan_file(root: Path, text: str = PLAN) -> Path:
    path = root / ".cast" / "plans" / "2026-01-05-add-a-greeting" / "plan.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def fake_bash(outcomes: dict[str, dict]) -> Tool:
    """A bash stand-in that reports the facts the real one would, without approvals."""

    def execute(args, ctx):
        facts = {"command": args.command, "exit_code": 0, "tests": {}} | outcomes.get(args.command, {})
        return Observation(f"exit_code={facts['exit_code']}", ok=True, summary=f"exit_code={facts['exit_code']}", facts=facts)

    return Tool("bash", "", BashParams, execute)


def executor(root: Path, turns: list[dict], *, checker_model=None, bash=None):
    path = plan_file(root)
    model = ScriptedModel(turns)
    board = TaskBoard(path)
    ctx = ToolContext(workspace=Workspace(root), task="Add a greeting", tasks=board)
    check = SelfCheck(checker_model or model, task="Add a greeting", plan_path=path)
    tools = [UPDATE_TASK, bash or fake_bash({})]
    # as runs.py does: the task board's rows (blocked status included) after every tool batch
    hooks = Hooks(on_finish=check, after_tools=lambda agent: iter([task_event(board)]))
    agent = Agent(model=model, tools=tools, system="sys", ctx=ctx, hooks=hooks)
    return agent, model, check, board


def drive(agent: Agent, *feeds, text: str = "execute the plan") -> list:
    events = []
    for event in agent.run(text):
        events.append(event)
        for feed in feeds:
            feed.observe(event)
    return events


def stopped(events) -> ev.Stopped:
    return [e for e in events if isinstance(e, ev.Stopped)][-1]


class TestSelfCheck:
    def test_an_unticked_item_sends_the_executor_back_once(self, tmp_path):
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done")]},
            {"text": "All done: greet() is written."},  # item 2 is still unticked
            {"text": "I think it is fine as it is."},  # the second completion is accepted
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done"
        assert len(model.requests) == 3, "facts decided it: no verdict call was spent"
        back = json.dumps(model.requests[2].messages[-1])
        assert "self-check" in back and "Plan item 2 is not ticked" in back and "Add a test for greet()" in back
        assert "Plan item 1" not in back
        assert check.verdict.source == "facts"

    def test_the_executor_goes_back_and_finishes_the_item(self, tmp_path):
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done")]},
            {"text": "Done."},
            {"tool_uses": [use("update_task", id=2, status="done")]},
            {"text": "Now both items are done."},
            {"text": '{"complete": true, "missing": []}'},  # never reached: no second check
        ]
        agent, model, check, board = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done" and board.remaining() == []
        assert len(model.requests) == 4

    def test_a_blocked_item_is_not_counted_as_missing(self, tmp_path):
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done"), use("update_task", id=2, status="blocked", note="no test runner")]},
            {"text": "Item 2 is blocked."},
            {"text": '{"complete": true, "missing": []}'},
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done"
        assert check.verdict.source == "model" and check.verdict.complete is True

    def test_a_failed_last_test_run_is_a_fact(self, tmp_path):
        bash = fake_bash({"pytest -q": {"exit_code": 1, "tests": {"passed": 3, "failed": 1}}})
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done"), use("update_task", id=2, status="done")]},
            {"tool_uses": [use("bash", command="pytest -q")]},
            {"text": "Everything is done and all tests pass."},
            {"text": "Fixed."},
        ]
        agent, model, check, _ = executor(tmp_path, turns, bash=bash)
        drive(agent, check)
        back = json.dumps(model.requests[3].messages[-1])
        assert "The last test run failed: `pytest -q` exit 1 (3 passed, 1 failed)" in back

    def test_with_the_facts_clean_one_model_call_decides(self, tmp_path):
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done"), use("update_task", id=2, status="done")]},
            {"tool_uses": [use("bash", command="pytest -q")]},
            {"text": "All done."},
            {"text": 'Verdict:\n```json\n{"complete": false, "missing": ["add a CHANGELOG entry"]}\n```'},
            {"text": "Added it. Done."},
        ]
        agent, model, check, _ = executor(tmp_path, turns, bash=fake_bash({"pytest -q": {"tests": {"passed": 4}}}))
        events = drive(agent, check)
        verdict_request = model.requests[3]
        assert verdict_request.tools == () and verdict_request.system == VERDICT_SYSTEM
        body = verdict_request.messages[0]["content"][0]["text"]
        assert "# Task\nAdd a greeting" in body and "- [x] Write greet() in app.py" in body
        assert "update_task 1 -> ok" in body and "bash pytest -q -> ok: exit_code=0" in body
        assert "`pytest -q` exit 0 (4 passed)" in body and "All done." in body
        assert "add a CHANGELOG entry" in json.dumps(model.requests[4].messages[-1])
        assert stopped(events).status == "done" and len(model.requests) == 5

    def test_an_invalid_verdict_does_not_keep_the_run_going(self, tmp_path):
        turns = [
            {"tool_uses": [use("update_task", id=1, status="done"), use("update_task", id=2, status="done")]},
            {"text": "All done."},
            {"text": "I believe the task is complete!"},
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done" and len(model.requests) == 3
        assert check.verdict.complete is None and check.verdict.source == "invalid"

    def test_each_new_run_gets_its_own_check(self, tmp_path):
        turns = [{"text": "Done."}, {"text": "Still done."}, {"text": "Done again."}, {"text": "Really."}]
        agent, model, check, _ = executor(tmp_path, turns)
        drive(agent, check)
        drive(agent, check, text="carry on")
        assert len(model.requests) == 4
        assert "self-check" in json.dumps(model.requests[3].messages[-1])

    def test_parse_verdict_is_strict_about_shape_and_lenient_about_framing(self):
        assert parse_verdict('{"complete": true, "missing": []}').complete is True
        v = parse_verdict('Sure. {"note": 1} then {"complete": false, "missing": ["x", 3, ""]} ok')
        assert (v.complete, v.missing) == (False, ["x", "3"])
        assert parse_verdict('{"complete": "yes"}').complete is None
        assert parse_verdict('{"complete": false, "missing": "tests"}').missing == []
        assert parse_verdict("").source == "invalid"


def tool_result(name: str, ok: bool = True, changed=(), **facts) -> ev.ToolResult:
    return ev.ToolResult("id", name, ok, "", "", tuple(changed), False, facts)


class TestClaims:
    def test_all_tests_pass_is_unchecked_without_a_test_run(self):
        obs = Observations()
        obs.observe(tool_result("bash", command="ls", exit_code=0, tests={}))
        claims = check_claims("I added greet(). All tests pass.", obs, [])
        assert [(c.kind, c.checked, c.evidence) for c in claims] == [("tests pass", False, "no test command was run")]

    def test_all_tests_pass_is_checked_by_a_passing_run_and_unchecked_by_a_failing_last_run(self):
        obs = Observations()
        obs.observe(tool_result("bash", command="python -m pytest -q", exit_code=0, tests={"passed": 5}))
        assert check_claims("All tests pass.", obs, [])[0].checked
        obs.observe(tool_result("bash", command="pytest tests/test_app.py", exit_code=1, tests={"passed": 4, "failed": 1}))
        claim = check_claims("The tests are green.", obs, [])[0]
        assert not claim.checked and "exit 1 (4 passed, 1 failed)" in claim.evidence

    def test_the_claim_table(self):
        obs = Observations()
        obs.observe(tool_result("bash", command="ruff check .", exit_code=0))
        obs.observe(tool_result("edit_file", changed=["src/app.py"]))
        text = ("- Updated `src/app.py` to add greet().\n- Created docs/greet.md.\n- Ran `ruff check .` and "
                "ran `mypy src`.\nI verified the change. Lint passes. All items are done. Tests are not run yet.")
        claims = {(c.kind, c.text[:22]): c.checked for c in check_claims(text, obs, ["Add a test"])}
        assert claims == {
            ("file changed", "Updated `src/app.py` t"): True,
            ("file changed", "Created docs/greet.md."): False,
            ("command ran", "Ran `ruff check .` and"): True,  # the first `...` in the sentence
            ("verified", "I verified the change."): True,
            ("build passes", "Lint passes."): True,
            ("all items done", "All items are done."): False,
        }


class TestReport:
    def test_report_from_observations_in_a_real_repository(self, repo):
        (repo / "README.md").write_text("# demo, edited before the run\n")  # not the run's doing
        plan = plan_file(repo)
        builder = ReportBuilder(repo, plan)
        (repo / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef greet():\n    return 'hi'\n")
        (repo / "test_greet.py").write_text("from app import greet\n")
        TaskBoard(plan).update(1, "done", "")
        events = [
            ev.StepStarted(1),
            tool_result("edit_file", changed=["app.py"]),
            tool_result("bash", command="pytest -q", exit_code=0, tests={"passed": 2}),
            ev.StepStarted(2),
            ev.TextDelta("Added greet(). All tests pass. "),
            ev.TextDelta("Ran `make lint` too."),
            ev.Stopped("done", "the model finished its turn", 2),
        ]
        for event in events:
            builder.observe(event)
        report = builder.build()
        assert (report.status, report.ticked_this_run) == ("done", 1)
        assert [i["text"] for i in report.items_done] == ["Write greet() in app.py"]
        assert [i["number"] for i in report.items_left] == [2]
        assert [(c.command, c.exit_code, c.passed) for c in report.commands] == [("pytest -q", 0, True)]
        assert "app.py" in report.files_changed and "test_greet.py" in report.files_changed
        assert "README.md" not in report.files_changed and "README.md" not in report.diff_stat
        assert "app.py" in report.diff_stat
        claims = {c.kind: c.checked for c in report.claims}
        assert claims == {"tests pass": True, "command ran": False}
        data = json.loads(json.dumps(report.to_dict()))
        assert data["unchecked_claims"] == 1 and data["commands"][0]["passed"] is True
        text = report.render_text()
        assert "Plan: 1/2 items done (1 this run)" in text and "[ ] 2. Add a test for greet()" in text
        assert "UNCHECKED \"Ran `make lint` too.\" — no command `make lint` was observed" in text
        assert "ok   `pytest -q` exit 0 (2 passed)" in text

    def test_outside_git_and_without_a_plan(self, tmp_path):
        builder = ReportBuilder(tmp_path)
        builder.observe(tool_result("write_file", changed=["notes.txt"]))
        report = builder.build(final_text="Wrote notes.txt. All tests pass.")
        assert report.files_changed == ["notes.txt"] and report.diff_stat == ""
        assert [(c.kind, c.checked) for c in report.claims] == [("file changed", True), ("tests pass", False)]
        assert "Files changed: 1" in report.render_text()

    def test_final_text_is_the_last_assistant_message(self):
        messages = [{"role": "assistant", "content": [{"type": "text", "text": "first"}]},
                    {"role": "user", "content": [{"type": "text", "text": "more"}]},
                    {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "last"}]}]
        assert final_text(messages) == "last"
