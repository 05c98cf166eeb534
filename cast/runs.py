"""Assemble a run: workspace, config, model, mode and tools wired into an Agent.

This is the only place that knows how the parts fit; the CLI and the REPL both call it, so a
one-shot run and an interactive one are the same machine with different front-ends.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterator

from cast.agent import events as ev
from cast.agent.loop import Agent, Hooks
from cast.config import Config, load
from cast.models.base import Model
from cast.modes import EXECUTE, MODES, PLAN, Mode, system_prompt
from cast.safety.approval import ApprovalPolicy, Approver
from cast.tools.base import ToolContext
from cast.tools.tasks import TaskBoard
from cast.workspace import Workspace


@dataclass
class Options:
    """What the command line (or the REPL) may override."""

    model: str | None = None
    max_steps: int | None = None
    json: bool = False
    yes: bool = False
    cwd: Path | None = None
    approver: Approver | None = None  # asks the user; None means nobody can be asked


@dataclass
class Run:
    workspace: Workspace
    config: Config
    mode: Mode
    agent: Agent
    session_id: str
    options: Options = field(default_factory=Options)

    @property
    def ctx(self) -> ToolContext:
        return self.agent.ctx

    @property
    def tasks(self) -> TaskBoard | None:
        return self.ctx.services.get("tasks")


def setup(options: Options) -> tuple[Workspace, Config]:
    workspace = Workspace.discover(options.cwd)
    config = load(workspace.root, model=options.model, max_steps=options.max_steps)
    return workspace, config


def make_model(spec: str, config: Config) -> Model:
    from cast.models.registry import resolve

    return resolve(spec, config)


def _agent(mode: Mode, workspace: Workspace, config: Config, ctx: ToolContext, model: Model | None) -> Agent:
    return Agent(
        model=model or make_model(config.model_for(mode.name), config),
        tools=mode.tools, system=system_prompt(mode, workspace), ctx=ctx,
        max_steps=config.max_steps, max_tokens=config.max_tokens, hooks=Hooks(),
    )


def _approval(options: Options, config: Config, workspace: Workspace) -> ApprovalPolicy:
    return ApprovalPolicy(allow=config.allow, yes=options.yes, approver=options.approver, workspace_root=str(workspace.root))


def plan_run(task: str, options: Options, model: Model | None = None) -> Run:
    from cast.plans.store import new_session_id

    workspace, config = setup(options)
    session_id = new_session_id(workspace.root, task or "plan", date.today())
    ctx = ToolContext(workspace=workspace, task=task, services={"session_id": session_id})
    return Run(workspace, config, PLAN, _agent(PLAN, workspace, config, ctx, model), session_id, options)


def execute_run(plan_ref: str | None, options: Options, model: Model | None = None) -> Run:
    """A run whose task list is the plan's checklist; ticked items are skipped."""
    from cast.plans.store import find_plan, parse_front_matter

    workspace, config = setup(options)
    plan_path = find_plan(workspace.root, plan_ref)
    meta = parse_front_matter(plan_path.read_text(encoding="utf-8", errors="replace"))
    board = TaskBoard(plan_path)
    session_id = meta.get("session") or plan_path.parent.name
    ctx = ToolContext(
        workspace=workspace, task=meta.get("task", ""),
        services={"session_id": session_id, "plan_path": plan_path, "tasks": board,
                  "approval": _approval(options, config, workspace)},
    )
    agent = _agent(EXECUTE, workspace, config, ctx, model)
    agent.hooks = Hooks(after_tools=_watch_tasks(board), on_finish=_unticked_check(board))
    return Run(workspace, config, EXECUTE, agent, session_id, options)


def execute_brief(run: Run) -> str:
    """The executor's first message: the plan as it is on disk now, and where to pick up."""
    board = run.tasks
    assert board is not None
    plan_text = board.plan.path.read_text(encoding="utf-8", errors="replace")
    left = board.remaining()
    done = len(board.rows()) - len(left)
    where = f"Items already ticked ({done}) are done: skip them. Start with item {left[0][0]}." if left else "Every item is ticked."
    return (
        f"Execute this plan. Its checklist is your task list; task ids are item numbers.\n\n"
        f"<plan path=\"{board.plan.path.relative_to(run.workspace.root)}\">\n{plan_text}\n</plan>\n\n"
        f"Task list:\n{board.listing()}\n\n{where}"
    )


def task_event(board: TaskBoard) -> ev.TaskUpdate:
    return ev.TaskUpdate(tuple(ev.Task(n, text, status, note) for n, text, status, note in board.rows()))


def _watch_tasks(board: TaskBoard) -> Callable[[Agent], Iterator[ev.Event]]:
    seen = [-1]

    def after_tools(agent: Agent) -> Iterator[ev.Event]:
        changes = board.sync()
        if changes:
            agent.transcript.note(
                "[cast: the user edited the plan file while you work: " + "; ".join(changes)
                + f". The task list is now:\n{board.listing()}\nFollow the plan as it is now.]"
            )
            yield ev.Notice("plan edited: " + "; ".join(changes))
        if board.version != seen[0]:
            seen[0] = board.version
            yield task_event(board)

    return after_tools


def _unticked_check(board: TaskBoard) -> Callable[[Agent], str | None]:
    """Deterministic part of the self-check: the model may not finish with items left unticked
    without being told once."""
    asked = [False]

    def on_finish(agent: Agent) -> str | None:
        board.sync()
        left = [row for row in board.remaining() if row[2] != "blocked"]
        if not left or asked[0]:
            return None
        asked[0] = True
        items = "\n".join(f"{n}. {text}" for n, text, _, _ in left)
        return f"[cast: you stopped, but these plan items are not done:\n{items}\nContinue with them, or mark one blocked with a note if it cannot be done.]"

    return on_finish


def switch_mode(run: Run, name: str) -> Run:
    """Swap the tool set and prompt; the conversation goes on and the model is told."""
    mode = MODES[name]
    if name == "execute" and "approval" not in run.ctx.services:
        run.ctx.services["approval"] = _approval(run.options, run.config, run.workspace)
    run.agent.set_mode(mode.tools, system_prompt(mode, run.workspace), f"[cast: switched to {name} mode by the user. Your tools changed accordingly.]")
    run.mode = mode
    return run


def run_state(run: Run) -> dict[str, Any]:
    board = run.tasks
    return {"session": run.session_id, "mode": run.mode.name, "tasks": board.rows() if board else []}
