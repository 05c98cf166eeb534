"""The agent loop: ask the model, run the tools it asks for, repeat until it stops asking.

The model is memoryless; everything it knows is in the request this loop builds. So the loop
is where the guards live (step ceiling, de-duplication, failure streaks, staleness notes,
interrupts) and where the transcript is kept valid whatever happens. It yields typed events and
imports no UI.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cast.agent import dispatch, guards, notices, streamed
from cast.agent import events as ev
from cast.agent.cost import Price, UsageLog
from cast.agent.gate import CallGate, Halt
from cast.agent.guards import FAILURE_NUDGE_AT, FAILURE_STOP_AT, STEP_LIMIT, CallRecord, FailureStreak, Repeats
from cast.agent.transcript import Prefix, Transcript, final_text, text_block, tool_result_block
from cast.models import base as m
from cast.text import one_line
from cast.tools.base import Tool, ToolContext

INTERRUPTED = "interrupted by user"


@dataclass
class Hooks:
    """Seams for the parts of a session that are not the loop itself."""

    prepare: Callable[[Transcript], Iterator[ev.Event]] | None = None  # aging / compaction before a request
    compact: Callable[[Transcript], Iterator[ev.Event]] | None = None  # when the reply hit the context window
    on_finish: Callable[[Agent], str | None] | None = None  # self-check: text to continue with, or None
    after_tools: Callable[[Agent], Iterator[ev.Event]] | None = None  # e.g. task list changes
    book: UsageLog = field(default_factory=lambda: UsageLog(Price("", known=False)))  # the run's usage book: prices each call
    observers: list[Callable[[ev.Event], None]] = field(default_factory=list)  # session, report, usage log
    gate: CallGate = field(default_factory=CallGate)  # the user's hooks around tool calls and turns (agent/gate.py)
    halt: Callable[[], Halt | None] | None = None  # asked after each batch of calls: stop the turn now? (agent/tasklist.halting)


@dataclass
class Agent:
    model: m.Model
    tools: Sequence[Tool[Any]]
    system: str
    ctx: ToolContext
    transcript: Transcript = field(default_factory=Transcript)
    max_steps: int = 60
    max_tokens: int = 0  # 0: the provider picks per model and effort
    hooks: Hooks = field(default_factory=Hooks)
    effort: str = ""  # output_config.effort for this mode; empty: the model's default
    notes: list[str] = field(default_factory=list)  # for the user, shown once at the next step

    def __post_init__(self) -> None:
        self.record = CallRecord()
        self.failures = FailureStreak()
        self.repeats = Repeats()
        self.steps_total = 0
        self._step = 0
        self._guidance: list[str] = []
        self._lock = threading.Lock()

    # -- control from other threads -------------------------------------------------------
    def cancel(self) -> None:
        self.ctx.cancel.set()

    def guide(self, text: str) -> None:
        """Queue user guidance typed while the agent works; it joins the next request."""
        with self._lock:
            self._guidance.append(text)

    def take_guidance(self) -> list[str]:
        """Guidance not delivered yet, taken back: a turn that ended (done, interrupted) has no
        next step, and guidance must never ride along with the user's next, unrelated message."""
        with self._lock:
            guidance, self._guidance = self._guidance, []
        return guidance

    def set_mode(
        self,
        tools: Sequence[Tool[Any]],
        notice: list[dict[str, Any]],
        declare: tuple[dict[str, Any], ...] | None = None,
        effort: str | None = None,
    ) -> None:
        """Another tool set from the next request on, announced by an appended system notice (which
        may carry tool_addition / tool_removal blocks). The executors change here and only here, so a
        call to a tool outside the mode is refused whatever the model was offered. `declare`
        re-declares the tools (a model without mid-conversation tool changes): the prefix changes,
        so the conversation switches to drop_block, unless nothing was sent yet."""
        self.tools = tools
        if effort is not None:
            self.effort = effort
        prefix = self.transcript.prefix
        if declare is not None and prefix is not None and tuple(declare) != prefix.tools:
            self.transcript.declare(
                replace(prefix, tools=tuple(declare), drop_block=bool(self.transcript.messages) or prefix.drop_block)
            )
        self.transcript.add_system(notice)

    def prefix(self) -> Prefix:
        """The conversation's prefix, declared from this agent's system and tools if not yet."""
        if self.transcript.prefix is None:
            self.transcript.declare(Prefix(self.system, tuple(t.spec() for t in self.tools)))
        assert self.transcript.prefix is not None
        return self.transcript.prefix

    # -- the loop -------------------------------------------------------------------------
    def run(self, user_text: str | None) -> Iterator[ev.Event]:
        """One user turn: runs until the model ends its turn, a guard stops it, or Ctrl+C.
        Observers see every event before the front-end does, the final Stopped included: a
        Ctrl+C or a model failure inside a hook still ends the turn with a recorded stop.
        A cancel that arrives before the turn starts is honoured; the flag is cleared at the end."""
        turn = self._turn(user_text)
        try:
            while True:
                try:
                    event = next(turn)
                except StopIteration:
                    return
                except KeyboardInterrupt:
                    self.cancel()
                    event = self._stop("interrupted", INTERRUPTED, self._step)
                except m.ModelError as exc:
                    event = self._stop("failed", str(exc), self._step, exit_code=exc.exit_code)
                self.notify(event)
                yield event
                if isinstance(event, ev.Stopped):
                    return
        finally:
            turn.close()
            self.ctx.cancel.clear()

    def notify(self, event: ev.Event) -> None:
        """Tell the observers (session, usage, report) about an event the loop did not yield itself."""
        for observe in self.hooks.observers:
            observe(event)

    def _turn(self, user_text: str | None) -> Generator[ev.Event, None, None]:
        self._step = step = 0
        refused = self._begin(user_text)
        if refused is not None:
            yield self._stop("stopped", refused, step)
            return
        self.repeats.reset()
        exceeded = 0  # replies in a row that hit the context window
        while True:
            if self.ctx.cancel.is_set():
                yield self._stop("interrupted", INTERRUPTED, step)
                return
            if step >= self.max_steps:
                yield self._stop("stopped", STEP_LIMIT.format(self.max_steps), step)
                return
            self._step = step = step + 1
            self.steps_total += 1
            yield ev.StepStarted(step)
            yield from [ev.Notice(self.notes.pop(0), "info") for _ in range(len(self.notes))]  # said once
            self._flush_guidance()
            yield from notices.stale_reads(self.ctx.workspace, self.transcript, self.record)
            if self.hooks.prepare:
                yield from self.hooks.prepare(self.transcript)
            reply = yield from self._ask()
            if reply is None:
                yield self._stop("interrupted", INTERRUPTED, step)
                return
            calls, stop_reason, details = reply
            if stop_reason == "refusal":
                category = str(details.get("category") or "unspecified")
                yield self._stop(
                    "failed",
                    f"the model refused to continue (category: {category})",
                    step,
                    exit_code=1,
                    extra={"refusal": category},
                )
                return
            if stop_reason == "model_context_window_exceeded":
                exceeded += 1
                if exceeded > 1 or self.hooks.compact is None:
                    yield self._stop("failed", "the conversation no longer fits the model's context window", step, exit_code=1)
                    return
                yield ev.Notice("the reply hit the model's context window; compacting and going on", "warning")
                self.settle()
                yield from self.hooks.compact(self.transcript)
                continue
            exceeded = 0
            if stop_reason == "pause_turn" and not calls:
                continue  # the API paused its own long turn: send the conversation back as it is
            if not calls:
                if stop_reason == "max_tokens":
                    yield ev.Notice("the reply was cut at max_tokens", "warning")
                ended = yield from self._finish(step)
                if ended is None:
                    continue
                yield ended
                return
            stop = yield from self._run_tools(calls, step)
            if stop:
                yield stop
                return

    def _begin(self, user_text: str | None) -> str | None:
        """The user's message joins the conversation, unless the gate stops the turn (its reason)."""
        refused = self.hooks.gate.turn(user_text or None)
        if refused is None and user_text:
            self.transcript.add_user([text_block(user_text)])
        return refused

    def _finish(self, step: int) -> Generator[ev.Event, None, ev.Stopped | None]:
        """The model ended its turn: the self-check, then the gate, may send it back to work
        (None); otherwise the turn is done."""
        asking = guards.asks_user(self.transcript.messages)  # the user answers it, not the self-check
        check = None if asking else self.hooks.on_finish
        if check is not None:
            yield ev.Checking()
        follow_up = check(self) if check is not None else None
        if follow_up:
            self.transcript.note(follow_up)
            said = follow_up.splitlines()[0].strip("[]").removeprefix("cast ").removeprefix("self-check: ")
            yield ev.Notice("self-check: " + said, "warning")
            return None
        guidance = self.hooks.gate.done(final_text(self.transcript.messages))
        if guidance:
            self.transcript.note(guidance)
            yield ev.Notice("a hook sent the model back to work: " + one_line(guidance, 200), "warning")
            return None
        return self._stop("done", "the model asks you a question" if asking else "the model finished its turn", step)

    def _ask(self) -> Generator[ev.Event, None, tuple[list[m.ToolUse], str, dict[str, Any]] | None]:
        """Stream one reply. Returns (tool calls, stop reason), or None when interrupted."""
        prefix = self.prefix()
        request = m.Request(
            prefix.system,
            prefix.tools,
            tuple(self.transcript.messages),
            self.max_tokens,
            effort=prefix.effort if prefix.effort is not None else self.effort,
            drop_block=prefix.drop_block,
            context_management=prefix.context_management,
            cancel=self.ctx.cancel,
            chars=self.transcript.chars,
            cache_anchors=self.transcript.cache_anchors,
        )
        reply = streamed.Reply()
        stream = self.model.stream(request)
        try:
            for item in stream:
                if self.ctx.cancel.is_set():
                    break
                yield from streamed.take(reply, item, self._account)
        except KeyboardInterrupt:
            self.cancel()
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
        if reply.stop is None:  # interrupted mid-stream: keep what was said, drop half-formed calls
            text = reply.text
            self.transcript.add_assistant([text_block("".join(text) + f"\n[{INTERRUPTED}]")] if text else [])
            if not self.ctx.cancel.is_set():
                raise m.ModelError(f"the reply from {self.model.name} ended without a stop event")
            return None
        content = reply.stop.content
        if reply.stop.refused:
            return reply.calls, reply.stop.reason, dict(reply.stop.details or {})  # discarded, never sent back
        self.transcript.add_assistant(list(content))
        for block in content:  # the model's notes between tool calls (thinking blocks with text)
            if block.get("type") == "thinking" and str(block.get("thinking") or "").strip():
                yield ev.Note(str(block["thinking"]).strip())
        return reply.calls, reply.stop.reason, dict(reply.stop.details or {})

    def _account(self, usage: m.Usage) -> ev.UsageUpdate:
        return self.hooks.book.call(usage, self._step)  # booked and priced once, per call (prices can be tiered)

    # -- tools ----------------------------------------------------------------------------
    def _run_tools(self, calls: list[m.ToolUse], step: int) -> Generator[ev.Event, None, ev.Stopped | None]:
        """Run one turn's calls: consecutive read-only calls concurrently, others in order.
        Each batch's results join the transcript as soon as it finishes, so a crash loses at most
        the batch in flight. Returns a Stopped event when a guard ends the run."""
        by_name = {t.name: t for t in self.tools}
        streaks = self.failures.turn()
        stuck: str | None = None
        declined = ""  # why the calls left in this turn were not run, when no Ctrl+C stopped them
        for batch in dispatch.batches(calls, by_name):
            for call in batch:
                yield ev.ToolCall(call.id, call.name, call.input, getattr(by_name.get(call.name), "writes", ""))
            if self.ctx.cancel.is_set():
                break
            try:
                outcomes = dispatch.execute(batch, by_name, self.ctx, self.record, step, self.hooks.gate)
            except KeyboardInterrupt:
                self.cancel()
                outcomes = dispatch.interrupted(batch, by_name, INTERRUPTED)
            blocks = []
            for call, (obs, from_record) in zip(batch, outcomes):
                if not from_record and not self.ctx.cancel.is_set():
                    if streaks.record(call.name, obs.ok, obs.text) == FAILURE_NUDGE_AT:
                        obs.text += "\n" + self.failures.nudge(call.name)
                    stuck = stuck or self.repeats.check(obs)  # the same command, the same outcome, nothing changed
                blocks.append(tool_result_block(call.id, obs.text, not obs.ok))
                yield ev.ToolResult(
                    call.id, call.name, obs.ok, obs.summary, obs.text, obs.changed, from_record, obs.result, call.input
                )
            self.transcript.add_user(blocks)
            halt = self.hooks.halt() if self.hooks.halt is not None else None
            if halt is not None:  # nothing more runs (a changed plan not approved)
                stuck, declined = halt.reason, halt.unrun
                break
        for use in self.transcript.pending_tool_uses_unanswered():
            obs = dispatch.not_run(use, by_name, INTERRUPTED, declined)
            self.transcript.add_user([tool_result_block(use["id"], obs.text, True)])
            yield ev.ToolResult(use["id"], use["name"], False, obs.summary, obs.text, (), False, obs.result, use.get("input"))
        self.settle()
        if self.hooks.after_tools:
            yield from self.hooks.after_tools(self)
        if self.ctx.cancel.is_set():
            return self._stop("interrupted", INTERRUPTED, step)
        if stuck is not None:
            return self._stop("stopped", stuck, step)
        failing = streaks.exhausted()
        if failing:
            name, last = failing
            return self._stop(
                "stopped",
                f"{name} failed {FAILURE_STOP_AT} times in a row; last error: {one_line(last.removeprefix('error: '), 600)}",
                step,
            )
        return None

    def _flush_guidance(self) -> None:
        with self._lock:
            guidance, self._guidance = self._guidance, []
        for text in guidance:
            self.transcript.notice(notices.guidance(text))

    def settle(self) -> None:
        """Answer tool calls left without a result, so the transcript stays valid for the API."""
        for use in self.transcript.pending_tool_uses_unanswered():
            self.transcript.add_user([tool_result_block(use["id"], f"[{INTERRUPTED}: not run]", True)])

    def _stop(
        self, status: str, reason: str, step: int, exit_code: int | None = None, extra: dict[str, Any] | None = None
    ) -> ev.Stopped:
        self.settle()
        details = {"exit_code": exit_code} if exit_code is not None else {}
        return ev.Stopped(status, reason, step, {**details, **(extra or {})})


def drive(agent: Agent, events: Iterator[ev.Event], handle: Callable[[ev.Event], None]) -> ev.Stopped:
    """Consume a run, turning Ctrl+C at any moment into a clean interrupted stop."""
    last: ev.Stopped | None = None
    while True:
        try:
            for event in events:
                handle(event)
                if isinstance(event, ev.Stopped):
                    last = event
            break
        except KeyboardInterrupt:
            agent.cancel()
    if last is None:  # the run died between its own checks: settle and report it anyway
        agent.settle()
        last = ev.Stopped("interrupted", INTERRUPTED)
        agent.notify(last)
        handle(last)
    return last
