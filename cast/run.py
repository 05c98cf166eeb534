"""A run and its lifecycle: one user turn (`turn`), the plan's execution (`execute`), a mode switch,
a model switch, an interrupt, and the one way a run's turn ends in an `Outcome`.

Front-ends (the one-shot CLI, the plain REPL, the interactive REPL) drive only this: they render the
events a turn hands them and show the Outcome; they never decide an exit code, close books or
reach into the agent. `cast.runs` builds runs; this module is what a built run can do.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cast import conversation
from cast.agent import events as ev
from cast.agent import tasklist
from cast.agent.asking import before_run
from cast.agent.cost import price_for
from cast.agent.loop import INTERRUPTED, drive
from cast.agent.transcript import final_text
from cast.extensions import close_all
from cast.modes import MODES
from cast.options import Options
from cast.plans.revisions import current_id
from cast.run_approval import approval_for

if TYPE_CHECKING:
    from cast.agent.asking import Announced
    from cast.agent.context import ContextEconomy
    from cast.agent.cost import UsageLog
    from cast.agent.loop import Agent
    from cast.agent.report import Report, ReportBuilder
    from cast.checkpoints.recorder import Recorder
    from cast.config import Config
    from cast.extensions import Extension
    from cast.models.base import Model
    from cast.modes import Mode
    from cast.sessions import Session
    from cast.tools.base import ToolContext
    from cast.tools.evidence import Ledger
    from cast.tools.plan import RunPlan
    from cast.tools.registry import Registry
    from cast.tools.tasks import TaskBoard
    from cast.workspace import Workspace

Handler = Callable[[ev.Event], None]


@dataclass(frozen=True)
class Outcome:
    """How a run's turn ended, decided once from facts: the front-ends only show it, and `--json`'s
    closing `result` object is its serialisation (`to_json`)."""

    status: str  # the loop's stop status, or "incomplete" / "plan missing" / "tests failing" / "no plan" from the facts
    reason: str
    code: int  # the process exit code: 0 done, 1 stopped or failed, 2 usage/configuration
    report: Report | None
    session: str | None = None  # None: the run kept no session (it was never driven)
    plan_path: Path | None = None
    plan_revision: str | None = None
    steps: int = 0
    usage: UsageLog | None = None  # what the run spent, call by call, priced

    def to_json(self) -> dict[str, Any]:
        """The `result` object: the keys every run's result has, CI reads them."""
        return {
            "type": "result",
            "status": self.status,
            "reason": self.reason,
            "exit_code": self.code,
            "session": self.session,
            "plan_path": str(self.plan_path) if self.plan_path else None,
            "plan_revision": self.plan_revision,
            "steps": self.steps,
            "usage": self.usage.to_dict() if self.usage else {},
            "cost": self.usage.cost() if self.usage else None,  # None: no price known (never a made-up 0.0)
            "report": self.report.to_dict() if self.report else None,
        }


def exit_code(stopped: ev.Stopped) -> int:
    """A turn that failed on the model carries the model's own code (2 for a missing key)."""
    return int(stopped.details.get("exit_code") or stopped.exit_code)


@dataclass
class Run:
    workspace: Workspace
    config: Config
    mode: Mode
    agent: Agent
    session_id: str
    options: Options = field(default_factory=Options)
    plan: RunPlan | None = None  # the plan it writes or follows, and an execute run's task board (None: neither)
    session: Session | None = None  # the transcript on disk
    usage: UsageLog | None = None  # what the run spent, priced
    report: ReportBuilder | None = None
    idle_check: Any = None  # the self-check, set aside while an execute run is in plan mode
    economy: ContextEconomy | None = None  # aging and compaction of this run's context
    checkpoints: Recorder | None = None  # execute runs: a checkpoint before each plan item
    last: ev.Stopped | None = None  # how the newest turn stopped
    registry: Registry | None = None  # every tool of the run; None: the built-in ones (cast.modes.BUILTIN)
    extensions: list[Extension] = field(default_factory=list)  # what joined at start-up: told of switches, closed with the run
    questions: Announced | None = None  # the front-end's approver, its questions on this run's stream
    # What the run observed (agent/observed.py feeds it): made by the run's builder with the run, one
    # per run in either mode; the task board, the report and the self-check read this one.
    ledger: Ledger = field(kw_only=True)
    _emitting: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- what front-ends may read ------------------------------------------------------------
    @property
    def ctx(self) -> ToolContext:
        return self.agent.ctx

    @property
    def tasks(self) -> TaskBoard | None:
        return self.plan.board if self.plan is not None else None

    @property
    def plan_path(self) -> Path | None:
        """The plan this run follows (execute) or wrote (plan)."""
        return self.plan.path if self.plan is not None else None

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.agent.transcript.messages

    @property
    def steps(self) -> int:
        return self.agent.steps_total

    @property
    def executing(self) -> bool:
        """An execute run in execute mode: its turns end with the closing report."""
        return self.tasks is not None and self.mode.name == "execute"

    def has_work(self) -> bool:
        """False for an execute run whose plan has every item ticked."""
        return self.tasks is None or bool(self.tasks.remaining())

    # -- driving ---------------------------------------------------------------------------
    def turn(self, message: str | None, handle: Handler) -> ev.Stopped:
        """One user turn, every event handed to the front-end (a running command's live lines
        included: `events.CommandOutput`); Ctrl+C becomes a clean stop."""

        self.ctx.emit = self._emitter(handle)
        if self.questions is not None:
            self.questions.attach(self._emitter(handle, observed=True), lambda: self.ctx.call_id)
        for early in before_run():  # asked at start-up (trust, a hook, an MCP server): the session keeps them
            self.agent.notify(early)
        if self.tasks is not None:
            self.tasks.sync()  # an undo, a redo or a hand edit since the last turn
        try:
            self.last = drive(self.agent, self.agent.run(message), handle)
        except OSError as exc:  # the disk, not cast: end cleanly, saying what is kept
            self.last = ev.Stopped("failed", self._io_reason(exc), self.agent.steps_total, {"exit_code": 1})
            handle(self.last)
        return self.last

    def _emitter(self, handle: Handler, *, observed: bool = False) -> Callable[[ev.Event], None]:
        """`ToolContext.emit` for this turn: a running call's own events (a subagent's steps) go to
        the front-end one at a time, whichever of the parallel calls' threads they come from.
        `observed`: the run's observers see them too (its questions and their answers)."""

        def emit(event: ev.Event) -> None:
            with self._emitting:
                if observed:
                    self.agent.notify(event)
                handle(event)

        return emit

    def _io_reason(self, exc: OSError) -> str:
        where = f" ({exc.filename})" if exc.filename else ""
        kept = (
            "the plan file and the changes made so far are kept" if self.tasks is not None else "the plan written so far is kept"
        )
        return f"{exc.strerror or exc}{where}: {kept}; once that is fixed, `cast resume {self.session_id}` goes on from here"

    def execute(self, handle: Handler, message: str = "") -> ev.Stopped:
        """Start (or resume) executing the plan: show the task list, brief the executor (with the
        user's own words after the brief, if any), run."""

        board = self.tasks
        assert board is not None, "execute needs an execute run"
        board.sync()
        handle(tasklist.task_event(board))
        if self.checkpoints is not None:  # the first snapshot, with progress on a big tree
            self.checkpoints.start(lambda text: handle(ev.Notice(text)))
        brief = tasklist.brief(board, self.workspace.root)
        return self.turn(brief + (f"\n\n{message}" if message else ""), handle)

    def stop_before(self, handle: Handler) -> ev.Stopped:
        """An interrupt that came before the turn began: nothing is sent, and the session and
        report see the stop as if the turn had been interrupted."""

        self.last = ev.Stopped("interrupted", INTERRUPTED)
        self.agent.notify(self.last)
        handle(self.last)
        return self.last

    def cancel(self) -> None:
        self.agent.cancel()

    @property
    def cancelled(self) -> threading.Event:
        """Set by `cancel`: a question asked for this run is left when it is."""
        return self.ctx.cancel

    def uncancel(self) -> None:
        """Forget an interrupt meant for a turn that is over."""
        self.ctx.cancel.clear()

    def guide(self, text: str) -> None:
        """The user's words for the agent's next step."""
        self.agent.guide(text)

    def take_guidance(self) -> list[str]:
        return self.agent.take_guidance()

    def note(self, text: str) -> None:
        self.agent.transcript.note(text)

    def switch(self, name: str) -> None:
        """Another mode, in the same conversation and without changing anything already sent (see
        `conversation.switch`)."""

        mode = self._mode(name)
        self._policy(name)
        conversation.switch(self.agent, self.config, self.mode, mode)
        hooks = self.agent.hooks  # the executor's self-check is for execute mode: never after plan-mode chat
        if name == "plan" and hooks.on_finish is not None:
            self.idle_check, hooks.on_finish = hooks.on_finish, None
        elif name == "execute" and hooks.on_finish is None and self.idle_check is not None:
            hooks.on_finish, self.idle_check = self.idle_check, None
        self.mode = mode
        for extension in self.extensions:
            extension.switched(mode)
        if self.session is not None:
            self.session.update(mode=name)

    def approve_revision(self) -> None:
        """The user approved the plan as it is on disk now (the hand-off after /replan showed it):
        the next item starts without asking about the change."""

        if self.tasks is not None:
            self.tasks.approved = current_id(self.tasks.plan.path)

    def restore_mode(self, name: str) -> None:
        """The mode a resumed session was left in, without a notice: its conversation already
        switched (`switch` is for a new switch). The executors and the effort follow; the prefix
        stays as recorded."""

        self.mode = self._mode(name)
        self.agent.tools, self.agent.effort = self.mode.tools, conversation.effort(self.config, self.mode, self.agent.model)
        self._policy(name)

    def _mode(self, name: str) -> Mode:
        return MODES[name] if self.registry is None else MODES[name].over(self.registry)

    def _policy(self, name: str) -> None:
        """Execute mode asks before commands: its approval policy, made once when first needed."""
        if name == "execute" and self.ctx.sandbox.approval is None:
            self.ctx.sandbox.approval = approval_for(self.options, self.config, self.workspace)

    def set_model(self, model: Model) -> None:
        """Use another model from the next request on: the loop, compaction, the self-check and the
        price all follow, so the books and the checks stay about the model actually used."""

        self.agent.model = model
        hooks = self.agent.hooks
        for part in (hooks.prepare, hooks.on_finish, self.idle_check):
            if part is not None and hasattr(part, "model"):
                part.model = model
        hooks.book.price = price_for(self.config, model.name)  # the run's book (`usage`): calls from now on
        if self.session is not None:
            self.session.update(model=model.name)

    # -- ending ----------------------------------------------------------------------------
    def outcome(self, stopped: ev.Stopped | None = None, *, plan_required: bool = False) -> Outcome:
        """How the newest turn ended: its exit code from the facts (a plan that was asked for and
        not written, items left unticked), the books closed so far and the evidence report built.
        The REPL asks after every execute turn; a later turn reopens the books."""
        if self.last is None and stopped is None and not self.has_work():  # every item ticked: nothing was to be done
            assert self.tasks is not None
            return self._result("done", f"every item of {self.tasks.plan.path} is ticked; nothing to do", 0, None)
        stopped = stopped or self.last or ev.Stopped("interrupted", "the run never started")
        code, status, reason = exit_code(stopped), stopped.status, stopped.reason
        if plan_required and self.plan_path is None:
            code, status, reason = code or 1, "no plan", "no plan was written"
        left = self.tasks.remaining() if self.tasks is not None else []
        if left and code == 0:
            numbers = ", ".join(str(n) for n, *_ in left)
            code, status, reason = 1, "incomplete", f"{len(left)} plan item{'' if len(left) == 1 else 's'} not done: {numbers}"
        report = self._books()
        if report is not None and report.stopped == "done" and report.status != "done":  # the plan, the tests: see report.py
            code, status, reason = code or 1, report.status, report.reason
        return self._result(status, reason, code, report)

    def _result(self, status: str, reason: str, code: int, report: Report | None) -> Outcome:
        session = self.session_id if self.session is not None else None
        return Outcome(status, reason, code, report, session, self.plan_path, current_id(self.plan_path), self.steps, self.usage)

    def close(self, stopped: ev.Stopped | None = None, *, plan_required: bool = False) -> Outcome:
        """The end of the run: its outcome, and its session removed if it holds nothing to go back
        to (never driven, or failed before any reply)."""
        outcome = self.outcome(stopped, plan_required=plan_required)
        if self.extensions:
            extensions, self.extensions = self.extensions, []
            close_all(extensions)  # once: the REPL may close a run it already closed
        if self.session is not None:
            try:
                self.session.discard_if_unused()
            except OSError:
                pass
        return outcome

    def _books(self) -> Report | None:
        """Close the run's books: the evidence report, the session's final cost."""

        if self.session is not None and self.usage is not None:
            with suppress(OSError):  # a full disk: the transcript up to here stands, the figures are the loss
                spent = self.usage.session_figures()  # every call, the self-check's verdict included
                self.session.update(usage=spent.usage.to_dict(), cost=self.usage.session_cost())  # None: no price known
                self.session.close()
        if self.report is None:
            return None
        if self.report.plan_path is None and self.plan_path is not None:
            self.report.plan_path = self.plan_path  # written during this run
        from cast.agent.selfcheck import SelfCheck  # deferred: keeps the self-check off a plan run's first request

        final = final_text(self.messages)
        check = self.agent.hooks.on_finish or self.idle_check
        listed = check.claims_for(final) if isinstance(check, SelfCheck) else None
        report = self.report.build(final, listed)
        if self.checkpoints is not None:
            report.by_item, report.notes = self.checkpoints.item_stats(), report.notes + self.checkpoints.notes()
            self.checkpoints.finish()  # pack the store if it has grown
        if self.session is not None and report.status != report.stopped and report.stopped == "done":
            with suppress(OSError):
                self.session.update(status=report.status, reason=report.reason)  # the facts' word, not the loop's
        return report
