"""What the fake Messages API computes from a request: its prefix, thinking signatures, token
counts and prompt-cache usage. Deterministic, so tests can state exact expectations.

The request as a flat list of items, in cache order: every tool of `tools`, every block of
`system` (a string is one text block), then every content block of every message in order (a
string content is one text block), each item tagged with its kind (`tool`, `system`) or its
message's role. Message boundaries are not part of the list, so consecutive turns of one role
read as one turn, as the API merges them. An item's canonical form is its JSON with sorted keys,
no spaces, and every `cache_control` key removed at any depth: moving a cache breakpoint never
changes a prefix.

**Prefix digest.** `P(0) = sha256("fake-prefix")`; `P(k+1) = sha256(P(k) || canonical(item k))`.
The prefix of item k is `P(k)`: everything before it (tools, system, all earlier messages, and
the earlier blocks of its own turn). Effort, tool_choice, thinking and cache_control are not in
it, so changing them keeps every signature valid.

**Signatures.** A thinking block the fake emits as item k of the request-plus-reply carries
`signature = "fk1." + base64url(json {"m": model id, "p": P(k)[:32], "b": sha256(thinking)[:16]})`
(a `redacted_thinking` block carries the same token as its `data`). On a later request the block
is valid when its own text still hashes to `b` and the prefix it is sent after still hashes to `p`.

**Compaction.** A `compaction` block in `messages` replaces everything before it: the items the
model sees (and the fake counts, caches and checks) are tools, system, and the messages from the
last compaction block on; a prefix digest starts there too.

**Tokens.** An item costs `max(1, len(canonical)//4)` tokens; a request's input is the sum.

**Prompt cache.** A second chain, `C`, runs over the same items but starts from the model id and
mixes in the thinking config and effort before the first message, so changing those (or the model)
misses on the messages part only. Breakpoints are the items carrying `cache_control`, plus the
last item when the request has a top-level `cache_control` (automatic caching). For each
breakpoint the fake looks back up to 20 items for the latest `C` it has stored; the largest such
prefix is the cache read. Everything from there up to the last breakpoint is written, if that
prefix reaches the model's minimum cacheable length; the part up to the last `1h` breakpoint is
written at 1h, the rest at 5m. Each breakpoint at or over the minimum is stored. The rest of the
input is `input_tokens`. Entries do not expire (a test has no pauses).

Sources. The prefix check and signatures: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
("If `system`, `tools` or any earlier message changes, that block and every later one become
invalid"; effort, tool_choice and cache_control changes are fine; `drop_block`; who reads whose
blocks). Compaction: https://platform.claude.com/docs/en/build-with-claude/compaction. The cache:
https://platform.claude.com/docs/en/build-with-claude/prompt-caching (the 20-block lookback, the
minimum cacheable length per model, automatic caching's slot, "changing thinking, effort or the
model invalidates cached messages"). The token estimate is the fake's own (the API counts with
its tokenizer; tests compare the fake with itself).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

LOOKBACK = 20
SIG_PREFIX = "fk1."
THINKING_KINDS = ("thinking", "redacted_thinking")


def strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def canonical(value: Any) -> str:
    return json.dumps(strip_cache_control(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def blocks_of(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


@dataclass
class Item:
    kind: str  # "tool", "system", or a message role: "user", "assistant", "system-message"
    block: Any
    path: tuple[int, int] | None = None  # (message index, block index) for message blocks
    ttl: str | None = None  # "5m" / "1h" when the item is a cache breakpoint

    @property
    def form(self) -> str:
        return canonical([self.kind, self.block])

    @property
    def tokens(self) -> int:
        return max(1, len(self.form) // 4)


def _ttl(block: Any) -> str | None:
    if isinstance(block, dict) and isinstance(block.get("cache_control"), dict):
        return block["cache_control"].get("ttl") or "5m"
    return None


def flatten(body: dict[str, Any]) -> list[Item]:
    items = [Item("tool", tool, ttl=_ttl(tool)) for tool in body.get("tools") or []]
    items += [Item("system", b, ttl=_ttl(b)) for b in blocks_of(body.get("system"))]
    for i, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        kind = "system-message" if role == "system" else str(role)
        for j, block in enumerate(blocks_of(message.get("content"))):
            items.append(Item(kind, block, (i, j), _ttl(block)))
    return items


def digest_chain(items: list[Item], seed: str = "fake-prefix") -> list[str]:
    """`P(k)` for k = 0..len(items): the digest of everything before item k."""
    out = [hashlib.sha256(seed.encode()).hexdigest()]
    for item in items:
        out.append(hashlib.sha256((out[-1] + item.form).encode()).hexdigest())
    return out


def _body_hash(block: dict[str, Any]) -> str:
    return hashlib.sha256(str(block.get("thinking", "")).encode()).hexdigest()[:16]


def sign(model: str, prefix: str, block: dict[str, Any]) -> str:
    payload = json.dumps({"m": model, "p": prefix[:32], "b": _body_hash(block)}, separators=(",", ":"))
    return SIG_PREFIX + base64.urlsafe_b64encode(payload.encode()).decode()


def read_signature(block: dict[str, Any]) -> dict[str, str] | None:
    token = block.get("signature") if block.get("type") == "thinking" else block.get("data")
    if not isinstance(token, str) or not token.startswith(SIG_PREFIX):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token[len(SIG_PREFIX) :].encode()))
    except (ValueError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and {"m", "p", "b"} <= set(data) else None


def signature_matches(data: dict[str, str], prefix: str, block: dict[str, Any]) -> bool:
    body = _body_hash(block) if block.get("type") == "thinking" else data["b"]
    return data["p"] == prefix[:32] and data["b"] == body


def effective(items: list[Item]) -> list[Item]:
    """What the model sees: everything before the last `compaction` block in `messages` is
    replaced by it (tools and system stay)."""
    last = max(
        (
            k
            for k, it in enumerate(items)
            if it.path is not None and isinstance(it.block, dict) and it.block.get("type") == "compaction"
        ),
        default=None,
    )
    if last is None:
        return items
    return [it for it in items if it.path is None] + items[last:]


def sign_turn(model: str, request_items: list[Item], blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reply's blocks with every thinking block signed against its prefix: the request's
    items as the model sees them (from the last compaction block on), then the reply's earlier
    blocks (a compaction block in the reply starts the prefix afresh)."""
    chain = digest_chain(effective(request_items))[-1]
    out = []
    for block in blocks:
        block = dict(block)
        if block.get("type") == "compaction":
            chain = digest_chain([it for it in request_items if it.path is None])[-1]
        if block.get("type") == "thinking":
            block["signature"] = sign(model, chain, block)
        elif block.get("type") == "redacted_thinking":
            block["data"] = sign(model, chain, {"thinking": ""})
        out.append(block)
        chain = hashlib.sha256((chain + Item("assistant", block).form).encode()).hexdigest()
    return out


# -- prompt cache ------------------------------------------------------------------------------
@dataclass
class CacheUsage:
    total: int
    read: int
    write_5m: int
    write_1h: int

    @property
    def write(self) -> int:
        return self.write_5m + self.write_1h

    @property
    def plain(self) -> int:
        return self.total - self.read - self.write

    def usage(self) -> dict[str, Any]:
        return {
            "input_tokens": self.plain,
            "cache_read_input_tokens": self.read,
            "cache_creation_input_tokens": self.write,
            "cache_creation": {"ephemeral_5m_input_tokens": self.write_5m, "ephemeral_1h_input_tokens": self.write_1h},
        }


class PromptCache:
    """What earlier requests cached, shared by every request to one fake server."""

    def __init__(self) -> None:
        self.stored: set[str] = set()

    def charge(self, body: dict[str, Any], items: list[Item], min_cache: int) -> CacheUsage:
        thinking = body.get("thinking")
        effort = (body.get("output_config") or {}).get("effort")
        seed = canonical({"model": body.get("model")})
        chain = [hashlib.sha256(seed.encode()).hexdigest()]
        mixed = False
        for item in items:
            head = chain[-1]
            if item.path is not None and not mixed:
                head = hashlib.sha256((head + canonical({"thinking": thinking, "effort": effort})).encode()).hexdigest()
                mixed = True
            chain.append(hashlib.sha256((head + item.form).encode()).hexdigest())
        cumulative = [0]
        for item in items:
            cumulative.append(cumulative[-1] + item.tokens)
        marks = [(k + 1, item.ttl) for k, item in enumerate(items) if item.ttl]  # positions after the item
        automatic = body.get("cache_control")
        if isinstance(automatic, dict) and items:
            marks.append((len(items), automatic.get("ttl") or "5m"))
        read_at = 0
        for end, _ in marks:
            for k in range(end, max(0, end - LOOKBACK), -1):
                if chain[k] in self.stored:
                    read_at = max(read_at, k)
                    break
        read = cumulative[read_at]
        write_5m = write_1h = 0
        if marks:
            last = max(end for end, _ in marks)
            if cumulative[last] >= min_cache and last > read_at:
                long_end = max([end for end, ttl in marks if ttl == "1h"] or [0])
                split = min(max(long_end, read_at), last)
                write_1h = cumulative[split] - read
                write_5m = cumulative[last] - cumulative[split]
            for end, _ in marks:
                if cumulative[end] >= min_cache:
                    self.stored.add(chain[end])
        return CacheUsage(cumulative[-1], read, write_5m, write_1h)


# -- the binding check on echoed thinking blocks -------------------------------------------------
INVALID_SIGNATURE = (
    "messages.{i}.content.{j}: Invalid `signature` in `thinking` block. The block is bound to a "
    "different conversation. Send thinking blocks back unchanged after the exact messages they "
    'followed, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
)


def check_thinking_blocks(
    body: dict[str, Any], items: list[Item], reader: Any, can_read: Any, enforce: bool
) -> tuple[list[dict[str, Any]], str | None]:
    """Every echoed thinking block against the request's prefix. Returns the `input_transformations`
    entries and, when a block fails the prefix check and nothing allows it, the 400 message.
    `can_read(reader, writer_id)` is the model-binding rule."""
    thinking = body.get("thinking") or {}
    binding = thinking.get("block_binding") if thinking.get("type") == "adaptive" else None
    drop = isinstance(binding, dict) and binding.get("prefix_mismatch_behavior") == "drop_block"
    items = effective(items)  # blocks before a compaction block are not shown, so not checked
    chain = digest_chain(items)
    out: list[dict[str, Any]] = []
    dropping_turn: int | None = None  # a dropped block takes the rest of its turn's consecutive thinking blocks
    for k, item in enumerate(items):
        block = item.block
        if item.kind != "assistant" or not isinstance(block, dict) or block.get("type") not in THINKING_KINDS:
            dropping_turn = None
            continue
        assert item.path is not None
        i, j = item.path
        path = f"messages.{i}.content.{j}"
        if dropping_turn == i:
            out.append({"type": "thinking_dropped", "path": path, "reason": "prefix_binding_mismatch"})
            continue
        data = read_signature(block)
        if data is not None and not can_read(reader, data["m"]):
            out.append({"type": "thinking_dropped", "path": path, "reason": "model_binding_mismatch"})
            continue
        if data is not None and signature_matches(data, chain[k], block):
            continue
        if not enforce:
            out.append({"type": "thinking_mismatch_allowed", "path": path, "reason": "prefix_binding_mismatch"})
        elif drop:
            out.append({"type": "thinking_dropped", "path": path, "reason": "prefix_binding_mismatch"})
            dropping_turn = i
        else:
            return out, INVALID_SIGNATURE.format(i=i, j=j)
    return out, None


def without_paths(items: list[Item], dropped: set[str]) -> list[Item]:
    return [it for it in items if not (it.path and f"messages.{it.path[0]}.content.{it.path[1]}" in dropped)]
