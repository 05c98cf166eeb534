"""Cache anchors (cast/agent/anchor.py): the request that carries an aging batch reads the history up
to where the batch starts from the cache, instead of only the system prefix.

A long planning session through the real provider and SDK against the fake Messages API, whose
emulated prompt cache looks back 20 blocks from each breakpoint as the prompt-caching page says
(tests/fakeapi_wire.py). Once with the API clearing old results (Sonnet 5.5's context editing), once
with cast shrinking them itself (the same model without it)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from fakeapi import fake_api, text, tool_use  # noqa: F401  (fake_api is a fixture)

from cast import runs
from cast.agent import events as ev
from cast.models.anthropic import AnthropicModel

STEPS = 36


def session(fake_api, tmp_path, managed: bool):  # noqa: F811
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    for n in range(STEPS):
        (tmp_path / "src" / f"m{n:02d}.py").write_text(
            "".join(f"def f{n}_{i}(x):\n    return x + {i}  # pad\n" for i in range(60))
        )
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text(
        "age_threshold_tokens = 10000\ncompact_threshold_tokens = 400000\nkeep_recent_steps = 2\n"
    )
    for n in range(STEPS):
        fake_api.reply(text(f"Module {n}."), tool_use(f"toolu_{n:03d}", "read_file", {"path": f"src/m{n:02d}.py"}))
    fake_api.reply(text("Read them all."))
    options = runs.Options(cwd=tmp_path, max_steps=STEPS + 5)
    _, config = runs.setup(options)
    model = AnthropicModel("claude-sonnet-5-5", config, api_key="test-key", base_url=fake_api.url)
    assert model.spec is not None and model.spec.context_management
    if not managed:
        model.spec = replace(model.spec, context_management=False)  # cast ages the history itself
    run = runs.plan_run("read", options, model=model)
    stops = [e for e in run.agent.run("Read every module.") if isinstance(e, ev.Stopped)]
    assert stops[-1].status == "done", stops
    assert fake_api.rejections() == []
    return fake_api.requests


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
    requests = session(fake_api, tmp_path, managed)
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
