"""What a session costs, from the usage the provider reported, priced from config.

Why its own module: a cost figure is only honest if every token is in it. The loop's UsageUpdate
covers the agent's own requests; side calls (compaction summaries, the self-check verdict) are
added here too, so `--json` output can show per-step usage and a total that includes them.
Prices are data (`config.prices`, USD per million tokens: input, output, cache read, cache
write); a model cast has no price for costs 0.0 and says so (`known` is False) rather than
guessing.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cast.agent import events as ev
from cast.models.base import Usage

PER = 1_000_000


@dataclass(frozen=True)
class Price:
    """A callable `Usage -> USD`, usable as `Hooks.price`."""

    model: str
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    known: bool = True

    def __call__(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        ) / PER

    @property
    def label(self) -> str:
        """For a status line: a price is shown only when cast knows it."""
        return "" if self.known else f"unknown price for {self.model}"


def price_for(config: Any, model_name: str) -> Price:
    """Exact name first, then the longest configured name the model id starts with, so a dated
    id (`claude-sonnet-4-5-20250929`) finds its family's price. Anything else is unknown."""
    prices: dict[str, tuple[float, ...]] = dict(getattr(config, "prices", {}) or {})
    name = model_name.strip()
    rates = prices.get(name)
    if rates is None:
        family = sorted((k for k in prices if name.startswith(k + "-") or name.startswith(k + "@")), key=len, reverse=True)
        rates = prices[family[0]] if family else None
    if rates is None or len(rates) != 4:
        return Price(model_name, known=False)
    return Price(model_name, *(float(r) for r in rates))


@dataclass(frozen=True)
class StepUsage:
    """One model call: which step, what kind (step, compaction, self-check), tokens and cost."""

    index: int
    step: int
    kind: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    context_tokens: int
    cost: float


@dataclass
class UsageLog:
    """Per-call usage records. Feed it every loop event with `observe`, and side-call usage with
    `add` (give it as `on_usage` to ContextEconomy and SelfCheck)."""

    price: Price
    records: list[StepUsage] = field(default_factory=list)
    _step: int = 0
    _last: tuple[int, int, int, int] = (0, 0, 0, 0)

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted):
            self._step = event.step
        elif isinstance(event, ev.UsageUpdate):
            # UsageUpdate carries session totals; a record wants this call's share.
            now = (event.input_tokens, event.output_tokens, event.cache_read_tokens, event.cache_write_tokens)
            delta = Usage(*(max(0, a - b) for a, b in zip(now, self._last)))
            self._last = now
            self._record("step", delta, event.context_tokens)

    def add(self, usage: Usage, kind: str) -> None:
        self._record(kind, usage, usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens)

    def _record(self, kind: str, usage: Usage, context: int) -> None:
        self.records.append(StepUsage(
            len(self.records) + 1, self._step, kind, usage.input_tokens, usage.output_tokens,
            usage.cache_read_tokens, usage.cache_write_tokens, context, round(self.price(usage), 6),
        ))

    def total(self) -> Usage:
        total = Usage()
        for r in self.records:
            total = total + Usage(r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens)
        return total

    def total_cost(self) -> float:
        return self.price(self.total())

    def to_dict(self) -> dict[str, Any]:
        total = self.total()
        return {
            "model": self.price.model,
            "price_known": self.price.known,
            "total": {**asdict(total), "cost": round(self.price(total), 6)},
            "calls": [asdict(r) for r in self.records],
        }
