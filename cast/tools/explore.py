"""The explore tool: a question handed to a read-only child run, whose answer is the observation.

The point is the economics of a transcript that is resent at every step: a planner that reads a
dozen files to find the three that matter pays for all twelve at every later step. An explore
reads them in its own conversation, on the cheapest current model by default, and the parent's
transcript grows by its answer (capped) and the list of what it read and ran, so the parent can
cite them or read the lines that matter itself. The answer is an observation of what the child
read, never a verified fact: the result type says so (`Explored`), and so do the report's claims.

What a child may do is the tools it is handed (plan mode's read tools, through the same checker
and sandbox; never a writing tool, never another explore), refused by name otherwise; its prompt
only explains. Up to four run at once (the call is read-only, so the dispatcher batches them);
Ctrl+C stops them all, and each returns what it found. The child's events go to the front-end
nested under the call (`events.Nested`), its transcript is kept with the session, and every model
call it makes is on the run's bill as it happens.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field

from cast.agent import events as ev
from cast.text import clip, plural, tokens
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError
from cast.tools.explore_settings import ExploreSettings
from cast.tools.orchestrator import plan_commands
from cast.tools.results import Explored

if TYPE_CHECKING:
    from cast.agent.subagent import ChildOutcome
    from cast.models.base import Model, Usage
    from cast.sessions import Session
    from cast.workspace import Workspace

NAME = "explore"
MAX_FILES_LISTED = 60
SCRIPT = "script:"

EXPLORE_PROMPT = """\
# Mode: explore
Another agent gave you the task below and sees only your final message. Your tools are read-only:
read_file, list_files, grep, and bash for commands cast can prove read-only (anything else is
refused). You cannot change anything and cannot ask anyone: find out what the task asks, reading
only what you need, and stop as soon as you can answer.
Your final message is the whole answer: what you found, each point with its file path and line
numbers (`path:line`), the few lines that matter quoted, and what you could not find or are unsure
of. No preamble and no offer of further help."""

EXPLORE_RUNS_TESTS = """\
Where the strong sandbox is active bash also runs commands cast cannot prove read-only (the
project's tests), sandboxed with their writes thrown away; such results are "sandboxed, unverified"."""

DESCRIPTION = (
    "Hand a read-only investigation to a subagent with a fresh context: it lists, greps, reads and runs "
    "read-only commands on its own, then answers. Only its answer, with the files it read and the commands "
    "it ran, joins this conversation. Worth it when a question needs many files read (where is X handled, "
    "how does Y flow through the code, which tests cover Z); not for one file you already know. Several "
    "explores in one turn run at once (up to 4). The answer is what the subagent read, not verified: read "
    "the lines that matter yourself before relying on them."
)


class ExploreParams(Params):
    task: str = Field(description="The question to answer, with any paths, names or errors you already know.", min_length=1)


Book = Callable[[str, "Usage", "float | None", str], None]  # (child, one call's usage, its cost, model): the run's bill


class Explorer:
    """One per run: starts a child for each explore call. `tools` gives the children's tools (plan
    mode's read tools; filtered again here), `book` puts each child's model calls on the run's bill,
    `session` keeps each child's transcript. `make_model` builds a child's model from its spec."""

    def __init__(
        self,
        config: Any,
        workspace: Workspace,
        system: str,
        tools: Callable[[], Sequence[Tool[Any]]],
        *,
        run_model: str = "",
        session: Session | None = None,
        book: Book | None = None,
        make_model: Callable[[str], Model] | None = None,
        settings: ExploreSettings | None = None,
    ):
        self.config = config
        self.workspace = workspace
        self.system = system
        self.tools = tools
        self.run_model = run_model
        self.session = session
        self.book = book
        self.make_model = make_model
        self.settings = ExploreSettings.from_config(config) if settings is None else settings
        self._lock = threading.Lock()
        self._emit_lock = threading.Lock()
        self._started = 0
        self.running: dict[str, threading.Event] = {}  # parent call id -> that child's cancel flag
        self._model_name = ""

    def tool(self) -> Tool[ExploreParams]:
        return Tool(NAME, DESCRIPTION, ExploreParams, self.execute, read_only=True, access=Access.READ)

    def cancel(self, call_id: str = "") -> None:
        """Stop one child (by its parent call's id), or every running child."""
        with self._lock:
            flags = [self.running[call_id]] if call_id in self.running else [] if call_id else list(self.running.values())
        for flag in flags:
            flag.set()

    def child_tools(self) -> list[Tool[Any]]:
        """The tools a child may call: read-only ones that write nothing, never another explore."""
        return [t for t in self.tools() if t.access is Access.READ and t.read_only and not t.writes and t.name != NAME]

    def model_name(self) -> str:
        """`explore_model`, else the cheapest current model the provider offers (asked once per run)."""
        if self.settings.model:
            return self.settings.model
        if self.run_model.startswith(SCRIPT):
            raise ToolError(
                'explore needs explore_model = "script:PATH" when the run\'s model is a script (set it in config.toml)'
            )
        if not self._model_name:
            from cast.agent.cheapest import cheapest  # deferred: keeps cast.agent.cheapest off the one-shot first request

            self._model_name = cheapest(self.config) or self.run_model
        return self._model_name

    # -- one call ---------------------------------------------------------------------------
    def execute(self, args: ExploreParams, ctx: ToolContext) -> Observation:
        from cast.agent.cost import price_for  # deferred: keeps cast.agent.cost off a run's start
        from cast.agent.subagent import Child  # deferred: keeps cast.agent.subagent off the one-shot first request

        model = self._model(self.model_name())
        call_id = str(getattr(ctx, "call_id", "") or "")
        with self._lock:
            self._started += 1
            label = f"{NAME}-{self._started}"
            cancel = self.running.setdefault(call_id or label, threading.Event())
        journal = self._journal(ctx, call_id or label, args.task, model.name)
        price = price_for(self.config, model.name)
        child = Child(
            model=model,
            tools=self.child_tools(),
            system=self.system,
            instructions=self._instructions(),
            workspace=ctx.workspace,
            max_steps=self.settings.max_steps,
            max_tokens=int(getattr(self.config, "max_tokens", 0) or 0),
            ceiling=self.settings.max_tokens,
            effort=_effort(self.config, model),
            plan_commands=str(getattr(self.config, "plan_commands", "sandboxed")),
            price=price if price.known else None,
            config=self.config,
            on_usage=_billed(self.book or _book_of(ctx), label, model.name, price.known),
            gate=ctx.gate,
        )
        try:
            outcome = child.run(
                args.task,
                cancel=(ctx.cancel, cancel),
                emit=self._emitter(ctx, call_id, label, journal),
                journal=journal.append if journal is not None else None,
            )
        finally:
            with self._lock:
                self.running.pop(call_id or label, None)
            if journal is not None:
                journal.close()
        where = str(journal.dir) if journal is not None else ""
        return observation(args.task, outcome, self.settings.answer_chars, price.known, where)

    def _model(self, spec: str) -> Model:
        if self.make_model is not None:
            return self.make_model(spec)
        from cast.models.registry import resolve  # deferred: keeps cast.models.registry off a run's start

        return resolve(spec, self.config)

    def _instructions(self) -> str:
        unverified = plan_commands(str(getattr(self.config, "plan_commands", "sandboxed"))).unverified
        return EXPLORE_PROMPT + ("\n\n" + EXPLORE_RUNS_TESTS if unverified else "")

    def _journal(self, ctx: ToolContext, name: str, task: str, model: str) -> Session | None:
        """The child's transcript, beside its parent's; None when the run keeps no session."""
        from cast import session_children  # deferred: keeps cast.session_children off the one-shot first request
        from cast.session_records import SessionError  # deferred: keeps cast.session_records off a run's start

        safe = name if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,120}", name) else f"call-{abs(hash(name)):x}"
        try:
            if self.session is not None:
                where, parent = self.session.dir, self.session.id
            else:
                found = session_children.session_dir(ctx.workspace.root, ctx.session_id)
                if found is None:
                    return None
                where, parent = found, ctx.session_id
            return session_children.create(where, parent, safe, task=task, model=model, parent_call=name)
        except (OSError, SessionError):
            return None  # the child still runs; its transcript is the loss

    def _emitter(self, ctx: ToolContext, call_id: str, label: str, journal: Session | None) -> Callable[[ev.Event], None]:
        """Each child event to the child's session record, and, nested under the parent's call, to
        the front-end (one at a time: children run on several threads)."""
        emit = getattr(ctx, "emit", None)

        def send(event: ev.Event) -> None:
            if journal is not None:
                journal.observe(event)
            if emit is None or isinstance(event, ev.TextDelta | ev.ThinkingDelta):  # the answer comes whole
                return
            with self._emit_lock:
                emit(ev.Nested(call_id, label, event))

        return send


def _billed(book: Book | None, label: str, model: str, priced: bool) -> Callable[[Usage, float], None] | None:
    return None if book is None else lambda usage, cost: book(label, usage, cost if priced else None, model)


def _book_of(ctx: ToolContext) -> Book | None:
    """The run's usage book, as a child's bill: each call under the child's name, at its model's rates."""
    usage = ctx.usage
    if usage is None:
        return None
    return lambda label, used, cost, model: usage.add(used, NAME, agent=label, model=model, cost=cost)


def _effort(config: Any, model: Model) -> str:
    wanted = config.effort_for("plan") if hasattr(config, "effort_for") else ""
    return model.spec.effort_or_default(wanted) if model.spec is not None else wanted


HEADS = {
    "done": "answered in {steps}",
    "stopped": "stopped by a guard after {steps} ({reason}); what it found until then",
    "interrupted": "interrupted after {steps}; what it found until then",
    "failed": "failed after {steps} ({reason}); what it found until then",
}


def observation(task: str, outcome: ChildOutcome, cap: int, priced: bool, transcript: str = "") -> Observation:
    """The child's answer (capped), and what it read and ran, as the parent's model reads them."""
    steps = plural(outcome.steps, "step")
    head = HEADS.get(outcome.status, HEADS["failed"]).format(steps=steps, reason=outcome.reason)
    lines = [
        f"[explore by {outcome.model}: {head}. This is what a subagent read and concluded, not a fact cast "
        "verified: read the lines that matter yourself before relying on them.]",
        clip(outcome.answer, cap) if outcome.answer else "(it gave no answer)",
        "",
    ]
    files = list(outcome.files)
    shown = ", ".join(files[:MAX_FILES_LISTED]) + (
        f" and {len(files) - MAX_FILES_LISTED} more" if len(files) > MAX_FILES_LISTED else ""
    )
    lines.append(f"files it read ({len(files)}): {shown}" if files else "files it read: none")
    commands = [c.line() for c in outcome.commands]
    lines.append(f"commands it ran ({len(commands)}): " + "; ".join(commands) if commands else "commands it ran: none")
    used = outcome.usage.prompt_tokens + outcome.usage.output_tokens
    summary = f"{outcome.status} · {steps} · {plural(len(files), 'file')} read · {plural(len(commands), 'command')} · {tokens(used)} tokens"
    result = Explored(
        task,
        outcome.status,
        outcome.reason,
        outcome.steps,
        outcome.files,
        tuple(commands),
        outcome.model,
        used,
        round(outcome.cost, 6) if priced else None,
        transcript,
    )
    ok = outcome.status in ("done", "stopped") or (outcome.status == "interrupted" and bool(outcome.answer))
    return Observation("\n".join(lines), ok=ok, summary=summary, result=result)
