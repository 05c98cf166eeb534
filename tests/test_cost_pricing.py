"""Prices from config: every token class at its own rate, unknown models flagged rather than
guessed, and per-call usage records that include side calls."""

from __future__ import annotations

import json

import pytest

from cast.agent.cost import UsageLog, price_for
from cast.agent.loop import Agent, Hooks
from cast.config import Config, load
from cast.models.base import Usage
from cast.models.scripted import ScriptedModel
from cast.tools.base import ToolContext
from cast.workspace import Workspace

MILLION = 1_000_000


def test_a_known_model_is_priced_per_token_class():
    price = price_for(Config(), "claude-sonnet-4-5")
    assert price.known and price.label == ""
    assert price(Usage(input_tokens=MILLION)) == pytest.approx(3.0)
    assert price(Usage(output_tokens=MILLION)) == pytest.approx(15.0)
    assert price(Usage(cache_read_tokens=MILLION)) == pytest.approx(0.30)
    assert price(Usage(cache_write_tokens=MILLION)) == pytest.approx(3.75)
    mixed = Usage(input_tokens=2_000, output_tokens=500, cache_read_tokens=100_000, cache_write_tokens=10_000)
    assert price(mixed) == pytest.approx((2_000 * 3 + 500 * 15 + 100_000 * 0.3 + 10_000 * 3.75) / MILLION)


def test_dated_ids_find_their_family_and_config_overrides_apply(tmp_path):
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text('[prices]\n"my-model" = [1.0, 2.0, 0.1, 1.25]\n')
    config = load(tmp_path)
    assert price_for(config, "claude-haiku-4-5-20251001")(Usage(input_tokens=MILLION)) == pytest.approx(1.0)
    assert price_for(config, "my-model")(Usage(cache_write_tokens=MILLION)) == pytest.approx(1.25)
    assert not price_for(config, "claude-haiku-4-50").known  # a prefix is not a family


def test_an_unknown_model_costs_zero_and_says_so():
    price = price_for(Config(), "script:demo.jsonl")
    assert not price.known and price(Usage(1000, 1000, 1000, 1000)) == 0.0
    assert price.label == "unknown price for script:demo.jsonl"


def test_an_unknown_price_is_null_in_json_never_zero_and_text_says_why():
    log = UsageLog(price_for(Config(), "claude-new-9"))
    log.add(Usage(1_000, 100, 0, 0), "step")
    data = json.loads(json.dumps(log.to_dict()))
    assert data["price_known"] is False and data["total"]["cost"] is None and data["calls"][0]["cost"] is None
    assert log.cost() is None
    assert (
        log.summary()
        == "1k in, 100 out, 0 cache read, 0 cache write · cost unknown: cast has no price for claude-new-9 (set [prices] in .cast/config.toml)"
    )
    known = UsageLog(price_for(Config(), "claude-sonnet-5-5"))
    known.add(Usage(1_000, 100, 0, 0), "step")
    assert known.to_dict()["total"]["cost"] == pytest.approx(0.003) and known.cost() == pytest.approx(0.003)


def test_fable_5_and_mythos_5_are_priced():
    """Fable 5: $10 in, $50 out, $12.50 5-minute write, $20 1-hour write, $1 read; Mythos 5 the same."""
    for name in ("claude-fable-5", "claude-mythos-5", "claude-fable-5-20260609"):
        price = price_for(Config(), name)
        assert price.known, name
        usage = Usage(MILLION, MILLION, MILLION, 2 * MILLION, MILLION)
        assert price(usage) == pytest.approx(10 + 50 + 1 + 12.50 + 20), name


def test_usage_log_records_each_call_and_side_calls(tmp_path):
    prices = {"m": (1.0, 10.0, 0.1, 1.25)}
    log = UsageLog(price_for(Config(prices=prices), "m"))
    model = ScriptedModel([{"text": "one", "tool_uses": []}])
    agent = Agent(model=model, tools=[], system="s" * 400, ctx=ToolContext(workspace=Workspace(tmp_path)), hooks=Hooks(book=log))
    assert list(agent.run("hello"))
    log.add(Usage(1_000, 100, 0, 0), "compaction")
    first, side = log.records
    assert (first.step, first.kind) == (1, "step")
    assert first.usage.input_tokens > 100 and first.context_tokens == first.usage.input_tokens
    assert first.cost == pytest.approx((first.usage.input_tokens * 1 + first.usage.output_tokens * 10) / MILLION, abs=1e-6)
    assert (side.kind, side.cost) == ("compaction", pytest.approx((1_000 * 1 + 100 * 10) / MILLION))
    data = json.loads(json.dumps(log.to_dict()))
    assert data["price_known"] and [c["kind"] for c in data["calls"]] == ["step", "compaction"]
    assert data["total"]["input_tokens"] == first.usage.input_tokens + 1_000
    assert data["total"]["cost"] == pytest.approx(first.cost + side.cost, abs=1e-6)


def test_the_book_prices_each_call_when_it_is_made_and_a_model_switch_never_reprices_the_past():
    log = UsageLog(price_for(Config(), "claude-opus-4-5"))
    first = log.call(Usage(100, 10, 0, 1_000), 1)
    assert (first.context_tokens, first.usage) == (1_100, Usage(100, 10, 0, 1_000))
    log.price = price_for(Config(), "claude-haiku-4-5")
    second = log.call(Usage(50, 20, 1_000, 200), 2)
    assert [r.step for r in log.records] == [1, 2] and [r.model for r in log.records] == ["claude-opus-4-5", "claude-haiku-4-5"]
    opus = (100 * 5 + 10 * 25 + 1_000 * 6.25) / MILLION
    haiku = (50 * 1 + 20 * 5 + 1_000 * 0.10 + 200 * 1.25) / MILLION
    assert log.records[1].cost == pytest.approx(haiku) and second.cost == pytest.approx(opus + haiku)
    assert second.usage == Usage(150, 30, 1_000, 1_200) and log.cost() == pytest.approx(opus + haiku)
    log.price = price_for(Config(), "claude-made-up")
    log.call(Usage(10, 1), 3)
    assert log.cost() is None and "no price for claude-made-up" in (log.summary() or "")


def test_every_current_model_is_priced():
    from cast.models.catalog import BUILTIN

    for spec in BUILTIN.values():
        if spec.lifecycle != "retired":
            assert price_for(Config(), spec.id).known, spec.id


def test_a_cost_figure_matches_todays_table():
    """Sonnet 5.5: $2 in, $10 out, $2.50 5-minute write, $4 1-hour write, $0.10 read (0.05x input)."""
    price = price_for(Config(), "claude-sonnet-5-5")
    usage = Usage(input_tokens=3_000, output_tokens=1_200, cache_read_tokens=40_000, cache_write_tokens=5_000)
    assert price(usage) == pytest.approx((3_000 * 2 + 1_200 * 10 + 40_000 * 0.10 + 5_000 * 2.50) / MILLION)
    assert price(usage) == pytest.approx(0.0345)
    opus = price_for(Config(), "claude-opus-5-5")
    assert opus(Usage(cache_read_tokens=MILLION)) == pytest.approx(0.05 * opus(Usage(input_tokens=MILLION)))


def test_haiku_5_5_long_prompts_cost_more_per_request():
    price = price_for(Config(), "claude-haiku-5-5")
    short = Usage(input_tokens=60_000, output_tokens=1_000, cache_read_tokens=40_000)  # exactly 100k: base tier
    long = Usage(input_tokens=60_001, output_tokens=1_000, cache_read_tokens=40_000)
    assert price(short) == pytest.approx((60_000 * 0.10 + 1_000 * 0.50 + 40_000 * 0.01) / MILLION)
    assert price(long) == pytest.approx((60_001 * 0.50 + 1_000 * 2.50 + 40_000 * 0.05) / MILLION)
    log = UsageLog(price)
    log.add(short, "step")
    log.add(short, "step")  # two short calls stay in the base tier even though their sum passes 100k
    assert log.total_cost() == pytest.approx(2 * price(short), abs=2e-6)


def test_one_hour_cache_writes_are_priced_apart():
    price = price_for(Config(), "claude-sonnet-5-5")
    usage = Usage(cache_write_tokens=300_000, cache_write_1h_tokens=100_000)
    assert price(usage) == pytest.approx((200_000 * 2.50 + 100_000 * 4) / MILLION)


def test_json_output_says_null_for_an_unknown_price_and_text_says_why(repo):
    from conftest import invoke_cast as run_cast
    from fakeapi import FakeAPI, FakeModel, text

    api = FakeAPI().start()
    try:
        api.add_model(FakeModel("claude-new-9", "Claude New 9", "new", "2026-12-01T00:00:00Z"))  # cast has no price
        api.reply(text("Nothing to plan."))
        api.reply(text("Nothing to plan."))
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "test-key"}
        done = run_cast(repo, "plan", "--json", "--model", "claude-new-9", "anything", **env)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        assert [r.status for r in api.requests] == [200], done.stdout
        assert result["type"] == "result" and result["cost"] is None and result["usage"]["calls"], done.stdout
        assert result["usage"]["total"]["cost"] is None and result["usage"]["price_known"] is False
        from cast.sessions import load

        meta, _ = load(repo, result["session"])
        assert meta["cost"] is None  # the session's books say the same
        shown = run_cast(repo, "plan", "--model", "claude-new-9", "anything", **env)
        assert "cost unknown: cast has no price for claude-new-9" in shown.stdout + shown.stderr
    finally:
        api.stop()
