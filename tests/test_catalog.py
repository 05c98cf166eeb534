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
