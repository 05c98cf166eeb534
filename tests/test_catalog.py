"""The built-in model table: the fallback every model-dependent decision reads when the Models API can't answer."""

from __future__ import annotations

from datetime import date

from cast.config import DEFAULT_MODEL, Config
from cast.models.catalog import builtin, current_ids


def test_default_model_is_current() -> None:
    spec = builtin(Config().model)
    assert DEFAULT_MODEL == "claude-sonnet-5-5"
    assert spec is not None and spec.lifecycle == "active" and spec.usable


def test_lifecycles_from_the_reference() -> None:
    retired = builtin("claude-sonnet-4-5-20250929")
    assert retired is not None and retired.lifecycle == "retired" and retired.retires_at == date(2026, 11, 30)
    assert retired.id == "claude-sonnet-4-5-20250929" and not retired.usable
    deprecated = builtin("claude-opus-4-5")
    assert deprecated is not None and deprecated.lifecycle == "deprecated" and deprecated.retires_at == date(2027, 1, 22)
    assert builtin("claude-nonexistent-9") is None
    assert all(builtin(m) is not None and builtin(m).lifecycle == "active" for m in current_ids())  # type: ignore[union-attr]


def test_capabilities_decide_what_is_sent() -> None:
    sonnet, opus, haiku = builtin("claude-sonnet-5-5"), builtin("claude-opus-5-5"), builtin("claude-haiku-5-5")
    assert sonnet and opus and haiku
    assert sonnet.supports_thinking("between_tools") and not sonnet.supports_thinking("enabled")
    assert not opus.supports_thinking("disabled") and haiku.supports_thinking("disabled")
    assert (sonnet.default_effort, opus.default_effort, haiku.default_effort) == ("high", "medium", "medium")
    assert sonnet.effort_or_default("xhigh") == "xhigh" and sonnet.effort_or_default("bogus") == ""
    assert "claude-sonnet-5-5" in opus.reads_thinking_of and "claude-opus-5-5" not in sonnet.reads_thinking_of


def test_thresholds_are_capped_by_the_window() -> None:
    big, small = builtin("claude-sonnet-5-5"), builtin("claude-haiku-4-5")
    assert big and small
    assert big.thresholds(80_000, 150_000) == (80_000, 150_000)
    assert small.thresholds(500_000, 900_000) == (120_000, 160_000)


def test_the_table_agrees_with_the_sdks_deprecation_data():
    import re
    from datetime import datetime

    deprecated = __import__("anthropic._data.deprecated_models", fromlist=["DEPRECATED_MODELS"]).DEPRECATED_MODELS
    for model_id, when in deprecated.items():
        spec = builtin(model_id)
        assert spec is not None and spec.lifecycle != "active", model_id
        day = datetime.strptime(re.sub(r"(\d+)(st|nd|rd|th)", r"\1", when), "%B %d, %Y").date()
        assert spec.retires_at == day, model_id
        assert spec.lifecycle == ("retired" if day <= date(2026, 12, 1) else "deprecated"), model_id


def test_fable_5_and_mythos_5_are_known_and_current() -> None:
    """The Fable 5 overview: legacy (still served), 1M context, 128K output; Mythos 5 shares its specs."""
    for name in ("claude-fable-5", "claude-mythos-5"):
        spec = builtin(name)
        assert spec is not None and spec.lifecycle == "active", name
        assert (spec.max_input_tokens, spec.max_tokens, spec.default_effort) == (1_000_000, 128_000, "high")
        assert spec.tool_changes and spec.cache_min_tokens == 512


def test_tool_changes_only_where_the_docs_confirm_them() -> None:
    """Mid-conversation tool changes are documented for Opus 5, Opus 4.8, Fable 5 and Mythos 5: any
    other model takes the path that works without them."""
    from cast.models.catalog import BUILTIN

    confirmed = {"claude-opus-5", "claude-opus-4-8", "claude-fable-5", "claude-mythos-5"}
    assert {spec.id for spec in BUILTIN.values() if spec.tool_changes} == confirmed


def test_xhigh_where_the_effort_page_lists_it_and_a_lowered_effort_is_said() -> None:
    for name in ("claude-opus-4-8", "claude-opus-4-7", "claude-sonnet-5"):
        spec = builtin(name)
        assert spec is not None and spec.effort_or_default("xhigh") == "xhigh" and spec.effort_note("xhigh") == "", name
    older = builtin("claude-opus-4-6")
    assert older is not None and older.effort_or_default("xhigh") == "high"
    assert older.effort_note("xhigh") == 'claude-opus-4-6 does not take effort "xhigh"; using "high"'
    haiku = builtin("claude-haiku-4-5")
    assert haiku is not None and haiku.effort_or_default("low") == ""
    assert "using the model's default" in haiku.effort_note("low")


def test_default_effort_is_high_where_the_effort_page_says_so() -> None:
    for name in ("claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5"):
        spec = builtin(name)
        assert spec is not None and spec.default_effort == "high", name
    haiku = builtin("claude-haiku-4-5")
    assert haiku is not None and haiku.default_effort == ""  # it takes no effort at all


def test_documented_ids_and_retirements() -> None:
    for alias, name in (("claude-sonnet-4-20250514", "claude-sonnet-4-0"), ("claude-opus-4-20250514", "claude-opus-4-0")):
        spec, dated = builtin(name), builtin(alias)
        assert spec is not None and dated is not None and spec.lifecycle == dated.lifecycle == "retired"
    assert builtin("claude-sonnet-4") is None and builtin("claude-opus-4") is None  # not documented ids
    opus41 = builtin("claude-opus-4-1")
    assert opus41 is not None and opus41.lifecycle == "retired" and opus41.retires_at == date(2026, 8, 5)


def test_max_tokens_follows_the_effort_and_the_models_output_limit() -> None:
    sonnet, haiku = builtin("claude-sonnet-5-5"), builtin("claude-haiku-4-5")
    assert sonnet and haiku
    assert (sonnet.output_limit("xhigh"), sonnet.output_limit("max"), sonnet.output_limit("high")) == (64_000, 64_000, 32_000)
    assert sonnet.output_limit("", 200_000) == 128_000 and sonnet.output_limit("max", 4_000) == 4_000
    assert haiku.output_limit("max", 100_000) == 64_000
    assert haiku.output_note(100_000) == "max_tokens 100000 is above claude-haiku-4-5's max output; using 64000"
    assert haiku.output_note(64_000) == "" and sonnet.output_note(0) == ""
