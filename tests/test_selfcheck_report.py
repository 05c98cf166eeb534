"""Self-check (facts, and one structured-output model call each time the executor ends its turn;
it sends the executor back at most once per run) and the evidence report (built from
observations; claims nothing supports are marked unchecked)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cast.agent import events as ev
from cast.agent.claims import Facts, check_claims
from cast.agent.loop import Agent, Hooks
from cast.agent.observed import Observations, ledger_feed
from cast.agent.report import ReportBuilder, final_text
from cast.agent.selfcheck import VERDICT_SCHEMA, VERDICT_SYSTEM, SelfCheck, parse_verdict
from cast.agent.tasklist import halting, task_event
from cast.models.scripted import ScriptedModel
from cast.tools.base import Observation, Tool, ToolContext, ToolError
from cast.tools.evidence import Ledger
from cast.tools.results import Declined, Edited, Ran
from cast.tools.shell import BashParams
from cast.tools.tasks import TaskBoard, update_task_tool
from cast.workspace import Workspace

PLAN = """---
task: Add a greeting
session: 2026-01-05-add-a-greeting
---
# Plan: Add a greeting
- [ ] Write greet()
- [ ] Add a test for greet()
"""
VERDICT_OK = {"text": '{"complete": true, "missing": [], "claims": []}'}


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
        ran = Ran(args.command, **({"exit_code": 0} | outcomes.get(args.command, {})))
        return Observation(f"exit_code={ran.exit_code}", ok=True, summary=f"exit_code={ran.exit_code}", result=ran)

    return Tool("bash", "", BashParams, execute)


def executor(root: Path, turns: list[dict], *, checker_model=None, bash=None):
    path = plan_file(root)
    model = ScriptedModel(turns)
    board = TaskBoard(path, Ledger())
    ctx = ToolContext(workspace=Workspace(root))
    check = SelfCheck(checker_model or model, task="Add a greeting", plan_path=path)
    tools = [update_task_tool(board), bash or fake_bash({})]
    # as runs.py does: the task board's rows (blocked status included) after every tool batch, its stop condition
    hooks = Hooks(
        on_finish=check,
        after_tools=lambda agent: iter([task_event(board)]),
        observers=[ledger_feed(board.ledger)],
        halt=halting(board),
    )
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
            {"tool_uses": [use("bash", command="echo greet"), use("update_task", id=1, status="done")]},
            {"text": "All done: greet() is written."},  # item 2 is still unticked
            VERDICT_OK,  # the model's verdict cannot outvote the facts
            {"text": "I think it is fine as it is."},  # the second completion is accepted
            VERDICT_OK,
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done"
        assert len(model.requests) == 5, "one check call after each final message"
        verdict_request = model.requests[2]
        assert verdict_request.tools == () and verdict_request.output_schema == VERDICT_SCHEMA
        back = json.dumps(model.requests[3].messages[-1])
        assert "self-check" in back and "Plan item 2 is not ticked" in back and "Add a test for greet()" in back
        assert "Plan item 1" not in back and '\\"complete\\"' not in back, "the verdict's JSON is not part of the conversation"
        assert check.verdict.source == "model" and check.checked_text == "I think it is fine as it is."

    def test_the_executor_goes_back_and_finishes_the_item(self, tmp_path):
        turns = [
            {"tool_uses": [use("bash", command="echo one"), use("update_task", id=1, status="done")]},
            {"text": "Done."},
            VERDICT_OK,
            {"tool_uses": [use("bash", command="echo two"), use("update_task", id=2, status="done")]},
            {"text": "Now both items are done."},
            VERDICT_OK,
        ]
        agent, model, check, board = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done" and board.remaining() == []
        assert len(model.requests) == 6

    def test_a_blocked_item_is_not_counted_as_missing(self, tmp_path):
        turns = [
            {
                "tool_uses": [
                    use("bash", command="echo one"),
                    use("update_task", id=1, status="done"),
                    use("update_task", id=2, status="blocked", note="no test runner"),
                ]
            },
            {"text": "Item 2 is blocked."},
            VERDICT_OK,
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done"
        assert check.verdict.source == "model" and check.verdict.complete is True

    def test_a_failed_last_test_run_is_a_fact(self, tmp_path):
        bash = fake_bash({"pytest -q": {"exit_code": 1, "tests": {"passed": 3, "failed": 1}}})
        turns = [
            {
                "tool_uses": [
                    use("bash", command="echo x"),
                    use("update_task", id=1, status="done"),
                    use("bash", command="echo y"),
                    use("update_task", id=2, status="done"),
                ]
            },
            {"tool_uses": [use("bash", command="pytest -q")]},
            {"text": "Everything is done and all tests pass."},
            VERDICT_OK,
            {"text": "Fixed."},
            VERDICT_OK,
        ]
        agent, model, check, _ = executor(tmp_path, turns, bash=bash)
        drive(agent, check)
        back = json.dumps(model.requests[4].messages[-1])
        assert "The last test run failed: `pytest -q` exit 1 (3 passed, 1 failed)" in back

    def test_with_the_facts_clean_one_model_call_decides(self, tmp_path):
        turns = [
            {
                "tool_uses": [
                    use("bash", command="echo x"),
                    use("update_task", id=1, status="done"),
                    use("bash", command="echo y"),
                    use("update_task", id=2, status="done"),
                ]
            },
            {"tool_uses": [use("bash", command="pytest -q")]},
            {"text": "All done."},
            {"text": 'Verdict:\n```json\n{"complete": false, "missing": ["add a CHANGELOG entry"], "claims": []}\n```'},
            {"text": "Added it. Done."},
            VERDICT_OK,
        ]
        agent, model, check, _ = executor(tmp_path, turns, bash=fake_bash({"pytest -q": {"tests": {"passed": 4}}}))
        events = drive(agent, check)
        verdict_request = model.requests[3]
        assert verdict_request.tools == () and verdict_request.system == VERDICT_SYSTEM
        body = verdict_request.messages[0]["content"][0]["text"]
        assert "# Task\nAdd a greeting" in body and "- [x] Write greet()" in body
        assert "update_task 1 -> ok" in body and "bash pytest -q -> ok: exit_code=0" in body
        assert "`pytest -q` exit 0 (4 passed)" in body and "All done." in body
        assert "add a CHANGELOG entry" in json.dumps(model.requests[4].messages[-1])
        assert stopped(events).status == "done" and len(model.requests) == 6

    def test_an_invalid_verdict_does_not_keep_the_run_going(self, tmp_path):
        turns = [
            {
                "tool_uses": [
                    use("bash", command="echo x"),
                    use("update_task", id=1, status="done"),
                    use("bash", command="echo y"),
                    use("update_task", id=2, status="done"),
                ]
            },
            {"text": "All done."},
            {"text": "I believe the task is complete!"},
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        events = drive(agent, check)
        assert stopped(events).status == "done" and len(model.requests) == 3
        assert check.verdict.complete is None and check.verdict.source == "invalid"

    def test_each_new_run_gets_its_own_check(self, tmp_path):
        turns = [
            {"text": "Done."},
            VERDICT_OK,
            {"text": "Still done."},
            VERDICT_OK,
            {"text": "Done again."},
            VERDICT_OK,
            {"text": "Really."},
            VERDICT_OK,
        ]
        agent, model, check, _ = executor(tmp_path, turns)
        drive(agent, check)
        drive(agent, check, text="carry on")
        assert len(model.requests) == 8
        assert "self-check" in json.dumps(model.requests[6].messages[-1])

    def test_parse_verdict_is_strict_about_shape_and_lenient_about_framing(self):
        assert parse_verdict('{"complete": true, "missing": []}').complete is True
        v = parse_verdict('Sure. {"note": 1} then {"complete": false, "missing": ["x", 3, ""]} ok')
        assert (v.complete, v.missing) == (False, ["x", "3"])
        assert parse_verdict('{"complete": "yes"}').complete is None
        assert parse_verdict('{"complete": false, "missing": "tests"}').missing == []
        assert parse_verdict("").source == "invalid"
        claims = [{"claim": "tests pass", "rests_on": "tests", "ref": "pytest", "says": "passed"}, "junk"]
        assert parse_verdict(json.dumps({"complete": True, "missing": [], "claims": claims})).claims == claims[:1]


def tool_result(name: str, ok: bool = True, changed=(), command="", **ran) -> ev.ToolResult:
    if not ok and "exit_code" not in ran:  # a refused call: declined, with the command it asked for
        declined = Declined(command, "the user declined")
        return ev.ToolResult(
            "id", name, False, "the user declined to run this command", "error: the user declined", result=declined
        )
    result = Ran(command, **ran) if command else Edited(changed[0]) if changed else None
    return ev.ToolResult("id", name, ok, "", "", tuple(changed), False, result)


def facts_of(*results, done=(), left=()) -> Facts:
    obs = Observations()
    for result in results:
        obs.observe(result)
    return Facts(obs.commands, obs.changed, {n: f"item {n}" for n in done}, {n: f"item {n}" for n in left})


FAILED_PYTEST = tool_result("bash", command="python3 -m pytest -q", exit_code=1, tests={"passed": 2, "failed": 1})
PASSED_PYTEST = tool_result("bash", command="python3 -m pytest -q", exit_code=0, tests={"passed": 3})


class TestClaims:
    def test_all_tests_pass_is_unchecked_without_a_test_run(self):
        claims = check_claims(
            "I added greet(). All tests pass.", facts_of(tool_result("bash", command="ls", exit_code=0, tests={}))
        )
        assert [(c.kind, c.checked, c.evidence) for c in claims] == [("tests pass", False, "no test command was run")]

    def test_all_tests_pass_is_checked_by_a_passing_run_and_unchecked_by_a_failing_last_run(self):
        obs = [tool_result("bash", command="python -m pytest -q", exit_code=0, tests={"passed": 5})]
        assert check_claims("All tests pass.", facts_of(*obs))[0].checked
        obs.append(tool_result("bash", command="pytest tests/test_app.py", exit_code=1, tests={"passed": 4, "failed": 1}))
        claim = check_claims("The tests are green.", facts_of(*obs))[0]
        assert not claim.checked and "exit 1 (4 passed, 1 failed)" in claim.evidence

    def test_a_false_tests_pass_claim_in_other_words_is_unchecked(self):
        for wording in (
            "pytest reports 3 passed.",
            "The suite is green now.",
            "✅ all good",
            "3 tests passed, 0 failed.",
            "Ran 3 tests, OK.",
        ):
            claims = check_claims(wording, facts_of(FAILED_PYTEST, done=[1]))
            assert claims and not any(c.checked for c in claims), wording
            assert "exit 1" in claims[0].evidence, wording
        assert check_claims("pytest reports 3 passed.", facts_of(PASSED_PYTEST))[0].checked
        wrong = check_claims("pytest reports 4 passed.", facts_of(PASSED_PYTEST))[0]
        assert not wrong.checked and wrong.evidence == "the last run reported 3 passed, not 4"

    def test_a_declined_command_is_no_test_run(self):
        declined = tool_result("bash", ok=False, command="python3 -m pytest -q")  # refused: no exit code
        facts = facts_of(declined)
        assert [(c.command, c.label) for c in facts.commands] == [("python3 -m pytest -q", "declined")]
        claims = check_claims("Tests pass.", facts)
        assert [(c.checked, c.evidence) for c in claims] == [(False, "no test command was run")]

    def test_the_claim_table(self):
        obs = [tool_result("bash", command="ruff check .", exit_code=0), tool_result("edit_file", changed=["src/app.py"])]
        text = (
            "- Updated `src/app.py` to add greet().\n- Created docs/greet.md.\n- Ran `ruff check .` and "
            "ran `mypy src`.\nI verified the change. Lint passes. All items are done. Tests are not run yet."
        )
        claims = {(c.kind, c.text[:22]): c.checked for c in check_claims(text, facts_of(*obs, done=[1], left=[2]))}
        assert claims == {
            ("file changed", "Updated `src/app.py` t"): True,
            ("file changed", "Created docs/greet.md."): False,
            ("command ran", "Ran `ruff check .` and"): True,  # the first `...` in the sentence
            ("verified", "I verified the change."): True,
            ("build passes", "Lint passes."): True,
            ("all items done", "All items are done."): False,
        }

    def test_verified_with_a_named_command_rests_on_that_command(self):
        """ "Verified with `python3 -m unittest`" is not supported by some other command exiting 0."""
        other = tool_result("bash", command="git log --oneline -5", exit_code=0)
        [claim] = check_claims("Each item is verified with `python3 -m unittest`.", facts_of(other))
        assert (claim.kind, claim.checked, claim.evidence) == ("verified", False, "no command `python3 -m unittest` was observed")
        [claim] = check_claims("I verified it with `python3 -m pytest -q`.", facts_of(other, FAILED_PYTEST))
        assert not claim.checked and "exit 1" in claim.evidence
        [claim] = check_claims("I verified it with `python3 -m pytest -q`.", facts_of(other, PASSED_PYTEST))
        assert claim.checked and "exit 0" in claim.evidence

    def test_claims_the_model_listed_are_checked_against_the_facts(self):
        listed = [
            {"claim": "the suite passes", "rests_on": "tests", "ref": "python3 -m pytest -q", "says": "passed"},
            {"claim": "calc.py now adds", "rests_on": "file", "ref": "calc.py", "says": "changed"},
            {"claim": "item 2 is done", "rests_on": "item", "ref": "2", "says": "done"},
            {"claim": "the code is idiomatic", "rests_on": "nothing", "ref": "", "says": "done"},
            {"claim": "pytest failed before the fix", "rests_on": "command", "ref": "python3 -m pytest -q", "says": "failed"},
        ]
        facts = facts_of(FAILED_PYTEST, tool_result("edit_file", changed=["calc.py"]), done=[1], left=[2])
        verdicts = [(c.text, c.checked) for c in check_claims("", facts, listed)]
        assert verdicts == [
            ("the suite passes", False),
            ("calc.py now adds", True),
            ("item 2 is done", False),
            ("the code is idiomatic", False),
            ("pytest failed before the fix", True),
        ]

    def test_the_stricter_layer_wins_when_both_speak_of_a_sentence(self):
        listed = [{"claim": "pytest reports 3 passed", "rests_on": "command", "ref": "echo ok", "says": "ran"}]
        facts = facts_of(tool_result("bash", command="echo ok", exit_code=0), FAILED_PYTEST)
        [claim] = check_claims("pytest reports 3 passed.", facts, listed)
        assert not claim.checked and "exit 1" in claim.evidence


class TestReport:
    def test_report_from_observations_in_a_real_repository(self, repo):
        (repo / "README.md").write_text("# demo, edited before the run\n")  # not the run's doing
        plan = plan_file(repo)
        board = TaskBoard(plan, Ledger())
        builder = ReportBuilder(repo, plan, tasks=board)
        feed = ledger_feed(board.ledger)
        (repo / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef greet():\n    return 'hi'\n")
        (repo / "test_greet.py").write_text("from app import greet\n")
        events = [
            ev.StepStarted(1),
            tool_result("edit_file", changed=["app.py"]),
            tool_result("bash", command="pytest -q", exit_code=0, tests={"passed": 2}),
        ]
        for event in events:
            builder.observe(event)
            feed(event)
        board.update(1, "done", "")
        for event in [
            ev.StepStarted(2),
            ev.TextDelta("Added greet(). All tests pass. "),
            ev.TextDelta("Ran `make lint` too."),
            ev.Stopped("done", "the model finished its turn", 2),
        ]:
            builder.observe(event)
        report = builder.build()
        assert (report.status, report.ticked_this_run) == ("incomplete", 1)
        assert report.reason == "1 plan item not done: 2" and report.stopped == "done"
        assert [i.text for i in report.items_done] == ["Write greet()"]
        evidence = report.items_done[0].evidence
        assert evidence is not None and evidence.files == ["app.py"] and evidence.supported
        assert [i.number for i in report.items_left] == [2]
        assert [(c.command, c.exit_code, c.passed) for c in report.commands] == [("pytest -q", 0, True)]
        assert "app.py" in report.files_changed and "test_greet.py" in report.files_changed
        assert "README.md" not in report.files_changed and "README.md" not in report.diff_stat
        assert "app.py" in report.diff_stat
        claims = {c.kind: c.checked for c in report.claims}
        assert claims == {"tests pass": True, "command ran": False}
        data = json.loads(json.dumps(report.to_dict()))
        assert data["unchecked_claims"] == 1 and data["commands"][0]["passed"] is True and data["status"] == "incomplete"
        text = report.render_text()
        assert text.startswith("Result: incomplete (1 plan item not done: 2)\n")
        assert "Plan: 1/2 items done (1 this run)" in text and "[ ] 2. Add a test for greet()" in text
        assert "  [x] 1. Write greet()\n        evidence: `pytest -q` exit 0 (2 passed); app.py changed" in text
        assert 'UNCHECKED "Ran `make lint` too." — no command `make lint` was observed' in text
        assert "ok   `pytest -q` exit 0 (2 passed)" in text

    def test_outside_git_and_without_a_plan(self, tmp_path):
        builder = ReportBuilder(tmp_path)
        (tmp_path / "notes.txt").write_text("notes\n")
        builder.observe(tool_result("write_file", changed=["notes.txt"]))
        report = builder.build(final_text="Wrote notes.txt. All tests pass.")
        assert report.files_changed == ["notes.txt"] and report.diff_stat.splitlines()[0] == " notes.txt | 1 +"
        assert [(c.kind, c.checked) for c in report.claims] == [("file changed", True), ("tests pass", False)]
        assert "Files changed: 1" in report.render_text()

    def test_outside_git_a_snapshot_finds_what_changed_and_honours_ignores(self, tmp_path):
        (tmp_path / "shop").mkdir()
        (tmp_path / "shop" / "cart.py").write_text("total = 0\n")
        (tmp_path / "same.txt").write_text("same\n")
        (tmp_path / "gone.txt").write_text("bye\n")
        (tmp_path / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
        builder = ReportBuilder(tmp_path)
        (tmp_path / "shop" / "cart.py").write_text("total = 1\n")  # changed by a command, not reported by any tool
        (tmp_path / "same.txt").write_text("same\n")  # rewritten with the same bytes
        os.utime(tmp_path / "same.txt", ns=(1, 1))
        (tmp_path / "gone.txt").unlink()
        (tmp_path / "new.py").write_text("a\nb\n")
        for ignored in (
            "run.log",
            "build/out.o",
            ".pytest_cache/v/cache/lastfailed",
            "__pycache__/x.pyc",
            ".cast/sessions/s/t.jsonl",
        ):
            (tmp_path / ignored).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / ignored).write_text("x")
        (tmp_path / "keep.log").write_text("kept\n")
        report = builder.build("")
        assert report.files_changed == ["gone.txt", "keep.log", "new.py", "shop/cart.py"]
        assert " shop/cart.py | 2 +-" in report.diff_stat and " gone.txt     | 1 -" in report.diff_stat
        assert report.files_capped == ""

    def test_the_snapshot_says_when_it_was_capped(self, tmp_path):
        from cast.agent.found_tree import Found
        from cast.tools.snapshot import Snapshot

        for n in range(5):
            (tmp_path / f"f{n}.txt").write_text("x")
        snap = Snapshot.take(tmp_path, limit=3)
        (tmp_path / "f0.txt").write_text("changed")
        rows, capped = snap.changes()
        assert capped and rows == [("f0.txt", "modified")]
        builder = ReportBuilder(tmp_path, found=Found(None, snap))
        assert (
            builder.build("")
            .render_text()
            .endswith(
                "Files changed: 1\n   f0.txt | 2 +-\n   1 file changed, 1 insertion(+), 1 deletion(-)\n"
                "  [snapshot capped at 3 files: changes past them are not listed]"
            )
        )


class TestTicks:
    PLAN = "# Plan\n- [ ] Fix `add` in `calc.py`\n  - verify: `python3 -m unittest` shows 3 passing\n- [ ] Tidy up\n- [ ] Run `make check`\n"

    def board(self, tmp_path) -> TaskBoard:
        path = tmp_path / "plan.md"
        path.write_text(self.PLAN)
        return TaskBoard(path, Ledger())

    def test_items_name_their_verification(self, tmp_path):
        board = self.board(tmp_path)
        assert [board.checks(n) for n in (1, 2, 3)] == [["python3 -m unittest"], [], ["make check"]]

    def test_a_tick_needs_evidence_since_the_item_started(self, tmp_path):
        board = self.board(tmp_path)
        board.ledger.add(Ran("echo before", 0))
        board.update(2, "in_progress", "")
        board.ledger.add(Declined("rm -rf build", "the user declined"))
        with pytest.raises(ToolError) as refused:
            board.update(2, "done", "")
        assert (
            "task 2 not ticked: no file was changed and no command succeeded since it started "
            "(`rm -rf build` declined (the user declined))" in str(refused.value)
        )
        assert board.remaining()[0][0] == 1 and len(board.remaining()) == 3
        text = board.update(2, "done", "nothing needed tidying")
        assert "ticked without evidence: no file was changed" in text and "note: nothing needed tidying" in text
        found = board.evidence_for("Tidy up")
        assert found is not None and found.supported is False

    def test_a_named_verification_must_have_passed_on_its_last_run(self, tmp_path):
        board = self.board(tmp_path)
        board.update(1, "in_progress", "")
        board.ledger.add(Edited("calc.py"), ("calc.py",), "edit_file")
        board.ledger.add(Ran("python3 -m unittest", 1, {"passed": 2, "failed": 1}))
        with pytest.raises(
            ToolError, match=r"the last run of the verification `python3 -m unittest` exit 1 \(2 passed, 1 failed\)"
        ):
            board.update(1, "done", "")
        board.ledger.add(Ran("cd . && python3 -m unittest", 0, {"passed": 3}))
        assert "evidence: `python3 -m unittest` exit 1" in board.update(1, "done", "")
        found = board.evidence_for("Fix `add` in `calc.py`")
        assert found is not None and found.to_dict() == {
            "commands": ["`python3 -m unittest` exit 1 (2 passed, 1 failed)", "`cd . && python3 -m unittest` exit 0 (3 passed)"],
            "files": ["calc.py"],
            "checks": ["python3 -m unittest"],
            "supported": True,
            "missing": "",
            "note": "",
        }

    def test_a_verification_that_never_ran_is_missing(self, tmp_path):
        board = self.board(tmp_path)
        board.ledger.add(Ran("echo make check", 0))
        with pytest.raises(ToolError, match="the plan names `make check` as its verification and it was not run"):
            board.update(3, "done", "")

    def test_final_text_is_the_last_assistant_message(self):
        messages = [
            {"role": "assistant", "content": [{"type": "text", "text": "first"}]},
            {"role": "user", "content": [{"type": "text", "text": "more"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "last"}]},
        ]
        assert final_text(messages) == "last"


def test_the_report_lines_up_its_commands_whatever_kept_one_from_running():
    """ok, FAIL, declined, interrupted: one column, so every command starts where the others do."""
    from cast.agent.report import Report
    from cast.tools.evidence import CommandRun

    runs = [CommandRun("make", 0), CommandRun("make test", 2), CommandRun("rm -rf build", None, outcome="declined")]
    lines = Report(commands=[*runs, CommandRun("sleep 9", None, outcome="interrupted")]).command_lines()[1:]
    assert len({line.index("`") for line in lines}) == 1, lines
    assert lines[0] == "  ok          `make` exit 0" and lines[3].startswith("  interrupted `sleep 9`")
    assert Report(commands=runs[:1]).command_lines()[1] == "  ok   `make` exit 0"  # ok and FAIL alone: as before
