"""What watches a run once `cast.runs` has built it: the session file and its figures, the run's
usage book, context economy, checkpoints, the self-check and the task board's hooks (execute), and
the evidence report. Apart from the assembly because none of it decides what a run is made of: it
only listens to the loop's events and keeps their record.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from cast.agent import events as ev
from cast.agent import tasklist
from cast.agent.context import ContextEconomy
from cast.agent.cost import UsageLog, price_for
from cast.agent.found_tree import Taking
from cast.agent.gate import Gates
from cast.agent.loop import Hooks
from cast.agent.observed import ledger_feed
from cast.agent.report import ReportBuilder
from cast.agent.transcript import Message, Prefix, Transcript
from cast.models.base import Usage
from cast.run import Run
from cast.sessions import Session
from cast.tools.results import PlanWritten


def instrument(
    run: Run, session: Session, messages: list[Message] | None = None, prefix: Prefix | None = None, found: Taking | None = None
) -> Run:
    """Attach what watches a run: the session file, the usage log and price, context economy,
    the self-check (execute), and the evidence report (over `found`, the starting tree the run
    began recording; None: recorded now)."""
    agent, config, board = run.agent, run.config, run.tasks
    plan_path = run.plan_path
    price = price_for(config, agent.model.name)
    if board is not None and config.checkpoints:
        from cast.checkpoints.journal import Journal  # deferred: keeps checkpoints off a plan run's first request
        from cast.checkpoints.recorder import Recorder  # deferred: keeps checkpoints off a plan run's first request

        run.checkpoints = Recorder(
            Journal(run.workspace.root),
            run.session_id,
            board.plan.path,
            lambda n: next((t for k, t, *_ in board.rows() if k == n), ""),
            lambda: run.mode.name == "execute",
            lambda: [k for k, _, status, _ in board.rows() if status == "done"],
        )
        board.earlier = run.checkpoints.earlier_changes
    run.session, run.usage = session, UsageLog(price, carried=_spent_before(session.meta))
    run.ctx.usage = run.usage  # a tool's own model calls (a subagent) are on this run's bill
    ledger = run.ledger  # the run's one ledger (its board's too): every observer below reads it
    run.report = ReportBuilder(run.workspace.root, plan_path, tasks=board, ledger=ledger, found=found)
    agent.transcript = Transcript(messages, on_append=session.append, prefix=prefix)
    gates = [gate for extension in run.extensions if (gate := extension.gate()) is not None]
    if gates:  # the user's hooks may run commands before the first call (a user_prompt hook): the tree is in first
        run.report.settle()
    economy = ContextEconomy.from_config(config, agent.model, reinject=lambda: _state_for_model(run), on_usage=run.usage.add)
    run.economy = economy
    hooks = Hooks(
        prepare=economy,
        compact=economy.compact,
        book=run.usage,
        observers=[
            ledger_feed(ledger),
            economy.observe,
            run.usage.observe,
            _session_recorder(session, run.usage),
            run.report.observe,
        ]
        + [_plan_recorder(session)],
        gate=Gates(gates),
    )
    run.ctx.gate = hooks.gate  # an explore's children run calls of their own: the same hooks see them
    if board is not None:
        from cast.agent.selfcheck import SelfCheck  # deferred: keeps the self-check off a plan run's first request

        task = run.plan.task if run.plan is not None else ""
        check = SelfCheck(agent.model, task=task, plan_path=plan_path, on_usage=run.usage.add, ledger=ledger)
        hooks.after_tools, hooks.on_finish, hooks.halt = tasklist.watch(board), check, tasklist.halting(board)
        hooks.observers.append(check.observe)
        board.on_evidence = lambda evidence: session.update(evidence={text: e.to_dict() for text, e in evidence.items()})
        if run.checkpoints is not None:
            hooks.observers.insert(0, run.checkpoints.observe)
    agent.hooks = hooks
    return run


def _spent_before(meta: dict[str, Any]) -> ev.UsageUpdate:
    """What a resumed session spent before this run, from its meta: its figures go on from there."""
    return ev.UsageUpdate(Usage.from_dict(meta.get("usage")), int(meta.get("context") or 0), float(meta.get("cost") or 0.0))


def _session_recorder(session: Session, book: UsageLog) -> Callable[[ev.Event], None]:
    """The session's meta from the loop's events, its figures from the run's book: the session's
    whole spending (a resumed one's earlier runs included), every call on the book counted."""

    def observe(event: ev.Event) -> None:
        session.observe(book.session_figures() if isinstance(event, ev.UsageUpdate) else event)

    return observe


def _plan_recorder(session: Session) -> Callable[[ev.Event], None]:
    """Remember in the session which plan it wrote, so a resume can find it again, and mark it
    running while a turn runs (a reopened session that never ran keeps its status)."""

    def observe(event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted) and event.step == 1 and session.meta.get("status") != "running":
            session.update(status="running", pid=os.getpid())
        elif isinstance(event, ev.ToolResult) and isinstance(event.result, PlanWritten):
            if session.meta.get("plan_path") != event.result.path:
                session.update(plan_path=event.result.path)

    return observe


def _state_for_model(run: Run) -> str:
    """What compaction puts back after the summary: the plan and the task list, read from disk."""
    plan_path = run.plan_path
    if plan_path is None or not plan_path.is_file():
        return ""
    text = f"The plan file {plan_path}, as it is on disk now:\n{plan_path.read_text(encoding='utf-8', errors='replace')}"
    if run.tasks is not None:
        text += f"\n\nTask list:\n{run.tasks.listing()}"
    return text
