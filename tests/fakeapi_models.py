"""The fake Messages API's model line-up: what each model accepts, as today's API documents it.

Kept apart from cast's own model catalog on purpose (never imported from `cast`; a test checks):
the fake is the other side of the wire, so a mistake in cast's table must show up as a rejected
request, not be copied into the fake. Every fact cites its page; the short names used below:

[overview]  https://platform.claude.com/docs/en/about-claude/models/overview (ids, windows, max output)
[fable5]    https://platform.claude.com/docs/en/models/fable-5/overview and .../introducing-claude-fable-5-
            and-claude-mythos-5 (Fable 5 and Mythos 5: legacy, 1M / 128K, "same specifications")
[thinking]  https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide (the thinking table,
            reference §2) and https://platform.claude.com/docs/en/build-with-claude/thinking (`display`
            defaults: omitted on the 5.x models and on Opus 4.7 / 4.8; summarized on Opus 4.6 and older)
[effort]    https://platform.claude.com/docs/en/build-with-claude/effort (max from Opus 4.6 and Sonnet
            4.6, xhigh on Opus 4.7, Opus 4.8 and Sonnet 5 and the 5.x models; Opus 4.5: low..high)
[errors]    https://platform.claude.com/docs/en/api/errors (prefill: a 400 on the 5.x models and on
            Opus 4.7 and later; unsupported on Opus 4.6)
[forced]    reference §4: forced `tool_choice` rejected on Opus 5.5, Sonnet 5.5, Fable/Mythos 5.1, 5.2
[caching]   https://platform.claude.com/docs/en/build-with-claude/prompt-caching (minimum cacheable
            prefix: 512 on Fable/Mythos 5.x, Opus 5.5, Opus 5, Sonnet 5.5; 1,024 on Sonnet 5, Opus 4.8,
            Sonnet 4.6; 2,048 on Opus 4.7; 4,096 on Opus 4.6, Opus 4.5, Haiku 4.5)
[sysmsg]    https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages
            (system messages: not on Sonnet 5; tool changes documented for Opus 5, Opus 4.8, Fable 5,
            Mythos 5)
[binding]   https://platform.claude.com/docs/en/build-with-claude/preserved-thinking (who reads whose
            thinking blocks; the prefix check enforced on the 5.5 models, Fable 5.1, Fable 5.2)
[retired]   https://platform.claude.com/docs/en/about-claude/model-deprecations and the SDK's
            `_data/deprecated_models.py` (Sonnet 4 / Opus 4 2026-06-15, Opus 4.1 2026-08-05, Mythos
            Preview 2026-06-30, Sonnet 4.5 2026-11-30, Opus 4.5 retiring 2027-01-22)

Where the docs leave a fact unconfirmed, the fake takes the answer that is harder on the client:
- `between_tools` is accepted only on Sonnet 5.5 (the other 5.x models do not document it) [thinking];
- mid-conversation tool changes are accepted only where [sysmsg] documents them (Opus 5, Opus 4.8,
  Fable 5, Mythos 5): not on the 5.5 models nor on Fable/Mythos 5.1 and 5.2;
- Haiku 5.5's minimum cacheable prefix (undocumented) is taken as 2,048 tokens;
- the prefix check on thinking blocks is enforced (an account created after 2026-08-31) on every
  model that has one [binding], and on Fable 5 / Mythos 5 too (their binding is undocumented).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EFFORTS = ("low", "medium", "high", "xhigh", "max")
ALL = frozenset(EFFORTS)
OLD = frozenset(
    {
        "claude-sonnet-5",
        "claude-opus-5",
        "claude-opus-4-8",
        "claude-opus-4-7",
        "claude-opus-4-6",
        "claude-opus-4-5",
        "claude-sonnet-4-6",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    }
)


@dataclass(frozen=True)
class FakeModel:
    id: str
    display_name: str
    line: str
    created_at: str
    lifecycle: str = "active"
    deprecated_at: str | None = None
    retires_at: str | None = None
    max_input_tokens: int = 1_000_000
    max_tokens: int = 128_000
    thinking: frozenset[str] = frozenset({"adaptive"})  # thinking.type values accepted
    efforts: frozenset[str] = ALL
    thinking_off_max_effort: str = ""  # between_tools / disabled only at or below this effort ("" no limit)
    display_default: str = "omitted"  # what an adaptive thinking block shows without `display`
    forced_tool_choice: bool = False  # tool_choice any/tool accepted
    prefill: bool = False  # assistant as last message accepted
    system_messages: bool = True  # role "system" inside messages
    tool_changes: bool = False  # tool_addition / tool_removal blocks (beta)
    binding_enforced: bool = True  # the prefix check on thinking blocks is enforced
    reads: frozenset[str] = frozenset()  # other models whose thinking blocks this one reads
    min_cache: int = 1024
    structured_outputs: bool = True
    context_management: bool = True
    aliases: tuple[str, ...] = field(default=())

    def info(self) -> dict[str, Any]:
        """The model as `GET /v1/models/{id}` answers it (SDK `ModelInfo`)."""
        yes = {"supported": True}
        no = {"supported": False}

        def flag(value: bool) -> dict[str, bool]:
            return yes if value else no

        thinking_types = {kind: flag(kind in self.thinking) for kind in ("adaptive", "between_tools", "disabled", "enabled")}
        thinking_types["disabled"] = flag("disabled" in self.thinking or not (self.thinking - {"disabled"}))
        effort: dict[str, Any] = {level: flag(level in self.efforts) for level in EFFORTS}
        effort["supported"] = bool(self.efforts)
        cm = self.context_management
        return {
            "type": "model",
            "id": self.id,
            "display_name": self.display_name,
            "created_at": self.created_at,
            "lifecycle": self.lifecycle,
            "deprecated_at": self.deprecated_at,
            "retires_at": self.retires_at,
            "line": self.line,
            "max_input_tokens": self.max_input_tokens,
            "max_tokens": self.max_tokens,
            "capabilities": {
                "batch": yes,
                "citations": yes,
                "code_execution": yes,
                "image_input": yes,
                "pdf_input": yes,
                "server_tools": {"supported": True, "code_execution": yes, "web_search": yes},
                "structured_outputs": flag(self.structured_outputs),
                "context_management": {
                    "supported": cm,
                    "clear_tool_uses_20250919": flag(cm),
                    "clear_thinking_20251015": flag(cm),
                    "compact_20260112": flag(cm),
                },
                "effort": effort,
                "thinking": {"supported": bool(self.thinking - {"disabled"}), "types": thinking_types},
            },
        }


def _m(id: str, name: str, line: str, created: str, **kw: Any) -> FakeModel:
    return FakeModel(id, name, line, created + "T00:00:00Z", **kw)


_FABLE_52 = frozenset({"claude-fable-5-2", "claude-mythos-5-2"})
_FABLE_51 = frozenset({"claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5"})
_EFFORT_4X = frozenset({"low", "medium", "high", "max"})

_FABLE_5 = frozenset({"claude-fable-5", "claude-mythos-5"})
_SUMMARIZED = "summarized"  # [thinking]: the `display` default of Opus 4.6 and older

# Each entry: [overview] for id, window and max output unless another page is named.
LINEUP: tuple[FakeModel, ...] = (
    # [overview]; [caching] 512; [binding] only Fable/Mythos 5.2 read Fable 5.2 blocks; [forced] rejected.
    _m("claude-fable-5-2", "Claude Fable 5.2", "fable", "2026-11-09", min_cache=512, reads=_FABLE_52),
    _m("claude-mythos-5-2", "Claude Mythos 5.2", "mythos", "2026-11-09", min_cache=512, reads=_FABLE_52),
    # [binding]: only Opus 5.5 reads Sonnet 5.5 blocks; [caching] 512.
    _m("claude-opus-5-5", "Claude Opus 5.5", "opus", "2026-09-22", min_cache=512, reads=frozenset({"claude-sonnet-5-5"}) | OLD),
    # [thinking]: between_tools at effort <= high, disabled a 400 with its own message.
    _m(
        "claude-sonnet-5-5",
        "Claude Sonnet 5.5",
        "sonnet",
        "2026-09-22",
        min_cache=512,
        thinking=frozenset({"adaptive", "between_tools"}),
        thinking_off_max_effort="high",
        reads=OLD,
    ),
    # [thinking]: disabled at effort <= high; [forced]: accepted (then no thinking block).
    _m(
        "claude-haiku-5-5",
        "Claude Haiku 5.5",
        "haiku",
        "2026-10-14",
        min_cache=2048,
        forced_tool_choice=True,
        thinking=frozenset({"adaptive", "disabled"}),
        thinking_off_max_effort="high",
        reads=OLD,
    ),
    # [binding]: Fable/Mythos 5.1 read Opus 5.5 blocks; [sysmsg]: tool changes not documented for 5.1.
    _m("claude-fable-5-1", "Claude Fable 5.1", "fable", "2026-09-01", min_cache=512, reads=_FABLE_51),
    _m("claude-mythos-5-1", "Claude Mythos 5.1", "mythos", "2026-09-01", min_cache=512, reads=_FABLE_51),
    # [fable5]: legacy since 5.1, 1M / 128K, adaptive thinking always on; [sysmsg]: tool changes;
    # [caching] 512; forced tool choice taken as rejected, as on every later Fable [forced].
    _m("claude-fable-5", "Claude Fable 5", "fable", "2026-06-09", min_cache=512, tool_changes=True, reads=_FABLE_5),
    _m("claude-mythos-5", "Claude Mythos 5", "mythos", "2026-06-09", min_cache=512, tool_changes=True, reads=_FABLE_5),
    # [sysmsg]: tool changes; [caching] 512; [errors]: no prefill.
    _m(
        "claude-opus-5",
        "Claude Opus 5",
        "opus",
        "2026-07-24",
        min_cache=512,
        tool_changes=True,
        forced_tool_choice=True,
        binding_enforced=False,
        reads=OLD,
    ),
    # [sysmsg]: no system messages on Sonnet 5; [effort]: all five levels; [caching] 1,024.
    _m(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        "sonnet",
        "2026-06-30",
        system_messages=False,
        forced_tool_choice=True,
        binding_enforced=False,
        reads=OLD,
    ),
    # [effort]: xhigh; [thinking]: display omitted by default; [errors]: prefill a 400;
    # [sysmsg]: tool changes; [caching] 1,024.
    _m(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        "opus",
        "2026-05-28",
        thinking=frozenset({"adaptive", "disabled"}),
        tool_changes=True,
        forced_tool_choice=True,
        binding_enforced=False,
        reads=OLD,
    ),
    # [effort]: xhigh; [thinking]: display omitted by default; [errors]: prefill a 400; [caching] 2,048.
    _m(
        "claude-opus-4-7",
        "Claude Opus 4.7",
        "opus",
        "2026-04-16",
        thinking=frozenset({"adaptive", "disabled"}),
        system_messages=False,
        forced_tool_choice=True,
        binding_enforced=False,
        min_cache=2048,
        reads=OLD,
    ),
    # [effort]: up to max, no xhigh; [errors]: prefill unsupported; [caching] 4,096.
    _m(
        "claude-opus-4-6",
        "Claude Opus 4.6",
        "opus",
        "2026-02-05",
        thinking=frozenset({"adaptive", "disabled", "enabled"}),
        efforts=_EFFORT_4X,
        display_default=_SUMMARIZED,
        system_messages=False,
        forced_tool_choice=True,
        binding_enforced=False,
        min_cache=4096,
        reads=OLD,
    ),
    # [effort]: up to max, no xhigh; [caching] 1,024.
    _m(
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        "sonnet",
        "2026-02-17",
        thinking=frozenset({"adaptive", "disabled", "enabled"}),
        efforts=_EFFORT_4X,
        display_default=_SUMMARIZED,
        system_messages=False,
        forced_tool_choice=True,
        prefill=True,
        binding_enforced=False,
        reads=OLD,
    ),
    # [overview] 200K / 64K, budget thinking only, no effort [effort]; [caching] 4,096.
    _m(
        "claude-haiku-4-5",
        "Claude Haiku 4.5",
        "haiku",
        "2025-10-01",
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        display_default=_SUMMARIZED,
        system_messages=False,
        forced_tool_choice=True,
        prefill=True,
        binding_enforced=False,
        min_cache=4096,
        reads=OLD,
        aliases=("claude-haiku-4-5-20251001",),
    ),
    # [retired]: deprecated, retiring 2027-01-22; [effort]: low..high; [caching] 4,096.
    _m(
        "claude-opus-4-5",
        "Claude Opus 4.5",
        "opus",
        "2025-11-01",
        lifecycle="deprecated",
        deprecated_at="2026-10-22T00:00:00Z",
        retires_at="2027-01-22T00:00:00Z",
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset({"low", "medium", "high"}),
        display_default=_SUMMARIZED,
        system_messages=False,
        forced_tool_choice=True,
        prefill=True,
        binding_enforced=False,
        min_cache=4096,
        reads=OLD,
        aliases=("claude-opus-4-5-20251101",),
    ),
    # Retired [retired]: listed only when asked for, and every Messages request naming them is a 404.
    _m(
        "claude-sonnet-4-5",
        "Claude Sonnet 4.5",
        "sonnet",
        "2025-09-29",
        lifecycle="retired",
        deprecated_at="2026-08-31T00:00:00Z",
        retires_at="2026-11-30T00:00:00Z",
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        system_messages=False,
        aliases=("claude-sonnet-4-5-20250929",),
    ),
    _m(
        "claude-mythos-preview",
        "Claude Mythos Preview",
        "mythos",
        "2026-02-10",
        lifecycle="retired",
        deprecated_at="2026-04-30T00:00:00Z",
        retires_at="2026-06-30T00:00:00Z",
    ),
    _m(
        "claude-opus-4-1",
        "Claude Opus 4.1",
        "opus",
        "2025-08-05",
        lifecycle="retired",
        deprecated_at="2026-05-05T00:00:00Z",
        retires_at="2026-08-05T00:00:00Z",
        max_input_tokens=200_000,
        max_tokens=32_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        aliases=("claude-opus-4-1-20250805",),
    ),
    _m(
        "claude-sonnet-4-0",
        "Claude Sonnet 4",
        "sonnet",
        "2025-05-14",
        lifecycle="retired",
        deprecated_at="2026-03-15T00:00:00Z",
        retires_at="2026-06-15T00:00:00Z",
        max_input_tokens=200_000,
        max_tokens=64_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        aliases=("claude-sonnet-4-20250514",),
    ),
    _m(
        "claude-opus-4-0",
        "Claude Opus 4",
        "opus",
        "2025-05-14",
        lifecycle="retired",
        deprecated_at="2026-03-15T00:00:00Z",
        retires_at="2026-06-15T00:00:00Z",
        max_input_tokens=200_000,
        max_tokens=32_000,
        thinking=frozenset({"disabled", "enabled"}),
        efforts=frozenset(),
        aliases=("claude-opus-4-20250514",),
    ),
)

BY_ID: dict[str, FakeModel] = {}
for _model in LINEUP:
    BY_ID[_model.id] = _model
    for _alias in _model.aliases:
        BY_ID[_alias] = _model


def find(model_id: str) -> FakeModel | None:
    """The model an id names (dated snapshots included); None for an id the API does not know."""
    return BY_ID.get(model_id)


def family(model_id: str) -> str:
    """The canonical id of a model, so a dated snapshot and its alias bind thinking alike."""
    found = find(model_id)
    return found.id if found else model_id


def reads(reader: FakeModel, writer: str) -> bool:
    """Whether `reader` may read a thinking block written by model `writer` (reference §5)."""
    writer = family(writer)
    return writer == reader.id or writer in reader.reads


def list_page(infos: list[dict[str, Any]], query: dict[str, list[str]]) -> dict[str, Any]:
    """`GET /v1/models` as the SDK's `SyncPage[ModelInfo]` reads it: newest first, `active` and
    `deprecated` unless `lifecycle` asks otherwise, cursor pagination by `after_id`/`before_id`."""
    wanted: set[str] = set()
    for key in ("lifecycle", "lifecycle[]"):
        for value in query.get(key, []):
            wanted.update(part for part in value.split(",") if part)
    wanted = wanted or {"active", "deprecated"}
    models = sorted(
        (m for m in infos if m.get("lifecycle", "active") in wanted),
        key=lambda m: (m.get("created_at", ""), m["id"]),
        reverse=True,
    )
    ids = [m["id"] for m in models]
    limit = max(1, min(1000, int((query.get("limit") or ["20"])[0])))
    after = (query.get("after_id") or [""])[0]
    before = (query.get("before_id") or [""])[0]
    if after and after in ids:
        start = ids.index(after) + 1
        page = models[start : start + limit]
        more = start + limit < len(models)
    elif before and before in ids:
        end = ids.index(before)
        page = models[max(0, end - limit) : end]
        more = end - limit > 0
    else:
        page, more = models[:limit], len(models) > limit
    return {
        "data": page,
        "has_more": more,
        "first_id": page[0]["id"] if page else None,
        "last_id": page[-1]["id"] if page else None,
    }


def lineup_infos() -> dict[str, dict[str, Any]]:
    """Every model of the line-up as the Models API describes it, retired ones included (the
    API keeps them as records: `retrieve` answers with `lifecycle: "retired"`)."""
    return {m.id: m.info() for m in LINEUP}


def model_info(
    id: str,
    lifecycle: str = "active",
    retires_at: str | None = None,
    *,
    max_input_tokens: int = 1_000_000,
    max_tokens: int = 128_000,
    thinking: tuple[str, ...] = ("adaptive",),
    efforts: tuple[str, ...] = EFFORTS,
) -> dict[str, Any]:
    """A `ModelInfo` for a model a test makes up (or describes differently from the line-up)."""
    model = FakeModel(
        id,
        id,
        "sonnet",
        "2026-01-01T00:00:00Z",
        lifecycle=lifecycle,
        deprecated_at="2026-06-01T00:00:00Z" if lifecycle != "active" else None,
        retires_at=retires_at,
        max_input_tokens=max_input_tokens,
        max_tokens=max_tokens,
        thinking=frozenset(thinking),
        efforts=frozenset(efforts),
    )
    info = model.info()
    info["line"] = None
    return info
