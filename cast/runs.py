"""Assemble a run: workspace, config, model, mode and tools wired into an Agent.

This is the only place that knows how the parts fit; the CLI and the REPL both call it, so a
one-shot run and an interactive one are the same machine with different front-ends.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from cast import conversation
from cast.agent import events as ev
from cast.agent import tasklist
from cast.agent.context import ContextEconomy
from cast.agent.cost import UsageLog, price_for
from cast.agent.loop import Agent, Hooks
from cast.agent.observed import ledger_feed
from cast.agent.report import Report, ReportBuilder, final_text
from cast.agent.selfcheck import SelfCheck
from cast.agent.transcript import Message, Prefix, Transcript
from cast.checkpoints.journal import Journal
from cast.checkpoints.recorder import Recorder
from cast.config import Config, load
from cast.models.base import Model
from cast.modes import EXECUTE, MODES, PLAN, Mode, system_prompt
from cast.options import Options
from cast.safety.approval import ApprovalPolicy
from cast.sandbox import limits as sandbox_limits
from cast.sessions import Session, execute_id
from cast.sessions import load as load_session
from cast.tools.base import ToolContext
from cast.tools.tasks import TaskBoard
from cast.workspace import Workspace


@dataclass
class Run:
    workspace: Workspace
    config: Config
    mode: Mode
    agent: Agent
    session_id: str
    options: Options = field(default_factory=Options)
    session: Session | None = None  # the transcript on disk
    usage: UsageLog | None = None  # what the run spent, priced
    report: ReportBuilder | None = None
    idle_check: Callable[[Agent], str | None] | None = None  # the self-check, set aside while an execute run is in plan mode
    economy: ContextEconomy | None = None  # aging and compaction of this run's context
    checkpoints: Recorder | None = None  # execute runs: a checkpoint before each plan item

    @property
    def ctx(self) -> ToolContext:
        return self.agent.ctx

    @property
    def tasks(self) -> TaskBoard | None:
        return self.ctx.tasks


def setup(options: Options) -> tuple[Workspace, Config]:
    workspace = Workspace.discover(options.cwd)
    config = load(workspace.root, model=options.model, max_steps=options.max_steps)
    sandbox_limits.configure(config.sandbox_env_passthrough, config.sandbox_limits)
    return workspace, config


def make_model(spec: str, config: Config) -> Model:
    from cast.models.registry import resolve

    return resolve(spec, config)


def _agent(mode: Mode, workspace: Workspace, config: Config, ctx: ToolContext, model: Model | None) -> Agent:
    model = model or make_model(config.model_for(mode.name), config)
    return Agent(
        model=model,
        tools=mode.tools,
        system=system_prompt(workspace),
        ctx=ctx,
        max_steps=config.max_steps,
        max_tokens=config.max_tokens,
        effort=conversation.effort(config, mode, model),
    )


def _approval(options: Options, config: Config, workspace: Workspace) -> ApprovalPolicy:
    return ApprovalPolicy(
        allow=config.allow,
        yes=options.yes,
        approver=options.approver,
        workspace_root=str(workspace.root),
        sandbox=config.sandbox,
        sandbox_network=config.sandbox_network,
    )


def plan_run(task: str, options: Options, model: Model | None = None) -> Run:
    from cast.plans.store import new_session_id

    workspace, config = setup(options)
    session_id = new_session_id(workspace.root, task or "plan", date.today())
    ctx = ToolContext(workspace=workspace, task=task, session_id=session_id)
    run = Run(workspace, config, PLAN, _agent(PLAN, workspace, config, ctx, model), session_id, options)
    run = _instrument(run, Session.create(workspace.root, session_id, mode="plan", task=task, model=run.agent.model.name))
    conversation.start(run.agent, run.config, run.mode)
    return run


def execute_run(plan_ref: str | None, options: Options, model: Model | None = None) -> Run:
    """A run whose task list is the plan's checklist; ticked items are skipped."""
    from cast.plans.store import find_plan, parse_front_matter

    workspace, config = setup(options)
    plan_path = find_plan(workspace.root, plan_ref).resolve()
    meta = parse_front_matter(plan_path.read_text(encoding="utf-8", errors="replace"))
    plan_session = meta.get("session") or plan_path.parent.name
    session_id = execute_id(workspace.root, plan_session)
    board = TaskBoard(plan_path)
    if not board.remaining():
        # Nothing to do: the run is for reporting only, never driven, so it needs no model
        # (and no API key) and leaves no session behind.
        from cast.models.scripted import ScriptedModel

        return _execute(
            workspace,
            config,
            options,
            board,
            meta.get("task", ""),
            session_id,
            model or ScriptedModel([], name="(nothing to execute)"),
        )
    run = _execute(workspace, config, options, board, meta.get("task", ""), session_id, model)
    session = Session.create(
        workspace.root, session_id, mode="execute", task=run.ctx.task, model=run.agent.model.name, plan_path=plan_path
    )
    run = _instrument(run, session)
    conversation.start(run.agent, run.config, run.mode)
    return run


def _execute(
    workspace: Workspace, config: Config, options: Options, board: TaskBoard, task: str, session_id: str, model: Model | None
) -> Run:
    ctx = ToolContext(
        workspace=workspace,
        task=task,
        session_id=session_id,
        plan_path=board.plan.path,
        tasks=board,
        approval=_approval(options, config, workspace),
    )
    agent = _agent(EXECUTE, workspace, config, ctx, model)
    return Run(workspace, config, EXECUTE, agent, session_id, options)


def resume_run(session_id: str | None, options: Options, model: Model | None = None) -> Run:
    """Reopen a session on disk: its mode, its plan, its conversation (repaired if a crash left
    it unanswerable)."""
    from cast.sessions import SessionError, list_sessions

    workspace, config = setup(options)
    if session_id is None:
        found = list_sessions(workspace.root)
        if not found:
            raise SessionError("no sessions yet in this workspace")
        session_id = found[0].id
    meta, _ = load_session(workspace.root, session_id)
    if meta.get("status") == "running" and meta.get("pid") != os.getpid():
        raise SessionError(f"session {session_id} is still running (process {meta.get('pid')}); stop it first")
    session, messages = Session.resume(workspace.root, session_id)
    recorded = session.prefix
    session.update(status=meta.get("status", "interrupted"))  # "running" only once a turn runs
    meta = session.meta
    plan_path = Path(meta["plan_path"]) if meta.get("plan_path") else None
    if meta.get("mode") == "execute" and plan_path is not None and plan_path.is_file():
        run = _execute(workspace, config, options, TaskBoard(plan_path), meta.get("task", ""), session_id, model)
    else:
        ctx = ToolContext(workspace=workspace, task=meta.get("task", ""), session_id=session_id, plan_path=plan_path)
        run = Run(workspace, config, PLAN, _agent(PLAN, workspace, config, ctx, model), session_id, options)
    if meta.get("mode") == "execute" and run.mode is PLAN:  # switched by hand, without a plan
        run.mode = EXECUTE
        run.agent.tools, run.agent.effort = EXECUTE.tools, conversation.effort(config, EXECUTE, run.agent.model)
        if run.ctx.approval is None:
            run.ctx.approval = _approval(options, config, workspace)
    run = _instrument(run, session, messages, Prefix.from_record(recorded) if recorded else None)
    if recorded is None:  # a session from before prefixes were recorded: this starts its record
        conversation.start(run.agent, run.config, run.mode)
    else:
        run.agent.transcript.fresh = conversation.fresh(run.agent, run.config, run.mode)
    return run


def _instrument(run: Run, session: Session, messages: list[Message] | None = None, prefix: Prefix | None = None) -> Run:
    """Attach what watches a run: the session file, the usage log and price, context economy,
    the self-check (execute), and the evidence report."""
    agent, config, board = run.agent, run.config, run.tasks
    plan_path = run.ctx.plan_path
    price = price_for(config, agent.model.name)
    if board is not None:  # before the report's baseline: creating the store adds a line to .cast/.gitignore
        run.checkpoints = Recorder(
            Journal(run.workspace.root),
            run.session_id,
            board.plan.path,
            lambda n: next((t for k, t, *_ in board.rows() if k == n), ""),
            lambda: run.mode is EXECUTE,
            lambda: [k for k, _, status, _ in board.rows() if status == "done"],
        )
    run.session, run.usage = session, UsageLog(price)
    run.report = ReportBuilder(run.workspace.root, plan_path, tasks=board)
    agent.transcript = Transcript(messages, on_append=session.append, prefix=prefix)
    economy = ContextEconomy.from_config(config, agent.model, reinject=lambda: _state_for_model(run), on_usage=run.usage.add)
    run.economy = economy
    hooks = Hooks(
        prepare=economy,
        compact=economy.compact,
        price=price,
        observers=[economy.observe, run.usage.observe, session.observe, run.report.observe, _plan_recorder(session)],
    )
    if board is not None:
        check = SelfCheck(agent.model, task=run.ctx.task, plan_path=plan_path, on_usage=run.usage.add)
        hooks.after_tools, hooks.on_finish = tasklist.watch(board), check
        hooks.observers += [check.observe, ledger_feed(board.ledger)]  # what each tick can rest on
        board.on_evidence = lambda evidence: session.update(evidence=evidence)
        if run.checkpoints is not None:
            hooks.observers.insert(0, run.checkpoints.observe)
    agent.hooks = hooks
    return run


def _plan_recorder(session: Session) -> Callable[[ev.Event], None]:
    """Remember in the session which plan it wrote, so a resume can find it again, and mark it
    running while a turn runs (a reopened session that never ran keeps its status)."""

    def observe(event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted) and event.step == 1 and session.meta.get("status") != "running":
            session.update(status="running", pid=os.getpid())
        elif isinstance(event, ev.ToolResult) and event.ok and event.facts.get("plan_path"):
            if session.meta.get("plan_path") != event.facts["plan_path"]:
                session.update(plan_path=event.facts["plan_path"])

    return observe


def set_model(run: Run, model: Model) -> None:
    """Use another model from the next request on: the loop, compaction, the self-check and the
    price all follow, so the books and the checks stay about the model actually used."""
    run.agent.model = model
    hooks = run.agent.hooks
    for part in (hooks.prepare, hooks.on_finish, run.idle_check):
        if part is not None and hasattr(part, "model"):
            part.model = model
    price = price_for(run.config, model.name)
    hooks.price = price
    if run.usage is not None:
        run.usage.price = price
    if run.session is not None:
        run.session.update(model=model.name)


def _state_for_model(run: Run) -> str:
    """What compaction puts back after the summary: the plan and the task list, read from disk."""
    plan_path = run.ctx.plan_path
    if plan_path is None or not plan_path.is_file():
        return ""
    text = f"The plan file {plan_path}, as it is on disk now:\n{plan_path.read_text(encoding='utf-8', errors='replace')}"
    if run.tasks is not None:
        text += f"\n\nTask list:\n{run.tasks.listing()}"
    return text


def finish(run: Run) -> Report | None:
    """Close the run's books: the evidence report, the session's final cost."""
    if run.session is not None and run.usage is not None:
        run.session.update(cost=round(run.usage.total_cost(), 6))
        run.session.close()
    if run.report is None:
        return None
    if run.report.plan_path is None and run.ctx.plan_path is not None:
        run.report.plan_path = run.ctx.plan_path  # written during this run
    final = final_text(run.agent.transcript.messages)
    check = run.agent.hooks.on_finish or run.idle_check
    listed = check.claims_for(final) if isinstance(check, SelfCheck) else None
    report = run.report.build(final, listed)
    if run.checkpoints is not None:
        report.by_item, report.notes = run.checkpoints.item_stats(), report.notes + run.checkpoints.notes()
    if run.session is not None and report.status != report.stopped and report.stopped == "done":
        run.session.update(status=report.status, reason=report.reason)  # the facts' word, not the loop's
    return report


# -- the run lifecycle: every front-end (one-shot CLI, plain, REPL) goes through these ----------

Handler = Callable[[ev.Event], None]


@dataclass(frozen=True)
class Outcome:
    """How a run ended, decided once from facts: the front-ends only show it."""

    status: str  # the loop's stop status, or "incomplete" / "plan missing" / "tests failing" / "no plan" from the facts
    reason: str
    code: int  # the process exit code: 0 done, 1 stopped or failed, 2 usage/configuration
    report: Report | None


def exit_code(stopped: ev.Stopped) -> int:
    """A turn that failed on the model carries the model's own code (2 for a missing key)."""
    return int(stopped.details.get("exit_code") or stopped.exit_code)


def turn(run: Run, message: str | None, handle: Handler) -> ev.Stopped:
    """One user turn of `run`, every event handed to the front-end; Ctrl+C becomes a clean stop."""
    from cast.agent.loop import drive

    return drive(run.agent, run.agent.run(message), handle)


def execute_turn(run: Run, handle: Handler) -> ev.Stopped:
    """Start (or resume) executing the plan: show the task list, brief the executor, run."""
    board = run.tasks
    assert board is not None, "execute_turn needs an execute run"
    handle(tasklist.task_event(board))
    return turn(run, execute_brief(run), handle)


def has_work(run: Run) -> bool:
    """False for an execute run whose plan has every item ticked."""
    return run.tasks is None or bool(run.tasks.remaining())


def conclude(run: Run, stopped: ev.Stopped, *, plan_required: bool = False) -> Outcome:
    """The end of a run: its exit code from the facts (a plan that was asked for and not written,
    items left unticked), then the books closed and the evidence report built."""
    code, status, reason = exit_code(stopped), stopped.status, stopped.reason
    if plan_required and run.ctx.plan_path is None:
        code, status, reason = code or 1, "no plan", "no plan was written"
    board = run.tasks
    left = board.remaining() if board is not None else []
    if left and code == 0:
        numbers = ", ".join(str(n) for n, *_ in left)
        code, status, reason = 1, "incomplete", f"{len(left)} plan item{'' if len(left) == 1 else 's'} not done: {numbers}"
    report = finish(run)
    if report is not None and report.stopped == "done" and report.status != "done":  # the plan, the tests: see report.py
        code, status, reason = code or 1, report.status, report.reason
    outcome = Outcome(status, reason, code, report)
    if run.session is not None:
        run.session.discard_if_unused()  # a run that failed before any reply leaves no session
    return outcome


def execute_brief(run: Run) -> str:
    """The executor's first message: the plan as it is on disk now, and where to pick up."""
    assert run.tasks is not None
    return tasklist.brief(run.tasks, run.workspace.root)


def switch_mode(run: Run, name: str) -> Run:
    """Another mode, in the same conversation and without changing anything already sent (see
    `conversation.switch`)."""
    mode = MODES[name]
    if name == "execute" and run.ctx.approval is None:
        run.ctx.approval = _approval(run.options, run.config, run.workspace)
    conversation.switch(run.agent, run.config, run.mode, mode)
    hooks = run.agent.hooks  # the executor's self-check is for execute mode: never after plan-mode chat
    if name == "plan" and hooks.on_finish is not None:
        run.idle_check, hooks.on_finish = hooks.on_finish, None
    elif name == "execute" and hooks.on_finish is None and run.idle_check is not None:
        hooks.on_finish, run.idle_check = run.idle_check, None
    run.mode = mode
    if run.session is not None:
        run.session.update(mode=name)
    return run
