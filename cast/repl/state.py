"""What the REPL knows between turns: the mode, the run (built lazily on the first task), and the
figures the toolbar shows. Runs are assembled by `cast.runs`; this module only decides when."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cast.agent import events as ev
from cast.config import load
from cast.models.base import Usage
from cast.options import Options
from cast.workspace import Workspace

if TYPE_CHECKING:  # a run (and all it imports) is built on the first task, never at start-up
    from cast.agent.cost import UsageLog
    from cast.config import Config
    from cast.models.base import Model
    from cast.run import Outcome
    from cast.runs import Run
    from cast.tools.tasks import TaskBoard

MODES = ("plan", "execute")


class ReplState:
    def __init__(self, options: Options, mode: str = "plan"):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.options = options
        self.mode = mode
        self.run: Run | None = None  # built on the first task
        self.books: dict[str, UsageLog] = {}  # session id -> the book of its newest run this REPL left behind
        self.hint = ""  # shown as the prompt's placeholder (e.g. after "keep planning")
        self.brief_pending = False  # a plan attached by Shift+Tab: the next message carries the brief
        self._direct = ""  # the session whose run did a task in execute mode without a plan
        self._workspace: Workspace | None = None
        self._config: Config | None = None
        self._lock = threading.Lock()

    # -- lazily known facts ---------------------------------------------------------------
    @property
    def workspace(self) -> Workspace:
        if self.run is not None:
            return self.run.workspace
        if self._workspace is None:
            self._workspace = Workspace.discover(self.options.cwd)
        return self._workspace

    @property
    def root(self) -> Path:
        return self.workspace.root

    def config(self) -> Config:
        if self.run is not None:
            return self.run.config
        if self._config is None:
            self._config = load(self.root, model=self.options.model, max_steps=self.options.max_steps)
        return self._config

    def model_name(self) -> str:
        if self.run is not None:
            return self.run.model.name
        try:
            spec = self.config().model_for(self.mode)
        except Exception:  # a broken config is reported when a run is built
            spec = self.options.model or os.environ.get("CAST_MODEL") or "?"
        return f"script:{Path(spec[7:]).name}" if spec.startswith("script:") else spec

    @property
    def session_id(self) -> str:
        return self.run.session_id if self.run is not None else ""

    @property
    def plan_path(self) -> Path | None:
        return self.run.plan_path if self.run is not None else None

    # -- runs -----------------------------------------------------------------------------
    def ensure_run(self, first_task: str, *, new: bool = False) -> Run:
        """The run `first_task` belongs to: the current one, or a new planning session named after
        it. A task typed in plan mode after an execute run (finished, resumed or switched from, with
        a plan or doing a task directly) is a new task: it gets its own session and plan, never the
        executed one's (an execute run that /replan put in plan mode is revising its plan: its
        feedback stays in it). `new` asks for a new session whatever the current run is (`/plan TASK`)."""
        from cast import runs  # deferred: keeps pydantic off the REPL's first prompt

        run = self.run
        executed = run is not None and (
            (run.tasks is not None and run.mode.name != "plan") or (run.tasks is None and self._direct == run.session_id)
        )
        if run is None or new or (self.mode == "plan" and executed):
            run = runs.plan_run(first_task, self.options, model=self._reusable_model("plan"))
            if self.mode != "plan":
                run.switch(self.mode)
            self._adopt(run)
        if self.mode == "execute" and run.tasks is None:
            self._direct = run.session_id  # its plan-mode follow-ups are new tasks
        return run

    def execute(self, plan_ref: str | None) -> Run:
        """A fresh run over a plan's checklist (the newest unfinished one when `plan_ref` is None).

        When every item is ticked there is nothing to execute: the run comes back for the caller
        to say so, but it is not adopted (it has no session), so the current run and mode stay."""
        from cast import runs  # deferred: keeps pydantic off the REPL's first prompt

        run = runs.execute_run(plan_ref, self.options, model=self._reusable_model("execute"))
        if not run.has_work():
            return run
        self.mode = "execute"
        self._adopt(run)
        return run

    def resume(self, session_id: str) -> Run:
        from cast import runs  # deferred: keeps pydantic off the REPL's first prompt

        run = runs.resume_run(session_id, self.options)
        self.mode = run.mode.name
        self._adopt(run)
        if run.mode.name == "execute" and run.tasks is None:
            self._direct = run.session_id
        return run  # its book opens with what the session spent before: the toolbar's figures go on from there

    def set_model(self, spec: str) -> None:
        """Use another model from the next request on (the conversation is kept)."""
        from cast import runs  # deferred: keeps pydantic off the REPL's first prompt

        if self.run is not None:
            self.run.set_model(runs.make_model(spec, self.run.config))  # the self-check, compaction and price follow
        self.options.model = spec
        self._config = None

    def _reusable_model(self, mode: str) -> Model | None:
        """The current run's model, when the next run would use the same one anyway (the client
        is warm, and a scripted conversation goes on where it was)."""
        if self.run is None:
            return None
        config = self.run.config
        return self.run.model if config.model_for(mode) == config.model_for(self.run.mode.name) else None

    def follow(self, run: Run, mode: str) -> None:
        """The REPL's mode and its run's, moved together (/replan takes an execute run to plan
        mode and, approved, back): the run switches, the REPL only follows."""
        if run.mode.name != mode:
            run.switch(mode)
        self.mode = mode

    def set_mode(self, mode: str) -> Path | None:
        """Switch modes. Entering execute mode with a plan to follow — the one this session wrote,
        else the newest with unticked items — attaches its checklist exactly as /execute does:
        a run over the plan, whose first message carries the brief. Returns the plan attached."""
        if mode not in MODES or mode == self.mode:
            return None
        if mode == "execute" and (self.run is None or self.run.tasks is None):
            plan = self._plan_to_attach()
            if plan is not None and self.execute(str(plan)) is self.run:
                self.brief_pending = True
                return plan
        if self.run is not None and self.run.mode.name != mode and not (mode == "plan" and self.run.tasks is not None):
            self.run.switch(mode)  # an execute run stays one: a task typed in plan mode starts a new plan
        self.mode = mode
        return None

    def _plan_to_attach(self) -> Path | None:
        from cast.plans.checklist import parse  # deferred: keeps cast.plans.checklist off the REPL's first prompt
        from cast.plans.store import find_plan  # deferred: keeps cast.plans.store (9 modules) off the REPL's first prompt

        written = self.run.plan_path if self.run is not None else None
        if written is not None:
            try:
                items = parse(Path(written).read_text(encoding="utf-8", errors="replace"))
            except OSError:
                items = []
            if any(not item.checked for item in items):
                return Path(written)
        # deferred: keeps cast.plans.housekeeping (10 modules) off the REPL's first prompt
        from cast.plans.housekeeping import unfinished

        try:
            found = unfinished(self.root)
        except Exception:  # plans that cannot be listed: execute mode without a task list
            return None
        # The only unfinished plan is the one meant; among several, cast does not guess (/execute asks).
        return Path(find_plan(self.root, found[0].session)) if len(found) == 1 else None

    def switch_note(self) -> str:
        """The line a switch that attached no plan says: in plan mode what the agent may do; in
        execute mode what the next message does, or what to do when several plans wait (none is guessed)."""
        if self.mode == "plan":
            return "plan mode · read-only: the agent explores and writes a plan, nothing else"
        if self.run is not None and self.run.tasks is not None:
            path = Path(self.run.tasks.plan.path)
            shown = path.relative_to(self.root) if path.is_relative_to(self.root) else path
            what = "starts executing it" if self.brief_pending else "continues it"
            return f"execute mode · plan attached: {shown} ({self.attached_plan().split()[-1]} done); your next message {what}"
        # deferred: keeps cast.plans.housekeeping (10 modules) off the REPL's first prompt
        from cast.plans.housekeeping import unfinished

        try:
            count = len(unfinished(self.root))
        except Exception:
            count = 0
        if count > 1:
            return f"execute mode · {count} plans have unticked items; /execute asks which one to run"
        return "execute mode · no plan: the agent does your next task directly, editing files"

    def take_brief(self) -> bool:
        """True once after a plan was attached by a mode switch: the next message carries the brief."""
        pending, self.brief_pending = self.brief_pending, False
        return pending and self.run is not None and self.run.tasks is not None

    @property
    def tasks(self) -> tuple[ev.Task, ...]:
        """The current run's task list as its plan file says now: an undo, a redo or a hand edit
        shows at once, not after the agent's next step."""
        board = self.run.tasks if self.run is not None else None
        return _task_rows(board) if board is not None else ()

    def attached_plan(self) -> str:
        """`<session>/plan.md 1/3` for the toolbar, or "" when no plan is attached."""
        board = self.run.tasks if self.run is not None else None
        if board is None:
            return ""
        path = Path(board.plan.path)
        rows = self.tasks
        done = sum(1 for row in rows if row.status == "done")
        return f"{path.parent.name}/{path.name} {done}/{len(rows)}"

    def clear(self) -> None:
        """Forget the conversation; the next task starts a new session."""
        self._retire()
        self.run = None
        self.brief_pending = False

    def _adopt(self, run: Run) -> None:
        self._retire()
        self.run = run

    def outcome(self) -> Outcome | None:
        """How the current run's newest turn ended, its books closed so far (the closing report)."""
        if self.run is None:
            return None
        try:
            return self.run.outcome()
        except Exception:  # bookkeeping must not stop the user from moving on
            return None

    def cost_label(self) -> str:
        """`$0.012`, or `$ n/a` when cast has no price for the model in use."""
        book = self.run.usage if self.run is not None else None
        unpriced = book.unpriced() if book is not None else None
        if unpriced is not None and not unpriced.startswith("script:"):
            return "$ n/a"
        return f"${self.total().cost:.3f}"

    def close(self) -> None:
        """The end of the current run's life here: its books closed, and its session removed if
        it holds nothing to go back to (never driven, or failed before any reply)."""
        if self.run is None:
            return
        try:
            self.run.close()
        except Exception:  # bookkeeping must not stop the user from moving on
            pass

    def _retire(self) -> None:
        self.close()
        if self.run is not None and self.run.usage is not None:
            with self._lock:
                self.books[self.run.session_id] = self.run.usage  # a resumed one's carries the earlier

    # -- figures --------------------------------------------------------------------------
    def total(self) -> ev.UsageUpdate:
        """This REPL's figures, read from its runs' books and kept nowhere else: the sum of every
        run's tokens and cost (explores, compaction and self-checks included, a resumed session's
        earlier spending too), and the size of the current run's newest request. A session resumed
        again counts once: its newest book opens with what the earlier ones spent."""
        current = self.run.usage if self.run is not None else None
        with self._lock:
            books = dict(self.books)
        if self.run is not None and current is not None:
            books.pop(self.run.session_id, None)
            books[self.run.session_id] = current
        shown = [book.session_figures() for book in books.values()]
        context = shown[-1].context_tokens if current is not None else 0
        return ev.UsageUpdate(sum((f.usage for f in shown), Usage()), context, sum(f.cost for f in shown))


_read_cache: dict[Path, tuple[tuple[int, int], list[Any]]] = {}


def _task_rows(board: TaskBoard) -> tuple[ev.Task, ...]:
    """Rows from the plan file on disk (parsed again only when it changed), with this run's working
    state (in progress, blocked) and the evidence of the ticks it made. A plan that cannot be read
    now shows as last read."""
    from cast.plans.checklist import PlanError, parse  # deferred: keeps cast.plans.checklist off the REPL's first prompt

    path = Path(board.plan.path)
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = _read_cache.get(path)
        if cached is None or cached[0] != stamp:
            cached = (stamp, parse(path.read_text(encoding="utf-8", errors="replace")))
            _read_cache[path] = cached
        items = cached[1]
    except (OSError, PlanError):
        return tuple(ev.Task(n, text, status, note, board.evidence_for(text)) for n, text, status, note in board.rows())
    rows = []
    for item in items:
        status, note = ("done", "") if item.checked else board.status.get(item.text, ("pending", ""))
        rows.append(ev.Task(item.number, item.text, status, note, board.evidence_for(item.text) if item.checked else None))
    return tuple(rows)
