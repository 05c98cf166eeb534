"""Keep the context small without breaking the prompt cache: epoch aging, then compaction.

The model is memoryless, so every step resends the whole transcript and a session's cost grows
with the square of its steps. Two levers, in this order:

1. Aging, in epochs. Past `age_threshold_tokens`, every large tool result older than the last
   `keep_recent_steps` assistant turns is replaced, in ONE batch, by a one-line elision saying what
   it was and how to get it again. Then nothing is touched until the context has grown past the
   threshold again with a batch worth shrinking (at least `min_batch_tokens` reclaimable, default
   half the threshold). Why batches: the provider caches the request prefix, and any rewrite of an
   old message invalidates the cache from that message on. Shrinking a little every step would
   miss the cache every step; shrinking in epochs keeps the prefix byte-identical between them, so
   all but one request per epoch read the history from cache at a tenth of the price. (An epoch
   re-caches the history from its first change on at 1.25x, reading what lies before it through a
   cache anchor, `agent/anchor.py`; waiting longer carries more tokens at the read price per
   request. The defaults, 40k tokens and 2 steps kept, were chosen with bench/bench_recall.py.)
2. Compaction. Past `compact_threshold_tokens` (unless aging alone brings it back under the aging
   threshold: otherwise the unelidable rest has grown too big and epochs would come every step
   just under the limit), one model call writes a summary of the conversation, and the transcript becomes a single user message:
   the original request, the summary, and the current state from `reinject()` — the plan file and
   task list as they are on disk now, because those live outside the transcript and a summary of
   them would go stale.

Today's models sign their thinking against everything before it, so rewriting old messages would
be a 400. Hence: where the model supports server-side context editing, the conversation declares
it (`Prefix.context_management`) and the API clears old tool results itself, with the history
cast sends left append-only; this class then does no aging. Elsewhere aging goes through
`Transcript.rewrite()`, which switches the conversation to `drop_block` (the thinking signed
before the rewrite is dropped by the API, not refused). Compaction goes through
`Transcript.restart()`: a new conversation that sends nothing signed before. Both are journalled
with the session, so a resume sends exactly what the model saw.

The size estimate uses the provider's real count of the last request (`observe`/`tell_context`)
plus chars/4 of what was added since; before any usage is known, chars/4 of the whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cast.agent import events as ev
from cast.agent.anchor import Anchors
from cast.agent.elide import ELIDED, MIN_ELIDE_CHARS, content_text, elision
from cast.agent.request import COMPACTED, first_request
from cast.agent.transcript import Transcript, size, text_block
from cast.models import base as m
from cast.text import clip, plural

CHARS_PER_TOKEN = 4
RESULT_CHARS_FOR_SUMMARY = 2_000
REQUEST_CHARS_FOR_SUMMARY = 3_000

SUMMARY_SYSTEM = """\
You summarise a coding agent's work session so the agent can continue it without the transcript.
Write plain Markdown, at most about 600 words, with these sections:
## Done — what was changed or produced, with file paths.
## Found — facts learned about the code and environment that the rest of the task depends on
(file locations, function names, how things work, commands that work and their results).
## Decisions — choices made and why.
## Open — what remains, open questions, the next step the agent was about to take.
Be concrete: paths, names, commands, numbers. Do not invent anything that is not in the session."""


def message_chars(messages: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> int:
    """Characters of the messages as serialized for a request (what chars/4 estimates from)."""
    return len(json.dumps(list(messages)))


def ask(model: m.Model, request: m.Request) -> tuple[str, m.Usage]:
    """One side call (summary, verdict): the reply's text and what it cost. Uses the final
    `Stop.content`, which is right even when the provider retried mid-stream."""
    deltas: list[str] = []
    final: str | None = None
    usage = m.Usage()
    for item in model.stream(request):
        if isinstance(item, m.TextDelta):
            deltas.append(item.text)
        elif isinstance(item, m.Usage):
            usage = usage + item
        elif isinstance(item, m.Stop):
            final = "".join(b.get("text", "") for b in item.content if b.get("type") == "text")
    return (final if final is not None else "".join(deltas)), usage


class ContextEconomy:
    """`Hooks.prepare`: call it with the transcript before each request; it yields Notices."""

    def __init__(
        self,
        model: m.Model,
        *,
        age_threshold_tokens: int,
        compact_threshold_tokens: int,
        keep_recent_steps: int,
        reinject: Callable[[], str] | None = None,
        on_usage: Callable[[m.Usage, str], None] | None = None,
        min_batch_tokens: int | None = None,
        summary_max_tokens: int = 0,  # 0: the provider picks per model (thinking counts toward max_tokens)
    ):
        self.model = model
        self.age_threshold = age_threshold_tokens
        self.compact_threshold = compact_threshold_tokens
        self.keep_recent = max(1, keep_recent_steps)
        self.reinject = reinject
        self.on_usage = on_usage
        self.min_batch = age_threshold_tokens // 2 if min_batch_tokens is None else min_batch_tokens
        self.summary_max_tokens = summary_max_tokens
        self.epochs = 0
        self.compactions = 0
        self._forced = False
        self._real: int | None = None  # provider's token count of the last request
        self._real_chars = 0  # message chars of that request
        self._sent_chars = 0  # message chars when the last request left prepare
        self._prefix_tokens = 0  # system + tools, learned from the first real count
        self._scanned: tuple[int, int] | None = None  # (transcript chars, reclaimable chars) at the last scan
        self._scan: _Scan | None = None  # the aging scan so far of the current history
        self.anchors = Anchors()

    @classmethod
    def from_config(cls, config: Any, model: m.Model, **kwargs: Any) -> ContextEconomy:
        return cls(
            model,
            age_threshold_tokens=config.age_threshold_tokens,
            compact_threshold_tokens=config.compact_threshold_tokens,
            keep_recent_steps=config.keep_recent_steps,
            **kwargs,
        )

    # -- what the loop tells us ---------------------------------------------------------------
    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.UsageUpdate):
            self.tell_context(event.context_tokens)

    def tell_context(self, tokens: int) -> None:
        """The real size of the request just sent (input + cache read + cache write tokens)."""
        if tokens <= 0:
            return
        self._real, self._real_chars = tokens, self._sent_chars
        self._prefix_tokens = max(0, tokens - self._sent_chars // CHARS_PER_TOKEN)

    def estimate(self, transcript: Transcript) -> int:
        chars = transcript.chars
        if self._real is not None:
            return max(0, self._real + (chars - self._real_chars) // CHARS_PER_TOKEN)
        return self._prefix_tokens + chars // CHARS_PER_TOKEN

    def force(self) -> None:
        """/compact: the next `prepare` compacts whatever the size."""
        self._forced = True

    # -- the hook -------------------------------------------------------------------------------
    def __call__(self, transcript: Transcript) -> Iterator[ev.Event]:
        estimate = self.estimate(transcript)
        managed = transcript.prefix is not None and transcript.prefix.context_management
        if not (self._forced or managed) and estimate > self.age_threshold and self._may_be_worth(transcript, estimate):
            plan, saved, count = self._aging_plan(transcript.messages)
            self._scanned = (transcript.chars, saved + self._recent_chars(transcript.messages))
            after = estimate - saved // CHARS_PER_TOKEN
            if estimate <= self.compact_threshold:
                worth = saved // CHARS_PER_TOKEN >= self.min_batch  # a batch worth a cache rewrite
            else:  # aging instead of a summary only if it restores full headroom; otherwise the
                # unelidable rest (the model's own words, elisions) has grown too big, and epochs
                # would come every step just under the limit: compact instead
                worth = after <= self.age_threshold
            if plan and worth:
                yield self._age(transcript, plan, count, estimate, after)
                estimate = self.estimate(transcript)
        if self._forced or estimate > self.compact_threshold:
            yield from self.compact(transcript)
        transcript.cache_anchors = self.anchors.place(transcript)
        self._sent_chars = transcript.chars

    # -- aging ----------------------------------------------------------------------------------
    def _may_be_worth(self, transcript: Transcript, estimate: int) -> bool:
        """Whether a scan for old results could find a batch worth aging. What a scan can reclaim
        grows by at most what was added since the last one (plus the recent turns it had to keep),
        so between epochs the history is not walked every step: that walk would make a step's cost
        grow with the session."""
        if self._scanned is None or transcript.chars < self._scanned[0]:
            return True
        chars, saved = self._scanned
        needed = self.min_batch if estimate <= self.compact_threshold else estimate - self.age_threshold
        return saved + (transcript.chars - chars) >= needed * CHARS_PER_TOKEN

    def _boundary(self, messages: list[dict[str, Any]]) -> int | None:
        """Index of the first of the last `keep_recent` turns (found from the end: O(keep_recent)), or
        None while there are no more turns than that."""
        seen = 0
        for index in range(len(messages) - 1, -1, -1):
            if messages[index]["role"] == "assistant":
                seen += 1
                if seen == self.keep_recent:
                    return index
        return None

    def _recent_chars(self, messages: list[dict[str, Any]]) -> int:
        """Size of the last `keep_recent` turns, which a scan keeps but a later one may age."""
        boundary = self._boundary(messages)
        return size(messages[boundary:]) if boundary is not None else size(messages)

    def _aging_plan(self, messages: list[dict[str, Any]]) -> tuple[dict[int, dict[str, Any]], int, int]:
        """{message index: rewritten message} for every old, large, not yet elided tool result,
        the characters that saves, and how many results. Old = before the last `keep_recent` turns.
        Incremental: what lies before the last scan's boundary cannot have changed since (the
        history only grows at its end, and a rewrite makes a new list), so only the turns that
        became old since are walked; a step's cost does not grow with the session."""
        boundary = self._boundary(messages)
        if boundary is None:
            return {}, 0, 0
        scan = self._scan if self._scan is not None and self._scan.messages is messages else _Scan(messages)
        for index in range(scan.upto, boundary):
            msg = messages[index]
            if msg["role"] == "assistant":
                scan.uses.update(
                    (b["id"], (b.get("name", "?"), b.get("input")))
                    for b in msg["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_use"
                )
            elif msg["role"] == "user":
                scan.add(index, msg)
        scan.upto = max(scan.upto, boundary)
        self._scan = scan
        return scan.plan, scan.saved, scan.count

    def _age(self, transcript: Transcript, plan: dict[int, dict[str, Any]], count: int, before: int, after: int) -> ev.Notice:
        transcript.rewrite([plan.get(i, msg) for i, msg in enumerate(transcript.messages)])
        self._scanned = None
        self.epochs += 1
        return ev.Notice(
            f"context ~{before:,} tokens passed {self.age_threshold:,}: shrank {plural(count, 'old tool result')} "
            f"to one-line elisions, now ~{after:,} tokens (aging epoch {self.epochs})"
        )

    # -- compaction -----------------------------------------------------------------------------
    def compact(self, transcript: Transcript) -> Iterator[ev.Event]:
        """Summarise the conversation with one model call and restart from the summary."""
        self._forced = False
        messages = transcript.messages
        if not any(msg["role"] == "assistant" for msg in messages):
            yield ev.Notice("nothing to compact yet")
            return
        before = self.estimate(transcript)
        request = m.Request(
            SUMMARY_SYSTEM,
            (),
            ({"role": "user", "content": [text_block(render_for_summary(messages, self.compact_threshold * CHARS_PER_TOKEN))]},),
            self.summary_max_tokens,
        )
        try:
            summary, usage = ask(self.model, request)
        except m.ModelError as exc:
            yield ev.Notice(f"compaction failed ({exc}); continuing with the full context", "warning")
            return
        if self.on_usage:
            self.on_usage(usage, "compaction")
        if not summary.strip():
            yield ev.Notice("compaction produced an empty summary; continuing with the full context", "warning")
            return
        carried = _latest_user_blocks(messages)
        transcript.restart([{"role": "user", "content": [text_block(self._restart_text(messages, summary)), *carried]}])
        self.compactions += 1
        self._scanned = None
        self._real = None
        after = self.estimate(transcript)
        yield ev.Notice(f"compacted the conversation into a summary: ~{before:,} → ~{after:,} tokens")

    def _restart_text(self, messages: list[dict[str, Any]], summary: str) -> str:
        parts = [
            COMPACTED + " to save context. The original request, a summary of the work so far, and the current state follow.]"
        ]
        request = first_request(messages)
        if request:
            parts.append("# Original request\n" + clip(request, REQUEST_CHARS_FOR_SUMMARY))
        parts.append("# Summary of the work so far\n" + summary.strip())
        if self.reinject:
            try:
                state = self.reinject()
            except Exception as exc:  # the state is a help, not a reason to lose the session
                state = f"(could not read the current state: {type(exc).__name__}: {exc})"
            if state and state.strip():
                parts.append("# Current state (read from disk just now; it supersedes the summary)\n" + state.strip())
        parts.append("Continue the task from where the summary leaves off. Read files again if you need their exact contents.")
        return "\n\n".join(parts)


def _latest_user_blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What came after the model's last reply (the user's new message, guidance, the results it
    is waiting for) carried over verbatim: a summary may drop exactly the words just typed.
    Results lose their tool_use partner, so they travel as text."""
    if not messages or messages[-1]["role"] != "user":
        return []
    uses = {
        b["id"]: b
        for msg in messages
        if msg["role"] == "assistant"
        for b in msg["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }
    blocks = []
    for block in messages[-1]["content"]:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            blocks.append(text_block(block["text"]))
        elif block.get("type") == "tool_result":
            use = uses.get(block.get("tool_use_id"), {})
            label = f"{use.get('name', 'a tool')} {json.dumps(use.get('input', {}), ensure_ascii=False)[:200]}"
            body = clip(content_text(block.get("content", "")), RESULT_CHARS_FOR_SUMMARY * 2)
            blocks.append(text_block(f"[result of your last call, {label}]\n{body}"))
    return blocks


def render_for_summary(messages: list[dict[str, Any]], limit: int = 400_000) -> str:
    """The conversation as plain text for the summariser. Plain text because a request carrying
    tool_use blocks must also carry tools, and the summariser should not be offered any; large
    results are clipped (head and tail) since the summary needs their gist, not every byte."""
    out: list[str] = []
    for msg in messages:
        out.append(f"## {msg['role']}")
        for block in msg["content"]:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                out.append(block["text"])
            elif kind == "tool_use":
                out.append(f"→ {block.get('name')} {clip(json.dumps(block.get('input')), 600)}")
            elif kind == "tool_result":
                mark = " (error)" if block.get("is_error") else ""
                out.append(f"← result{mark}:\n{clip(content_text(block.get('content', '')), RESULT_CHARS_FOR_SUMMARY)}")
    return "Summarise this session:\n\n" + clip("\n".join(out), limit)


@dataclass
class _Scan:
    """What an aging scan found in messages[:upto] of one history list."""

    messages: list[dict[str, Any]]
    upto: int = 0
    uses: dict[Any, tuple[str, Any]] = field(default_factory=dict)  # tool_use id: (name, input)
    plan: dict[int, dict[str, Any]] = field(default_factory=dict)
    saved: int = 0
    count: int = 0

    def add(self, index: int, msg: dict[str, Any]) -> None:
        blocks, changed = [], False
        for block in msg["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                text = content_text(block.get("content", ""))
                if len(text) >= MIN_ELIDE_CHARS and not text.startswith(ELIDED):
                    name, args = self.uses.get(block.get("tool_use_id"), ("tool", None))
                    short = elision(name, args, text)
                    self.saved += len(json.dumps(block.get("content"))) - len(json.dumps(short))
                    block, changed, self.count = {**block, "content": short}, True, self.count + 1
            blocks.append(block)
        if changed:
            self.plan[index] = {**msg, "content": blocks}
