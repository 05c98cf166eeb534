"""The cache meter behind bench/bench_cache.py: a prefix cached by one request is read by the
next, the new part is written, a changed early block forces a rewrite, and prefixes under the
API's minimum are never cached."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from bench_cache import CacheMeter, flatten  # noqa: E402

MARK = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "s" * 8_000, "cache_control": MARK}]  # ~2000 tokens


def user(text: str, mark: bool = False) -> dict:
    block = {"type": "text", "text": text} | ({"cache_control": MARK} if mark else {})
    return {"role": "user", "content": [block]}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def body(*messages: dict) -> dict:
    return {"system": SYSTEM, "messages": list(messages)}


def test_the_next_request_reads_what_the_last_one_wrote():
    meter = CacheMeter()
    first = meter.charge(body(user("a" * 4_000, mark=True)))
    assert first.read == 0 and first.write == first.total and first.plain == 0
    second = meter.charge(body(user("a" * 4_000, mark=True), assistant("b" * 400), user("c" * 4_000, mark=True)))
    assert second.read == first.total
    assert second.write == second.total - first.total and second.plain == 0


def test_a_changed_early_block_rewrites_everything_after_the_system_prefix():
    meter = CacheMeter()
    meter.charge(body(user("a" * 4_000, mark=True), assistant("b" * 400), user("c" * 4_000, mark=True)))
    again = meter.charge(body(user("A" * 400), assistant("b" * 400), user("c" * 4_000, mark=True)))
    system_tokens = sum(len(s) // 4 for s, _ in flatten(body())[:1])
    assert again.read == system_tokens and again.write == again.total - system_tokens


def test_text_after_the_last_breakpoint_is_plain_input_and_short_prefixes_are_not_cached():
    meter = CacheMeter()
    charge = meter.charge({"messages": [user("x" * 400, mark=True), assistant("y" * 400), user("z" * 4_000)]})
    assert charge.write == 0 and charge.read == 0 and charge.plain == charge.total  # under 1024 tokens
    assert meter.cached == set()
