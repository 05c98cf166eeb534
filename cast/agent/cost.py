"""What a session costs, from the usage the provider reported, priced from a table of today's rates.

Why its own module: a cost figure is only honest if every token is in it. The loop's UsageUpdate
covers the agent's own requests; side calls (compaction summaries, the self-check verdict) are
added here too, so `--json` output can show per-step usage and a total that includes them.
Prices are data: `PRICES` below (USD per million tokens), overridden per model by `config.prices`
(`[input, output, cache read, cache write]`, optionally a fifth value for 1-hour cache writes).
A model cast has no price for has no cost: `None` in `--json` ("cost": null, never 0.0) and the
reason in text ("cost unknown: no price for ..."), rather than a guess.
Some models charge more for a long prompt (Haiku 5.5 above 100k input tokens): the tier applies
to a whole request, so a cost is computed per call and totals are sums of calls, never a price
applied to summed usage.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cast.agent import events as ev
from cast.models.base import Usage
from cast.text import tokens

PER = 1_000_000


@dataclass(frozen=True)
class Rates:
    """USD per million tokens. `cache_write` is the 5-minute write, `cache_write_1h` the 1-hour one."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_write_1h: float

    def cost(self, usage: Usage) -> float:
        long_writes = min(usage.cache_write_1h_tokens, usage.cache_write_tokens)
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + (usage.cache_write_tokens - long_writes) * self.cache_write
            + long_writes * self.cache_write_1h
        ) / PER


def _r(inp: float, out: float, write5m: float, write1h: float, read: float) -> Rates:
    return Rates(inp, out, read, write5m, write1h)


# Today's list prices (https://platform.claude.com/docs/en/about-claude/pricing and each model's
# overview page): input, output, 5-minute cache write, 1-hour cache write, cache read.
PRICES: dict[str, Rates] = {
    "claude-fable-5-2": _r(8, 40, 10, 16, 0.20),
    "claude-mythos-5-2": _r(8, 40, 10, 16, 0.20),
    "claude-opus-5-5": _r(4, 20, 5, 8, 0.20),
    "claude-sonnet-5-5": _r(2, 10, 2.50, 4, 0.10),
    "claude-haiku-5-5": _r(0.10, 0.50, 0.125, 0.20, 0.01),
    "claude-fable-5-1": _r(10, 50, 12.50, 20, 0.25),
    "claude-mythos-5-1": _r(10, 50, 12.50, 20, 0.25),
    # https://platform.claude.com/docs/en/models/fable-5/overview: $10 in, $50 out; Mythos 5 "shares
    # Claude Fable 5's specifications and pricing"; cache writes 1.25x / 2x, reads 0.1x of input.
    "claude-fable-5": _r(10, 50, 12.50, 20, 1.00),
    "claude-mythos-5": _r(10, 50, 12.50, 20, 1.00),
    "claude-opus-5": _r(5, 25, 6.25, 10, 0.50),
    "claude-sonnet-5": _r(2, 10, 2.50, 4, 0.20),
    "claude-opus-4-8": _r(5, 25, 6.25, 10, 0.50),
    "claude-opus-4-7": _r(5, 25, 6.25, 10, 0.50),
    "claude-opus-4-6": _r(5, 25, 6.25, 10, 0.50),
    "claude-opus-4-5": _r(5, 25, 6.25, 10, 0.50),
    "claude-sonnet-4-6": _r(3, 15, 3.75, 6, 0.30),
    "claude-sonnet-4-5": _r(3, 15, 3.75, 6, 0.30),  # retired; kept to price old sessions
    "claude-opus-4-1": _r(15, 75, 18.75, 30, 1.50),  # retired 2026-08-05; kept to price old sessions
    "claude-haiku-4-5": _r(1, 5, 1.25, 2, 0.10),
}
# Prompt-size tiers: above `tokens` of prompt (input + cache read + cache write), the whole request
# is billed at the second rates.
LONG_PROMPT: dict[str, tuple[int, Rates]] = {
    "claude-haiku-5-5": (100_000, _r(0.50, 2.50, 0.625, 1, 0.05)),
}


@dataclass(frozen=True)
class Price:
    """A callable `Usage -> USD` for one call, usable as `Hooks.price`."""

    model: str
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    known: bool = True
    cache_write_1h: float = 0.0
    long_prompt: tuple[int, Rates] | None = None

    @property
    def rates(self) -> Rates:
        return Rates(self.input, self.output, self.cache_read, self.cache_write, self.cache_write_1h or self.input * 2)

    def __call__(self, usage: Usage) -> float:
        if not self.known:
            return 0.0
        if self.long_prompt is not None and usage.prompt_tokens > self.long_prompt[0]:
            return self.long_prompt[1].cost(usage)
        return self.rates.cost(usage)

    @property
    def label(self) -> str:
        """For a status line: a price is shown only when cast knows it."""
        return "" if self.known else f"unknown price for {self.model}"

    @property
    def reason(self) -> str:
        """Why there is no cost figure, for text output."""
        return f"cost unknown: cast has no price for {self.model} (set [prices] in .cast/config.toml)"


def token_summary(usage: Usage) -> str:
    """`12.3k in, 1.2k out, 45k cache read, 3.2k cache write` for people."""
    return (
        f"{tokens(usage.input_tokens)} in, {tokens(usage.output_tokens)} out, "
        f"{tokens(usage.cache_read_tokens)} cache read, {tokens(usage.cache_write_tokens)} cache write"
    )


def _family(name: str, table: dict[str, Any]) -> str | None:
    """Exact name, else the longest name the id extends (`claude-haiku-4-5-20251001`)."""
    if name in table:
        return name
    family = sorted((k for k in table if name.startswith((k + "-", k + "@"))), key=len, reverse=True)
    return family[0] if family else None


def price_for(config: Any, model_name: str) -> Price:
    """Configured prices first (exact or family), then the built-in table; anything else is unknown."""
    name = model_name.strip()
    configured: dict[str, Any] = dict(getattr(config, "prices", {}) or {})
    key = _family(name, configured)
    if key is not None:
        values = tuple(float(v) for v in configured[key])
        if len(values) in (4, 5):
            return Price(
                model_name, values[0], values[1], values[2], values[3], cache_write_1h=values[4] if len(values) == 5 else 0.0
            )
        return Price(model_name, known=False)
    key = _family(name, PRICES)
    if key is None:
        return Price(model_name, known=False)
    r = PRICES[key]
    return Price(
        model_name,
        r.input,
        r.output,
        r.cache_read,
        r.cache_write,
        cache_write_1h=r.cache_write_1h,
        long_prompt=LONG_PROMPT.get(key),
    )


@dataclass(frozen=True)
class StepUsage:
    """One model call: which step, what kind (step, compaction, self-check), tokens and cost."""

    index: int
    step: int
    kind: str
    usage: Usage
    context_tokens: int
    cost: float | None  # None: no price known for the model
    agent: str = ""  # "" the run's own model; a subagent's name ("explore-1") for its calls
    model: str = ""  # the model that made the call, priced at its own rates

    def to_dict(self) -> dict[str, Any]:
        own = {"agent": self.agent, "model": self.model} if self.agent else {}
        return {"index": self.index, "step": self.step, "kind": self.kind, **self.usage.to_dict(),
                "context_tokens": self.context_tokens, "cost": self.cost, **own}  # fmt: skip


@dataclass
class UsageLog:
    """The run's one usage book: every model call it pays for, one record each, priced when it is
    made. The loop books its own calls through `call` (its UsageUpdate is the book's figures after
    it), side calls (compaction summaries, the self-check verdict) come through `add`, and a
    subagent's calls through `add(agent=, model=, cost=)` at its own model's price. The report,
    `--json`, the one-shot summary, the REPL's toolbar and /cost, and the session's meta all read
    this book; none keeps a count of its own. `price` is the run's model's, changed only by
    `Run.set_model`: a call is priced when it is booked, so a model switch never reprices the past.
    `carried` is what the session spent before this run (a resumed one), for the session's figures."""

    price: Price
    records: list[StepUsage] = field(default_factory=list)
    carried: ev.UsageUpdate = ev.UsageUpdate()
    forward: Callable[[StepUsage], None] | None = None  # a child's book: each record to its parent's bill as well
    _step: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)  # subagents book from threads

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted):
            self._step = event.step

    def call(self, usage: Usage, step: int) -> ev.UsageUpdate:
        """The loop's own model call at `step`, booked at the run's price; the run's figures after it."""
        self._step = step
        self._record("step", usage, usage.prompt_tokens)
        return self.figures()

    def add(self, usage: Usage, kind: str, *, agent: str = "", model: str = "", cost: float | None = None) -> None:
        """A side call's usage, priced at the run's rates; a subagent's (`agent`) comes priced at its
        own model's (`cost`, None when cast has no price for it). Safe from any thread."""
        if agent:
            self._append(kind, usage, usage.prompt_tokens, None if cost is None else round(cost, 6), agent, model)
        else:
            self._record(kind, usage, usage.prompt_tokens)

    def _record(self, kind: str, usage: Usage, context: int) -> None:
        price = self.price
        self._append(kind, usage, context, round(price(usage), 6) if price.known else None, "", price.model)

    def _append(self, kind: str, usage: Usage, context: int, cost: float | None, agent: str, model: str) -> None:
        with self._lock:
            record = StepUsage(len(self.records) + 1, self._step, kind, usage, context, cost, agent, model)
            self.records.append(record)
        if self.forward is not None:
            self.forward(record)

    def rows(self) -> list[StepUsage]:
        """The records so far, as one consistent list (subagents append from their threads)."""
        with self._lock:
            return list(self.records)

    # -- what every figure reads --------------------------------------------------------------
    def figures(self) -> ev.UsageUpdate:
        """This run's tokens and cost so far, every call included, and the size of its newest
        request of its own (what the next one starts from): the toolbar's and UsageUpdate's."""
        rows = self.rows()
        context = next(
            (r.context_tokens for r in reversed(rows) if not r.agent and r.kind == "step"), self.carried.context_tokens
        )
        return ev.UsageUpdate(sum((r.usage for r in rows), Usage()), context, sum(r.cost or 0.0 for r in rows))

    def session_figures(self) -> ev.UsageUpdate:
        """The session's figures: what it spent before this run (`carried`) and in it."""
        now = self.figures()
        return ev.UsageUpdate(self.carried.usage + now.usage, now.context_tokens, self.carried.cost + now.cost)

    def subagents(self) -> dict[str, dict[str, Any]]:
        """Each subagent's calls summed: its model, calls, tokens and cost (None: unpriced)."""
        found: dict[str, dict[str, Any]] = {}
        for r in self.rows():
            if not r.agent:
                continue
            row = found.setdefault(r.agent, {"model": r.model, "calls": 0, "usage": Usage(), "cost": 0.0})
            row["calls"] += 1
            row["usage"] += r.usage
            row["cost"] = None if r.cost is None or row["cost"] is None else row["cost"] + r.cost
        return found

    def subagent_lines(self) -> list[str]:
        """For `/cost`: each subagent's model, calls, tokens and cost (in the run's figures too)."""
        children = self.subagents()
        lines = [f"explores (in the figures above): {len(children)}"] if children else []
        for name, row in children.items():
            cost = f"${row['cost']:.4f}" if row["cost"] is not None else "cost unknown"
            lines.append(f"  {name} on {row['model']}: {row['calls']} calls, {token_summary(row['usage'])}, {cost}")
        return lines

    def total(self) -> Usage:
        return self.figures().usage

    def unpriced(self) -> str | None:
        """The model of a call cast had no price for (the run's now, before any call), else None."""
        rows = self.rows()
        if not rows:
            return None if self.price.known else self.price.model
        return next((r.model or self.price.model for r in rows if r.cost is None), None)

    def summary(self) -> str | None:
        """The run's tokens and cost in one line, every call included (compaction, self-check):
        the figure a one-shot run ends with. None for a scripted model (free, its counts guessed)."""
        total = token_summary(self.total())
        children = self.subagents()
        if children:
            spent = [row["cost"] for row in children.values()]
            priced = f", ${sum(spent):.4f}" if None not in spent else ""
            total += f" (explores: {len(children)}, {sum(row['calls'] for row in children.values())} calls{priced}, included)"
        unpriced = self.unpriced()
        if unpriced is None:
            return f"{total} · ${self.total_cost():.4f}"
        if unpriced.startswith("script:"):
            return None
        return f"{total} · {Price(unpriced, known=False).reason}"

    def total_cost(self) -> float:
        """The sum of the calls' costs (a tiered price applies per request, not to a session total);
        calls without a price count 0.0 here: ask `cost()` for None then."""
        return self.figures().cost

    def cost(self) -> float | None:
        """The run's cost, or None when cast has no price for a model it used (never a made-up 0.0)."""
        return round(self.total_cost(), 6) if self.unpriced() is None else None

    def session_cost(self) -> float | None:
        """The session's cost (what a resumed one spent before included), None as `cost()` is."""
        cost = self.cost()
        return None if cost is None else round(cost + self.carried.cost, 6)

    def to_dict(self) -> dict[str, Any]:
        total = self.total()
        return {
            "model": self.price.model,
            "price_known": self.price.known,
            "total": {**total.to_dict(), "cost": self.cost()},
            "calls": [r.to_dict() for r in self.rows()],
            "subagents": {
                name: {"model": row["model"], "calls": row["calls"], **row["usage"].to_dict(), "cost": row["cost"]}
                for name, row in self.subagents().items()
            },
        }
