"""The one seam between cast and a language model.

A model is anything with `stream(request)` that yields `ModelEvent`s. The loop never sees an SDK
type: the Anthropic provider and the scripted replay both speak these dataclasses, which is what
lets every guard be tested without a network.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import asdict, astuple, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cast.models.catalog import ModelSpec


@dataclass(frozen=True)
class Request:
    """One model call. `system` and `tools` form the cacheable prefix; keep them byte-stable."""

    system: str
    tools: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]
    max_tokens: int = 8192
    effort: str = ""  # output_config.effort ("low" .. "max"); empty: the model's default
    # The conversation's prefix changed since some thinking block was signed (aging, a tool-set
    # change): send thinking.block_binding.prefix_mismatch_behavior "drop_block" (adaptive thinking,
    # beta thinking-binding-controls-2026-08-01), so those blocks are dropped instead of a 400.
    drop_block: bool = False
    # Server-side context editing / compaction (`context_management` body field, beta): the API
    # clears old tool results itself, so the history cast sends stays append-only.
    context_management: dict[str, Any] | None = field(default=None, compare=False)
    # A JSON schema the reply's text must follow (structured outputs: `output_config.format`), e.g.
    # the self-check's verdict: strict JSON without prefill or a forced tool.
    output_schema: dict[str, Any] | None = field(default=None, compare=False)
    # Set when the user interrupts: a provider waiting between retries stops waiting. Not sent.
    cancel: threading.Event | None = field(default=None, compare=False, repr=False)
    # The messages' size as JSON characters, when the sender keeps it as the transcript grows, so
    # a model that estimates usage need not re-serialise the whole conversation each step. Not sent.
    chars: int | None = field(default=None, compare=False, repr=False)
    # Indexes of assistant turns that stay unchanged up to the next aging batch (agent/anchor.py):
    # a cache breakpoint there lets that batch read the history before it from the cache.
    cache_anchors: tuple[int, ...] = field(default=(), compare=False)

    def wire(self) -> dict[str, Any]:
        """What goes to a model: everything but the cancel signal."""
        wire: dict[str, Any] = {
            "system": self.system,
            "tools": self.tools,
            "messages": self.messages,
            "max_tokens": self.max_tokens,
        }
        if self.effort:
            wire["effort"] = self.effort
        if self.drop_block:
            wire["drop_block"] = True
        if self.context_management:
            wire["context_management"] = self.context_management
        if self.output_schema is not None:
            wire["output_schema"] = self.output_schema
        return wire


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolUse:
    id: str
    name: str
    input: Any  # usually a dict; anything else is the model's mistake and becomes an error observation


@dataclass(frozen=True)
class Usage:
    """Tokens, the one shape for them everywhere: a call's share, a run's total, a session's meta.
    `cache_write_tokens` counts every cache write; `cache_write_1h_tokens` is the part of it written
    with the 1-hour TTL, which is billed higher (`agent/cost.py`)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def since(self, earlier: Usage) -> Usage:
        """This total's share after `earlier` (never negative: a total restarted at a resume)."""
        return Usage(*(max(0, a - b) for a, b in zip(astuple(self), astuple(earlier), strict=True)))

    @property
    def prompt_tokens(self) -> int:
        """What the request's prompt weighed, cached or not: the size a context is measured by."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Usage:
        """From a stored dict; keys it lacks (an older session's) count as zero."""
        values = values or {}
        return cls(**{f.name: int(values.get(f.name, 0) or 0) for f in fields(cls)})


@dataclass(frozen=True)
class Stop:
    """End of one reply. `content` holds the assistant blocks exactly as they must be sent back
    (thinking blocks with their signatures included, in order)."""

    reason: str  # "end_turn", "tool_use", "max_tokens", "refusal", "pause_turn", "model_context_window_exceeded", ...
    content: tuple[dict[str, Any], ...] = field(default=())
    # What the API said about the stop and the input, when it said anything: "category" and
    # "explanation" of a refusal (`stop_details`); "input_transformations" (thinking blocks the API
    # dropped: path and reason); "applied_edits" (server-side context editing).
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def refused(self) -> bool:
        return self.reason == "refusal"


@dataclass(frozen=True)
class Retrying:
    """The provider is about to retry the call (overload, timeout, cut stream) or switch to the
    fallback model. `attempt` is the 1-based number of the attempt about to start; `partial` says
    the failed attempt had already streamed text or thinking, which the new attempt streams again
    from the start (only the final `Stop.content` belongs in the transcript)."""

    reason: str
    attempt: int
    delay: float  # seconds the provider waits before the attempt
    partial: bool = False
    model: str = ""  # the model the attempt goes to


ModelEvent = TextDelta | ThinkingDelta | ToolUse | Usage | Stop | Retrying


class ModelError(Exception):
    """A failure the loop reports as a stop reason. `retryable` errors were already retried by
    the provider; reaching the loop means the budget is spent."""

    def __init__(self, message: str, *, retryable: bool = False, exit_code: int = 1):
        super().__init__(message)
        self.retryable = retryable
        self.exit_code = exit_code


class Model(Protocol):
    """`spec` is what cast knows the model accepts (thinking, effort, limits, mid-conversation tool
    changes), or None for a model it knows nothing about: then every request takes the shape
    all current models accept and the conversation uses the client-side paths."""

    name: str
    spec: ModelSpec | None

    def stream(self, request: Request) -> Iterator[ModelEvent]: ...
