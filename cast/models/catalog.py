"""What cast knows about each Claude model: lifecycle, limits and capabilities, as one frozen spec.

Why a table at all when the Models API answers the same questions: cast must start offline, in
tests, and when the API is unreachable. `cast.models.lookup` asks the API first and falls back to
this table; everything model-dependent (which `thinking` and `effort` values are sent, the context
window, where compaction triggers, whether tools may change mid-conversation) reads a `ModelSpec`,
never a model id. Facts are from the December 2026 API reference; cheap to import (no SDK).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Literal

Lifecycle = Literal["active", "deprecated", "retired"]
THINKING_TYPES = ("adaptive", "between_tools", "disabled", "enabled")
EFFORTS = ("low", "medium", "high", "xhigh", "max")
ALL_EFFORTS = frozenset(EFFORTS)


@dataclass(frozen=True)
class ModelSpec:
    """One model as cast uses it. `thinking_types` are the `thinking.type` values the model accepts;
    `efforts` the accepted `output_config.effort` levels (empty: send none); `default_effort` is
    what the API uses when none is sent ("" if undocumented). `reads_thinking_of` lists the models
    whose thinking blocks this one can read (a fallback to a model outside it loses reasoning)."""

    id: str
    display_name: str
    lifecycle: Lifecycle = "active"
    retires_at: date | None = None
    max_input_tokens: int = 1_000_000
    max_tokens: int = 128_000
    thinking_types: frozenset[str] = frozenset({"adaptive"})
    efforts: frozenset[str] = ALL_EFFORTS
    default_effort: str = "high"
    structured_outputs: bool = True
    context_management: bool = True
    tool_changes: bool = False
    system_messages: bool = True  # `role: "system"` inside messages; else notices go as user text
    reads_thinking_of: frozenset[str] = frozenset()
    cache_min_tokens: int = 1024
    source: str = "built-in"  # "api", "cache" or "built-in": where this answer came from

    @property
    def usable(self) -> bool:
        return self.lifecycle != "retired"

    def supports_thinking(self, kind: str) -> bool:
        return kind in self.thinking_types

    def effort_or_default(self, wanted: str) -> str:
        """The effort to send: the configured one if the model takes it, else the nearest lower
        level it takes, else nothing ("": the model's default)."""
        if not wanted or wanted not in EFFORTS:
            return ""
        for level in reversed(EFFORTS[: EFFORTS.index(wanted) + 1]):
            if level in self.efforts:
                return level
        return ""

    def effort_note(self, wanted: str) -> str:
        """What to tell the user, once, when the configured effort is not what gets sent ("" if it is)."""
        sent = self.effort_or_default(wanted)
        if not wanted or sent == wanted:
            return ""
        if wanted not in EFFORTS:
            return f'effort "{wanted}" is not a level the API knows (low, medium, high, xhigh, max); sending none'
        instead = f'using "{sent}"' if sent else "using the model's default"
        return f'{self.id} does not take effort "{wanted}"; {instead}'

    def output_note(self, configured: int) -> str:
        """What to tell the user, once, when the configured max_tokens is above the model's max output."""
        if self.max_tokens > 0 and configured > self.max_tokens:
            return f"max_tokens {configured} is above {self.id}'s max output; using {self.max_tokens}"
        return ""

    def output_limit(self, effort: str, configured: int = 0) -> int:
        """`max_tokens` for a request: the configured value, else 64k at xhigh/max (the effort
        page's advice: thinking counts toward max_tokens) and 32k otherwise; never above the
        model's max output."""
        wanted = configured if configured > 0 else (64_000 if effort in ("xhigh", "max") else 32_000)
        return min(wanted, self.max_tokens) if self.max_tokens > 0 else wanted

    def thresholds(self, age_tokens: int, compact_tokens: int) -> tuple[int, int]:
        """Context sizes at which to age old observations and to compact: the configured values,
        capped by the window (age at 60%, compact at 80% of `max_input_tokens`) so a small-window
        model never reaches a 400 "prompt is too long" before cast reacts."""
        window = self.max_input_tokens
        compact = min(compact_tokens, int(window * 0.8))
        age = min(age_tokens, int(window * 0.6), compact)
        return age, compact


def _spec(id: str, name: str, **kw: object) -> ModelSpec:
    return ModelSpec(id, name, **kw)  # type: ignore[arg-type]


def _retired(id: str, name: str, on: date, max_tokens: int) -> ModelSpec:
    """A retired 4.x model: kept so a config naming it is refused with its retirement date."""
    return _spec(
        id,
        name,
        lifecycle="retired",
        retires_at=on,
        max_input_tokens=200_000,
        max_tokens=max_tokens,
        thinking_types=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        default_effort="",
        system_messages=False,
    )


_ADAPTIVE = frozenset({"adaptive"})
_EFFORT_4X = frozenset({"low", "medium", "high", "max"})
_OLD_READERS = frozenset(
    {
        "claude-sonnet-5",
        "claude-opus-4-8",
        "claude-opus-4-7",
        "claude-opus-4-6",
        "claude-opus-4-5",
        "claude-sonnet-4-6",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    }
)

# Sources (December 2026): the models overview and each model's page
# (https://platform.claude.com/docs/en/about-claude/models/overview, .../models/fable-5/overview),
# effort levels and the default of "high" (https://platform.claude.com/docs/en/build-with-claude/effort),
# cache minimums (https://platform.claude.com/docs/en/build-with-claude/prompt-caching), tool changes
# (https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages: Opus 5,
# Opus 4.8, Fable 5 and Mythos 5; unconfirmed elsewhere, so off), retirements
# (https://platform.claude.com/docs/en/about-claude/model-deprecations).
_TABLE: tuple[ModelSpec, ...] = (
    # Current models.
    _spec(
        "claude-fable-5-2",
        "Claude Fable 5.2",
        default_effort="high",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-fable-5-2", "claude-mythos-5-2"}),
    ),
    _spec(
        "claude-mythos-5-2",
        "Claude Mythos 5.2",
        default_effort="high",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-fable-5-2", "claude-mythos-5-2"}),
    ),
    _spec(
        "claude-opus-5-5",
        "Claude Opus 5.5",
        default_effort="medium",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-opus-5-5", "claude-sonnet-5-5"}) | _OLD_READERS,
    ),
    _spec(
        "claude-sonnet-5-5",
        "Claude Sonnet 5.5",
        thinking_types=frozenset({"adaptive", "between_tools"}),
        default_effort="high",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-sonnet-5-5"}) | _OLD_READERS,
    ),
    _spec(
        "claude-haiku-5-5",
        "Claude Haiku 5.5",
        thinking_types=frozenset({"adaptive", "disabled"}),
        default_effort="medium",
        cache_min_tokens=1024,  # Haiku 5.5's minimum is undocumented
        reads_thinking_of=frozenset({"claude-haiku-5-5"}) | _OLD_READERS,
    ),
    # Legacy models: still served, superseded.
    _spec(
        "claude-fable-5-1",
        "Claude Fable 5.1",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5"}),
    ),
    _spec(
        "claude-mythos-5-1",
        "Claude Mythos 5.1",
        cache_min_tokens=512,
        reads_thinking_of=frozenset({"claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5"}),
    ),
    _spec(
        "claude-fable-5",
        "Claude Fable 5",
        cache_min_tokens=512,
        tool_changes=True,
        reads_thinking_of=frozenset({"claude-fable-5", "claude-mythos-5"}),
    ),
    _spec(
        "claude-mythos-5",
        "Claude Mythos 5",
        cache_min_tokens=512,
        tool_changes=True,
        reads_thinking_of=frozenset({"claude-fable-5", "claude-mythos-5"}),
    ),
    _spec(
        "claude-opus-5",
        "Claude Opus 5",
        cache_min_tokens=512,
        tool_changes=True,
        reads_thinking_of=frozenset({"claude-opus-5"}) | _OLD_READERS,
    ),
    _spec(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        system_messages=False,
        cache_min_tokens=1024,
        reads_thinking_of=frozenset({"claude-sonnet-5"}) | _OLD_READERS,
    ),
    _spec(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        thinking_types=frozenset({"adaptive", "disabled"}),
        tool_changes=True,
        reads_thinking_of=_OLD_READERS,
    ),
    _spec(
        "claude-opus-4-7",
        "Claude Opus 4.7",
        system_messages=False,
        thinking_types=frozenset({"adaptive", "disabled"}),
        cache_min_tokens=2048,
        reads_thinking_of=_OLD_READERS,
    ),
    _spec(
        "claude-opus-4-6",
        "Claude Opus 4.6",
        system_messages=False,
        thinking_types=frozenset({"adaptive", "disabled", "enabled"}),
        efforts=_EFFORT_4X,
        cache_min_tokens=4096,
        reads_thinking_of=_OLD_READERS,
    ),
    _spec(
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        system_messages=False,
        thinking_types=frozenset({"adaptive", "disabled", "enabled"}),
        efforts=_EFFORT_4X,
        reads_thinking_of=_OLD_READERS,
    ),
    _spec(
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        system_messages=False,
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking_types=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        default_effort="",
        context_management=True,
        cache_min_tokens=4096,
        reads_thinking_of=_OLD_READERS,
    ),
    # Deprecated: callable by existing users, retiring.
    _spec(
        "claude-opus-4-5",
        "Claude Opus 4.5",
        system_messages=False,
        lifecycle="deprecated",
        retires_at=date(2027, 1, 22),
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking_types=frozenset({"disabled", "enabled"}),
        efforts=frozenset({"low", "medium", "high"}),
        cache_min_tokens=4096,
        reads_thinking_of=_OLD_READERS,
    ),
    # Retired: every request fails with 404.
    _retired("claude-sonnet-4-5", "Claude Sonnet 4.5", date(2026, 11, 30), 64_000),
    _spec("claude-mythos-preview", "Claude Mythos Preview", lifecycle="retired", retires_at=date(2026, 6, 30)),
    _retired("claude-opus-4-1", "Claude Opus 4.1", date(2026, 8, 5), 32_000),
    _retired("claude-sonnet-4-0", "Claude Sonnet 4", date(2026, 6, 15), 64_000),
    _retired("claude-opus-4-0", "Claude Opus 4", date(2026, 6, 15), 32_000),
)

# Dated snapshot ids the API also answers to.
_ALIASES = {
    "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
    "claude-opus-4-5-20251101": "claude-opus-4-5",
    "claude-haiku-4-5-20251001": "claude-haiku-4-5",
    "claude-opus-4-1-20250805": "claude-opus-4-1",
    "claude-sonnet-4-20250514": "claude-sonnet-4-0",
    "claude-opus-4-20250514": "claude-opus-4-0",
}

BUILTIN: dict[str, ModelSpec] = {spec.id: spec for spec in _TABLE}
CURRENT: tuple[str, ...] = ("claude-sonnet-5-5", "claude-opus-5-5", "claude-haiku-5-5", "claude-fable-5-2")


def builtin(model_id: str) -> ModelSpec | None:
    """The built-in spec for an id or one of its dated snapshots; None for an id cast doesn't know."""
    name = model_id.strip()
    if name in BUILTIN:
        return BUILTIN[name]
    base = _ALIASES.get(name)
    return replace(BUILTIN[base], id=name) if base else None


_KNOWN: dict[str, ModelSpec] = {}  # specs looked up in this process (API or cache), by id


def remember(spec: ModelSpec) -> ModelSpec:
    """Keep a looked-up spec, so later questions about the model (toolbar, compaction) get it."""
    _KNOWN[spec.id] = spec
    return spec


def spec_for(model_id: str) -> ModelSpec:
    """What cast knows about a model id: what lookup found in this process, else the built-in
    table, else a generic current-model spec (scripted models, test ids), never None."""
    return _KNOWN.get(model_id) or builtin(model_id) or ModelSpec(model_id, model_id, source="assumed")


def current_ids() -> list[str]:
    """Models to suggest instead of a retired or unknown one: the current line-up, best known first."""
    return list(CURRENT)


def active_ids() -> list[str]:
    """Every built-in id that still answers (active or deprecated), for completion offline."""
    return [spec.id for spec in _TABLE if spec.lifecycle == "active"]
