"""Server-side tool-result clearing in batches (cast/models/clearing.py): a long planning session on
a model with context editing, through the real provider and SDK against the fake Messages API,
whose emulated clearing and caching (tests/fakeapi_context.py, fakeapi_wire.py) decide what is
billed. Sent as declared, `clear_tool_uses` clears one more result every step past its trigger and
the cache is written again every step; held, the cleared set moves only in batches."""

from __future__ import annotations

from dataclasses import replace

from fakeapi import fake_api, text, tool_use  # noqa: F401  (fake_api is a fixture)

from cast import runs
from cast.agent import events as ev
from cast.models.anthropic import AnthropicModel
from cast.models.clearing import cleared_uses, hold

STEPS = 30


def session(fake_api, tmp_path, *, steps=STEPS, lines=80, age=12_000, keep=3, managed=True):  # noqa: F811
    """A planning session reading `steps` modules of `lines` functions each on Sonnet 5.5: its
    context editing clears old results (`managed`), or cast ages them itself (the same model without it)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    for n in range(steps):
        (tmp_path / "src" / f"m{n:02d}.py").write_text(
            "".join(f"def f{n}_{i}(x):\n    return x + {i}  # pad\n" for i in range(lines))
        )
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text(
        f"age_threshold_tokens = {age}\ncompact_threshold_tokens = 400000\nkeep_recent_steps = {keep}\n"
    )
    for n in range(steps):
        fake_api.reply(text(f"Module {n}."), tool_use(f"toolu_{n:03d}", "read_file", {"path": f"src/m{n:02d}.py"}))
    fake_api.reply(text("Read them all."))
    options = runs.Options(cwd=tmp_path, max_steps=steps + 5)
    _, config = runs.setup(options)
    model = AnthropicModel("claude-sonnet-5-5", config, api_key="test-key", base_url=fake_api.url)
    assert model.spec is not None and model.spec.context_management
    if not managed:
        model.spec = replace(model.spec, context_management=False)  # cast ages the history itself
    run = runs.plan_run("read", options, model=model)
    stop = [e for e in run.agent.run("Read every module.") if isinstance(e, ev.Stopped)][-1]
    assert stop.status == "done", stop
    assert fake_api.rejections() == []
    return fake_api.requests


def cleared(record) -> int:
    return sum(edit.get("cleared_tool_uses", 0) for edit in record.applied if edit.get("type") == "clear_tool_uses_20250919")


def test_results_are_cleared_in_batches_and_the_cache_is_read_in_between(fake_api, tmp_path):  # noqa: F811
    requests = session(fake_api, tmp_path)
    assert fake_api.rejections() == []
    counts = [cleared(r) for r in requests]
    assert max(counts) > 0, counts  # the trigger was passed: the API cleared results
    changes = [n for n in range(1, len(counts)) if counts[n] != counts[n - 1]]
    assert 1 <= len(changes) <= 4, counts  # batches, not one more result every step
    assert counts == sorted(counts)  # what was cleared stays cleared
    for n in range(1, len(requests)):
        if n not in changes:  # between batches the whole previous prompt is read from the cache
            usage, previous = requests[n].usage, requests[n - 1].usage
            before = previous["cache_read_input_tokens"] + previous["cache_creation_input_tokens"]
            assert usage["cache_read_input_tokens"] >= before, (n, counts)


def test_the_cleared_count_of_a_conversation_never_changes_as_it_grows():
    messages = []
    seen = []
    for n in range(40):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "read_file", "input": {}}]})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * 4_000}]})
        seen.append(cleared_uses(messages, keep=3, trigger=10_000, batch=5_000)[1])
    assert seen == sorted(seen) and len(set(seen)) < 10  # grows in a few batches
    for n in range(1, 40):  # each prefix's answer is the same when more is appended
        assert cleared_uses(messages[: 2 * n], keep=3, trigger=10_000, batch=5_000)[1] == seen[n - 1]
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 10_000},
        "keep": {"type": "tool_uses", "value": 3},
    }
    held = hold({"edits": [{**edit, "clear_at_least": {"type": "input_tokens", "value": 5_000}}]}, messages)["edits"][0]
    assert held["keep"] == {"type": "tool_uses", "value": 40 - seen[-1]} and "clear_at_least" not in held
