"""A child run: an ordinary agent loop with a fresh context that answers one question for the run
that started it, and hands back its answer, what it read and what it ran.

Why a child and not more steps of the parent: every step resends the whole transcript, so what a
planner reads to find the three files that matter is paid for again at every later step, and goes
stale there. A child reads in its own conversation; the parent's grows by the answer alone. The
child is the same loop as any run (step ceiling, failure streaks, retries, staleness, aging), with
its own ceiling on the tokens it may spend (`TokenCeiling`), and what it may touch is the tools it
is given, each refusing by name whatever is not one of them: never its prompt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cast.agent import events as ev
from cast.agent.context import ContextEconomy
from cast.agent.cost import Price, StepUsage, UsageLog
from cast.agent.gate import CallGate, CallsOnly
from cast.agent.loop import Agent, Hooks
from cast.agent.transcript import Message, Prefix, Transcript, text_block
from cast.models import base as m
from cast.tools.base import CallSeam, Sandbox, Tool, ToolContext
from cast.tools.results import Declined, Interrupted, Ran
from cast.workspace import ReadTracker, Workspace

CANCEL_POLL = 0.05  # seconds between looks at the parent's cancel flag


@dataclass(frozen=True)
class Command:
    """A command the child asked for: its exit code (None when it never ran) and how it went."""

    command: str
    exit_code: int | None
    note: str = ""  # "sandboxed, unverified", "declined: ...", "interrupted", "" for a plain run

    def line(self) -> str:
        said = f"exit_code={self.exit_code}" if self.exit_code is not None else "not run"
        return f"`{self.command}` {said}" + (f" ({self.note})" if self.note else "")


@dataclass
class Findings:
    """What the child's events show, kept as they come: files it read, commands it ran, what it
    said. The observer of the child's loop; nothing here is the child's own account."""

    files: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    stopped: ev.Stopped | None = None

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolResult):
            self._result(event)
        elif isinstance(event, ev.Stopped):
            self.stopped = event

    def _result(self, event: ev.ToolResult) -> None:
        result = event.result
        if isinstance(result, Ran):
            note = "interrupted" if result.interrupted else "timed out" if result.timed_out else ""
            note = note or ("" if result.verified else "sandboxed, unverified")
            self.commands.append(Command(result.command, result.exit_code, note))
        elif isinstance(result, Declined):
            self.commands.append(Command(result.command, None, f"declined: {result.reason}"))
        elif isinstance(result, Interrupted) and isinstance(getattr(result.params, "command", None), str):
            self.commands.append(Command(result.params.command, None, "interrupted"))
        elif event.name == "read_file" and event.ok and not event.cached and isinstance(event.input, dict):
            path = str(event.input.get("path", "")).removeprefix("./")
            if path and path not in self.files:
                self.files.append(path)


class CeilingReached(m.ModelError):
    """The child spent its token ceiling: the run stops before the next request."""


class TokenCeiling:
    """A model that refuses a request once the calls before it used `ceiling` tokens (prompt and
    output, cache reads and writes included: what the bill counts). A guard in code, outside the
    loop, so any run can carry one; the loop turns the refusal into a failed stop with its reason."""

    def __init__(self, model: m.Model, ceiling: int):
        self.model = model
        self.name = model.name
        self.spec = model.spec
        self.ceiling = ceiling
        self.used = 0
        self.tripped = ""  # why it refused, once it has

    def stream(self, request: m.Request) -> Iterator[m.ModelEvent]:
        if self.ceiling and self.used >= self.ceiling:
            self.tripped = f"token ceiling of {self.ceiling:,} reached ({self.used:,} tokens used)"
            raise CeilingReached(self.tripped)
        for item in self.model.stream(request):
            if isinstance(item, m.Usage):
                self.used += item.prompt_tokens + item.output_tokens
            yield item


@dataclass(frozen=True)
class ChildOutcome:
    """How a child ended and what it leaves its parent."""

    status: str  # the loop's: done, stopped (a guard), interrupted, failed
    reason: str
    steps: int
    answer: str  # its final message; when a guard stopped it, everything it said on the way
    files: tuple[str, ...]
    commands: tuple[Command, ...]
    usage: m.Usage
    cost: float
    calls: int
    model: str


@dataclass
class Child:
    """One question for a child: its model, its tools (the only ones it may call), its stable
    prefix (the system prompt) and its instructions (a system notice, as a mode's are)."""

    model: m.Model
    tools: Sequence[Tool[Any]]
    system: str
    instructions: str
    workspace: Workspace
    max_steps: int = 20
    max_tokens: int = 0  # per reply; 0: the provider picks
    ceiling: int = 0  # tokens for the whole child; 0: none
    effort: str = ""
    plan_commands: str = "sandboxed"  # plan mode's choice for commands the checker cannot prove
    price: Price | None = None  # None: cast has no price for the child's model
    config: Any = None  # the run's settings: aging and compaction as in any run (None: none)
    on_usage: Callable[[m.Usage, float], None] | None = None  # each model call's usage and cost, as it comes
    gate: CallSeam | None = None  # the run's hooks: they see and may refuse the child's calls too
    ceiling_model: TokenCeiling | None = field(default=None, init=False)

    def run(
        self,
        task: str,
        *,
        cancel: Sequence[threading.Event],
        emit: Callable[[ev.Event], None] | None = None,
        journal: Callable[[Message], None] | None = None,
    ) -> ChildOutcome:
        """Run to the child's end. `cancel`: flags (the parent's, the child's own) any of which stops
        the child; what it found so far comes back all the same."""
        findings = Findings()
        book = UsageLog(self.price or Price(self.model.name, known=False), forward=self._forward)
        agent = self._agent(findings, book, journal)
        stop = threading.Event()
        watcher = threading.Thread(target=_follow, args=(cancel, agent.ctx.cancel, stop), name="cast-explore-cancel", daemon=True)
        watcher.start()
        try:
            for event in agent.run(task):
                if emit is not None:
                    emit(event)
        except KeyboardInterrupt:  # not this thread's to take: the parent's dispatcher sets the flag
            agent.cancel()
            agent.settle()
        finally:
            stop.set()
            watcher.join()
        return self._outcome(agent, findings, book)

    def _forward(self, record: StepUsage) -> None:
        """Each call the child's book takes, at once on the parent's bill too."""
        if self.on_usage is not None:
            self.on_usage(record.usage, record.cost or 0.0)

    def _agent(self, findings: Findings, book: UsageLog, journal: Callable[[Message], None] | None) -> Agent:
        ctx = ToolContext(
            workspace=replace(self.workspace, reads=ReadTracker()), sandbox=Sandbox(plan_commands=self.plan_commands)
        )
        model = self.ceiling_model = TokenCeiling(self.model, self.ceiling)
        gate = CallsOnly(self.gate) if self.gate else CallGate()
        hooks = Hooks(book=book, observers=[findings.observe, book.observe], gate=gate)
        if self.config is not None:
            economy = ContextEconomy.from_config(self.config, model, on_usage=book.add)
            hooks.prepare, hooks.compact = economy, economy.compact
            hooks.observers.append(economy.observe)
        agent = Agent(
            model=model,
            tools=tuple(self.tools),
            system=self.system,
            ctx=ctx,
            transcript=Transcript(on_append=journal),
            max_steps=self.max_steps,
            max_tokens=self.max_tokens,
            hooks=hooks,
            effort=self.effort,
        )
        tools = tuple(tool.spec() for tool in self.tools)
        agent.transcript.declare(Prefix(self.system, tools, False, None, self.effort))
        agent.transcript.add_system([text_block(self.instructions)])
        return agent

    def _outcome(self, agent: Agent, findings: Findings, book: UsageLog) -> ChildOutcome:
        stopped = findings.stopped or ev.Stopped("interrupted", "interrupted by user", agent.steps_total)
        if self.ceiling_model is not None and self.ceiling_model.tripped:  # a guard, not a failure
            stopped = ev.Stopped("stopped", self.ceiling_model.tripped, stopped.steps)
        said = _said(agent.transcript.messages)
        answer = said[-1] if stopped.status == "done" and said else "\n\n".join(said)
        return ChildOutcome(
            stopped.status,
            stopped.reason,
            stopped.steps,
            answer.strip(),
            tuple(findings.files),
            tuple(findings.commands),
            book.total(),
            book.total_cost(),
            len(book.rows()),
            self.model.name,
        )


def _follow(flags: Sequence[threading.Event], child: threading.Event, done: threading.Event) -> None:
    """The child loop's cancel flag follows `flags` until the child ends. It is a flag of its own
    because the loop clears its flag when it stops, which must never clear the parent's."""
    while not done.wait(CANCEL_POLL):
        if any(flag.is_set() for flag in flags):
            child.set()
            return


def _said(messages: list[Message]) -> list[str]:
    """The text of each assistant message, in order (interruption markers kept: they are true)."""
    texts = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        text = "\n".join(b.get("text", "") for b in message.get("content", ()) if isinstance(b, dict) and b.get("type") == "text")
        if text.strip() and not text.startswith("[no reply"):
            texts.append(text.strip())
    return texts
