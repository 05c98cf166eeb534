"""Observers read what a tool call did from its typed result, never from the tool's name or the
words of its text: a renamed tool is still checkpointed, an interrupted command is recorded as
interrupted whatever its output says, and one ledger serves the whole run."""

from __future__ import annotations

from pathlib import Path

from conftest import make_agent, run_all

from cast import runs
from cast.agent import events as ev
from cast.agent.observed import Observations
from cast.checkpoints.journal import Journal
from cast.checkpoints.recorder import Recorder
from cast.models.scripted import ScriptedModel
from cast.options import Options
from cast.tools.base import CommandParams, Observation, Params, Tool, ToolError, run_tool
from cast.tools.evidence import Ledger
from cast.tools.results import Declined, Edited, Ran, TaskUpdated


class PathParams(Params):
    path: str


def test_a_renamed_writing_tool_is_still_checkpointed(tmp_path):
    (tmp_path / "a.txt").write_text("before\n")
    journal = Journal(tmp_path)
    recorder = Recorder(journal, "s1", tmp_path / "plan.md", lambda n: f"item {n}")
    recorder.observe(ev.StepStarted(1))
    recorder.observe(ev.ToolCall("c0", "peek", {"path": "a.txt"}))  # a call that writes nothing: no probe
    recorder.observe(ev.ToolResult("c0", "peek", True, "", "before\n"))
    recorder.observe(ev.ToolCall("c1", "apply_patch", {"path": "a.txt"}, writes="path"))
    (tmp_path / "a.txt").write_text("after\n")
    recorder.observe(ev.ToolResult("c1", "apply_patch", True, "", "", ("a.txt",), result=Edited("a.txt")))
    recorder.observe(ev.ToolResult("c2", "progress", True, "", "", result=TaskUpdated(1, "in_progress")))
    kinds = [(r["kind"], r.get("call"), r["item"]) for r in journal.records()]
    assert kinds == [("probe", None, None), ("probe", "apply_patch", None), ("cast", None, None), ("item", None, 1)]
    before, after = journal.records()[1]["tree"], journal.records()[2]["tree"]
    assert [c.path for c in journal.shadow.changes(before, after)] == ["a.txt"]


def interrupting(name: str) -> Tool:
    def execute(args: CommandParams, ctx) -> Observation:
        raise KeyboardInterrupt

    return Tool(name, "runs a command", CommandParams, execute)


def test_an_interrupted_command_is_recorded_as_interrupted_through_its_typed_result(tmp_path):
    turn = {"tool_uses": [{"name": "sh", "input": {"command": "sleep 60"}}, {"name": "sh", "input": {"command": "make"}}]}
    agent, _ = make_agent(tmp_path, [turn], [interrupting("sh")])
    seen = Observations()
    for event in run_all(agent):
        seen.observe(event)
    assert [(c.command, c.outcome, c.reason) for c in seen.commands] == [
        ("sleep 60", "interrupted", ""),  # Ctrl+C while it ran
        ("make", "interrupted", "not run"),
    ]
    ledger = Ledger()
    ledger.add(Ran("pytest -q", -2, interrupted=True))  # killed by Ctrl+C: its output need not say so
    assert ledger.commands[0].outcome == "interrupted" and ledger.commands[0].label == "interrupted"


def test_a_declined_command_is_recorded_from_its_result_whatever_the_tool_is_called(tmp_path):
    def execute(args: CommandParams, ctx) -> Observation:
        raise ToolError("refused: rm deletes files. It cannot be undone.", Declined(args.command, "refused: rm deletes files"))

    obs = run_tool(Tool("shell", "", CommandParams, execute), {"command": "rm -rf build"}, None)  # type: ignore[arg-type]
    ledger = Ledger()
    ledger.add(obs.result)
    assert [(c.command, c.label, c.reason) for c in ledger.commands] == [
        ("rm -rf build", "declined", "refused: rm deletes files")
    ]
    ledger.add(Observation("exit_code=0\n[interrupted by user]").result)  # words in a text are not a command
    assert len(ledger.commands) == 1


def test_the_json_stream_carries_the_typed_result():
    event = ev.ToolResult("c1", "bash", True, "exit_code=1", "exit_code=1", result=Ran("pytest", 1, {"failed": 1}))
    assert ev.to_json(event)["result"] == {
        "type": "ran", "command": "pytest", "exit_code": 1, "tests": {"failed": 1}, "timed_out": False, "interrupted": False,
        "sandbox": "", "approval": "", "verified": True, "sandbox_denied": "",
    }  # fmt: skip


def test_one_ledger_serves_the_task_list_the_report_and_the_self_check(repo: Path):
    plan = repo / ".cast" / "plans" / "2026-01-01-fix" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Run `true`\n")
    turns = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
        {"tool_uses": [{"name": "bash", "input": {"command": "true"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"text": "Done."},
        {"text": '{"complete": true, "missing": [], "claims": []}'},
    ]
    run = runs.execute_run("2026-01-01-fix", Options(cwd=repo, yes=True), model=ScriptedModel(turns))
    run.execute(lambda event: None)
    board, check = run.tasks, run.agent.hooks.on_finish
    assert board is not None and run.report is not None
    assert run.report.obs.ledger is board.ledger and check.obs.ledger is board.ledger  # type: ignore[attr-defined]
    assert [(c.command, c.label) for c in board.ledger.commands] == [("true", "ok")]  # fed once, not twice
    found = board.evidence_for("Run `true`")
    assert found is not None and found.commands == ["`true` exit 0"]


def test_cast_verify_judges_a_command_as_the_runs_ledger_does(repo: Path):
    """Exit 0 with failing tests in its output is no pass, for a re-check as for a tick."""
    from cast.safety.approval import ApprovalPolicy
    from cast.tools.base import Sandbox, ToolContext
    from cast.verify import FAIL, PASS, verify
    from cast.workspace import Workspace

    plan = repo / "plan.md"
    plan.write_text(
        "# Plan\n\n- [x] Check with `bash -c 'echo 1 failed, 2 passed'`\n- [x] Check with `bash -c 'echo 3 passed'`\n"
    )
    ctx = ToolContext(workspace=Workspace(repo), sandbox=Sandbox(approval=ApprovalPolicy(yes=True, workspace_root=str(repo))))
    first, second = verify(plan, ctx)
    assert (first.status, second.status) == (FAIL, PASS), (first.reasons, second.reasons)
    assert first.commands[0]["exit_code"] == 0
