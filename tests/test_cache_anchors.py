"""Cache anchors (cast/agent/anchor.py): the request that carries an aging batch reads the history up
to where the batch starts from the cache, instead of only the system prefix.

A long planning session through the real provider and SDK against the fake Messages API, whose
emulated prompt cache looks back 20 blocks from each breakpoint as the prompt-caching page says
(tests/fakeapi_wire.py). Once with the API clearing old results (Sonnet 5.5's context editing), once
with cast shrinking them itself (the same model without it)."""

from __future__ import annotations

import pytest
from fakeapi import fake_api  # noqa: F401  (fake_api is a fixture)
from test_clearing import session


def anchored(body) -> int:
    return sum(
        1
        for message in body["messages"]
        if message["role"] == "assistant"
        for block in message["content"]
        if isinstance(block, dict) and "cache_control" in block
    )


@pytest.mark.parametrize("managed", [True, False], ids=["cleared-by-the-api", "aged-by-cast"])
def test_a_batch_reads_the_history_before_it_from_the_cache(fake_api, tmp_path, managed):  # noqa: F811
    requests = session(fake_api, tmp_path, steps=36, lines=60, age=10_000, keep=2, managed=managed)
    prefix = requests[0].usage["cache_creation_input_tokens"]  # tools, system and the task
    writes = sorted(r.usage["cache_creation_input_tokens"] for r in requests)
    step = writes[len(writes) // 2]  # what one step adds
    # A batch rewrites the history from its first change on: more than a step adds.
    batches = [n for n, r in enumerate(requests) if n and r.usage["cache_creation_input_tokens"] > 2 * step]
    assert len(batches) >= 3, [r.usage for r in requests]
    reads = [requests[n].usage["cache_read_input_tokens"] for n in batches]
    # Each batch reads up to where it starts: past the prefix, and past every earlier batch's
    # elisions and turns, so the reads grow; unanchored, each would read the prefix alone. (cast's
    # first epoch also turns on drop_block, a thinking setting, and that alone invalidates the
    # cached messages, as the prompt-caching page says: its read is the prefix either way.)
    assert all(prefix < a < b for a, b in zip(reads[1:], reads[2:])), reads
    for n in batches:  # the anchor it reads up to, and the next batch's
        assert anchored(requests[n].body) == 2
    assert all(anchored(r.body) == 1 for n, r in enumerate(requests[1:], 1) if n not in batches)
    assert all(str(r.body).count("'cache_control'") <= 4 for r in requests)  # the API's limit
