"""Assemble a run: workspace, config, model, mode and tools wired into an Agent.

This is the only place that knows how the parts fit; the CLI and the REPL both call it, so a
one-shot run and an interactive one are the same machine with different front-ends. What a built
run can do (turns, execution, switches, its end) is `cast.run.Run`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from cast import conversation, extensions
from cast.agent.asking import Announced
from cast.agent.found_tree import Taking
from cast.agent.loop import Agent
from cast.agent.transcript import Prefix
from cast.config import Config, load
from cast.extensions import Extension, Setup
from cast.models.base import Model
from cast.models.registry import resolve
from cast.modes import EXECUTE, PLAN, Mode, system_prompt
from cast.options import Options as Options  # front-ends build runs with it
from cast.plans.checklist import PlanError, validate
from cast.plans.revisions import Revisions
from cast.plans.store import find_plan, new_session_id, parse_front_matter
from cast.run import Run as Run
from cast.run_approval import approval_for as approval_for  # cast verify builds its context with it
from cast.run_approval import questions
from cast.sandbox import limits as sandbox_limits
from cast.session_list import execute_id, executing, list_sessions
from cast.session_records import SessionError
from cast.sessions import Session, valid_id
from cast.sessions import load as load_session
from cast.tools.base import Sandbox, ToolContext
from cast.tools.evidence import Ledger
from cast.tools.plan import RunPlan
from cast.tools.registry import Registry, RegistryError, builtin
from cast.tools.tasks import TaskBoard
from cast.watchers import instrument
from cast.workspace import Workspace, refuse_broad


def setup(options: Options) -> tuple[Workspace, Config]:
    refuse_broad(options.cwd)
    workspace = Workspace.discover(options.cwd)
    config = load(workspace.root, model=options.model, max_steps=options.max_steps)
    sandbox_limits.configure(config.sandbox_env_passthrough, config.sandbox_limits)
    return workspace, config


def make_model(spec: str, config: Config) -> Model:
    return resolve(spec, config)


@dataclass
class _Parts:
    """What a run is made of besides its model: its tools (built-in and the extensions'), the
    extensions themselves, and the mode it starts in over those tools."""

    registry: Registry
    extensions: list[Extension]
    mode: Mode
    plan: RunPlan
    sections: tuple[str, ...] = ()
    notices: list[str] = field(default_factory=list)
    requests: Callable[[Any], Any] | None = None


def _parts(
    workspace: Workspace,
    config: Config,
    options: Options,
    mode: Mode,
    ctx: ToolContext,
    plan: RunPlan,
    *,
    extend: bool = True,
    tree: Taking | None = None,
) -> _Parts:
    """Build the run's tools (write_plan and update_task on its `plan`) and extensions, and register
    the extensions' tools, before anything is declared to the model. `extend=False`: a run that is
    never driven (nothing left to execute) starts none. `tree`: the starting tree being recorded,
    which an extension waits for before it starts a process."""
    registry = builtin(plan)
    before = tree.result if tree is not None else None
    setup = Setup(workspace, config, options, mode.name, _requests(options), ctx=ctx, before_processes=before)
    joined = extensions.start(setup) if extend else []
    for extension in list(joined):
        try:
            for tool in extension.tools():
                registry.add(tool)
        except RegistryError as exc:
            setup.notice(f"{extension.name}: {exc}; its tools are left out")
            joined.remove(extension)
            extensions.close_all([extension])
    registry.freeze()
    return _Parts(registry, joined, mode.over(registry), plan, tuple(e.prefix() for e in joined), setup.notices, setup.requests)


def _announced(options: Options) -> Options:
    """This run's options with its approver announced: a copy, since the REPL's options (and
    their approver) outlive the run."""
    return replace(options, approver=questions(options))


def _requests(options: Options) -> Callable[[Any], Any] | None:
    """The request channel (`ToolContext.ask`): the run's announced approver, or nobody."""
    return options.approver.put if isinstance(options.approver, Announced) else None


def _agent(parts: _Parts, workspace: Workspace, config: Config, ctx: ToolContext, model: Model | None) -> Agent:
    mode = parts.mode
    model, ctx.sandbox.plan_commands = model or make_model(config.model_for(mode.name), config), config.plan_commands
    ctx.requests = parts.requests
    agent = Agent(
        model=model,
        tools=mode.tools,
        system=system_prompt(workspace, parts.sections),
        ctx=ctx,
        max_steps=config.max_steps,
        max_tokens=config.max_tokens,
        effort=conversation.effort(config, mode, model),
    )
    agent.notes.extend(parts.notices)
    return agent


def _run(
    parts: _Parts, workspace: Workspace, config: Config, agent: Agent, session_id: str, options: Options, ledger: Ledger
) -> Run:
    """The run, owning `ledger`: the one record of what it observes, made by the builder (an
    execute run's board was handed the same one), so either mode's run owns it the same way."""
    questions = options.approver if isinstance(options.approver, Announced) else None
    return Run(
        workspace,
        config,
        parts.mode,
        agent,
        session_id,
        options,
        plan=parts.plan,
        registry=parts.registry,
        extensions=parts.extensions,
        questions=questions,
        ledger=ledger,
    )


def plan_run(task: str, options: Options, model: Model | None = None) -> Run:
    workspace, config = setup(options)
    tree = Taking(workspace.root)  # git's processes run while the run is built and its first request goes out
    options = _announced(options)
    session_id = new_session_id(workspace.root, task or "plan", date.today())
    ctx = ToolContext(workspace=workspace, session_id=session_id)
    parts = _parts(workspace, config, options, PLAN, ctx, RunPlan(session_id, task), tree=tree)
    run = _run(parts, workspace, config, _agent(parts, workspace, config, ctx, model), session_id, options, Ledger())
    session = Session.create(workspace.root, session_id, mode="plan", task=task, model=run.agent.model.name)
    run = instrument(run, session, found=tree)
    conversation.start(run.agent, run.config, run.mode)
    return run


def bind_revision(board: TaskBoard, root: Path, options: Options) -> None:
    """Starting a run approves the plan as it is (the REPL hand-off showed it; `--revision` checked
    it); an edit since the last revision is the user's. A later change is confirmed before the next item."""
    board.revisions = Revisions(root, board.plan.path)
    board.approved = board.revisions.record("user")[0].id
    board.pinned = options.revision is not None
    approver = questions(options)
    board.confirm = approver.ask_revision if approver is not None else None


def execute_run(plan_ref: str | None, options: Options, model: Model | None = None) -> Run:
    """A run whose task list is the plan's checklist; ticked items are skipped."""

    workspace, config = setup(options)
    options = _announced(options)
    plan_path = find_plan(workspace.root, plan_ref).resolve()
    text = plan_path.read_text(encoding="utf-8", errors="replace")
    try:
        validate(text)
    except PlanError as exc:
        raise PlanError(f"{plan_path}: {exc}") from None
    meta = parse_front_matter(text)
    plan_session = next((s for s in (meta.get("session", ""), plan_path.parent.name) if valid_id(s)), "plan")
    session_id = execute_id(workspace.root, plan_session)
    board = TaskBoard(plan_path, Ledger())  # the run's one ledger, made here: _execute hands the same to the run
    if not board.remaining():
        # Nothing to do: the run is for reporting only, never driven, so it needs no model
        # (and no API key) and leaves no session behind.
        from cast.models.scripted import ScriptedModel  # deferred: only a run with nothing to do needs it

        return _execute(
            workspace,
            config,
            options,
            board,
            meta.get("task", ""),
            session_id,
            model or ScriptedModel([], name="(nothing to execute)"),
            extend=False,
        )
    for other, pid in executing(workspace.root, plan_path):  # two runs would work and tick the same items
        raise PlanError(
            f"{plan_path} is being executed by another cast (process {pid}, session {other}): wait for it or stop it; "
            "cast execute then goes on at the first unticked item"
        )
    tree = Taking(workspace.root)
    task = meta.get("task", "")
    run = _execute(workspace, config, options, board, task, session_id, model, tree=tree)
    session = Session.create(
        workspace.root, session_id, mode="execute", task=task, model=run.agent.model.name, plan_path=plan_path
    )
    run = instrument(run, session, found=tree)
    conversation.start(run.agent, run.config, run.mode)
    return run


def _execute(
    workspace: Workspace,
    config: Config,
    options: Options,
    board: TaskBoard,
    task: str,
    session_id: str,
    model: Model | None,
    *,
    extend: bool = True,
    tree: Taking | None = None,
) -> Run:
    bind_revision(board, workspace.root, options)
    ctx = ToolContext(
        workspace=workspace, session_id=session_id, sandbox=Sandbox(approval=approval_for(options, config, workspace))
    )
    plan = RunPlan(session_id, task, board.plan.path, board=board)
    parts = _parts(workspace, config, options, EXECUTE, ctx, plan, extend=extend, tree=tree)
    return _run(parts, workspace, config, _agent(parts, workspace, config, ctx, model), session_id, options, board.ledger)


def resume_run(session_id: str | None, options: Options, model: Model | None = None) -> Run:
    """Reopen a session on disk: its mode, its plan, its conversation (repaired if a crash left
    it unanswerable)."""

    workspace, config = setup(options)
    options = _announced(options)
    if session_id is None:
        found = list_sessions(workspace.root)
        if not found:
            raise SessionError("no sessions yet in this workspace")
        session_id = found[0].id
    meta, _ = load_session(workspace.root, session_id)
    if meta.get("status") == "running" and meta.get("pid") != os.getpid():
        raise SessionError(f"session {session_id} is still running (process {meta.get('pid')}); stop it first")
    session, messages = Session.resume(workspace.root, session_id)
    tree = Taking(workspace.root)
    recorded = session.prefix
    session.update(status=meta.get("status", "interrupted"))  # "running" only once a turn runs
    meta = session.meta
    plan_path = Path(meta["plan_path"]) if meta.get("plan_path") else None
    if meta.get("mode") == "execute" and plan_path is not None and plan_path.is_file():
        board = TaskBoard(plan_path, Ledger())
        board.recall(meta.get("evidence"))  # what the session's earlier ticks rested on: kept when the next tick is recorded
        run = _execute(workspace, config, options, board, meta.get("task", ""), session_id, model, tree=tree)
    else:
        ctx = ToolContext(workspace=workspace, session_id=session_id)
        parts = _parts(workspace, config, options, PLAN, ctx, RunPlan(session_id, meta.get("task", ""), plan_path), tree=tree)
        run = _run(parts, workspace, config, _agent(parts, workspace, config, ctx, model), session_id, options, Ledger())
    if meta.get("mode") == "execute" and run.mode.name == "plan":  # switched by hand, without a plan
        run.restore_mode("execute")
    run = instrument(run, session, messages, Prefix.from_record(recorded) if recorded else None, tree)
    if recorded is None:  # a session from before prefixes were recorded: this starts its record
        conversation.start(run.agent, run.config, run.mode)
    else:
        run.agent.transcript.fresh = conversation.fresh(run.agent, run.config, run.mode)
    return run
