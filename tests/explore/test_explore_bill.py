"""Every explore is on the run's one usage book, at its own model's price and under its own name:
in the --json usage, the one-shot summary, /cost and the REPL's running figures."""

from __future__ import annotations

from types import SimpleNamespace

from cast.agent.cost import UsageLog, price_for
from cast.config import Config
from cast.models.base import Usage
from cast.modes import PLAN
from cast.options import Options
from cast.repl.state import ReplState

CALL = Usage(input_tokens=1_000_000, output_tokens=100_000)
SMALL = Usage(input_tokens=50_000, output_tokens=10_000)  # below Haiku 5.5's long-prompt tier


def test_a_subagents_calls_are_billed_at_its_models_price_and_counted_apart():
    book = UsageLog(price_for(Config(), "claude-sonnet-5-5"))
    book.call(CALL, 1)  # the run's own call: $2 + $1
    haiku = price_for(Config(), "claude-haiku-5-5")
    book.add(SMALL, "explore", agent="explore-1", model="claude-haiku-5-5", cost=haiku(SMALL))  # $0.005 + $0.005
    assert book.cost() == 3.01
    children = book.to_dict()["subagents"]
    assert children == {"explore-1": {"model": "claude-haiku-5-5", "calls": 1, **SMALL.to_dict(), "cost": 0.01}}
    assert book.to_dict()["calls"][1]["agent"] == "explore-1"
    assert "explores: 1, 1 calls, $0.0100, included" in (book.summary() or "")
    assert book.subagent_lines()[1].startswith("  explore-1 on claude-haiku-5-5: 1 calls")


def test_an_unpriced_subagent_leaves_the_runs_cost_unknown_rather_than_short():
    book = UsageLog(price_for(Config(), "claude-sonnet-5-5"))
    book.add(CALL, "explore", agent="explore-1", model="claude-made-up", cost=None)
    assert book.cost() is None and book.subagents()["explore-1"]["cost"] is None


def test_the_repls_figures_are_its_runs_books_summed_explores_included():
    state = ReplState(Options())
    left = UsageLog(price_for(Config(), "claude-sonnet-5-5"))
    left.call(CALL, 1)  # a run this REPL has left behind: $3
    current = UsageLog(price_for(Config(), "claude-sonnet-5-5"))
    current.call(Usage(input_tokens=500), 1)
    current.add(CALL, "explore", agent="explore-1", model="claude-haiku-5-5", cost=0.10)  # as the child books it
    current.add(CALL, "explore", agent="explore-2", model="claude-haiku-5-5", cost=0.20)
    state.books["2026-01-01-left"] = left
    state.run = SimpleNamespace(usage=current, session_id="2026-01-01-now")  # type: ignore[assignment]
    total = state.total()
    assert round(total.cost, 6) == 3.301 and total.usage.input_tokens == 3 * CALL.input_tokens + 500
    assert total.context_tokens == 500  # the run's own context, not a child's
    again = UsageLog(price_for(Config(), "claude-sonnet-5-5"), carried=left.session_figures())
    state.run = SimpleNamespace(usage=again, session_id="2026-01-01-left")  # type: ignore[assignment]
    assert round(state.total().cost, 6) == 3.0  # that session resumed: its new book carries what the first spent, once


def test_the_plan_prompt_says_when_exploring_pays():
    assert "explore hands one question to a read-only subagent" in PLAN.prompt
    assert "does not pay for a\nfile you already know" in PLAN.prompt
