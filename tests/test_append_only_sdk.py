"""Append-only on the wire: a long planning session through the real provider and SDK against
the fake Messages API. Every body the fake received must extend the one before it byte for byte
(cache markers aside), except where a rewrite was recorded with the session (aging), and every
system message must sit where the API accepts one."""

from __future__ import annotations

import json
from dataclasses import replace

from fakeapi import fake_api, text, thinking, tool_use  # noqa: F401  (fake_api is a fixture)
from prefixcheck import _strip, assert_append_only, placement_error

from cast import runs
from cast.agent import events as ev
from cast.agent.elide import ELIDED
from cast.models.anthropic import AnthropicModel
from cast.models.catalog import builtin
from cast.session_records import read_records
from cast.sessions import TRANSCRIPT, sessions_dir

SONNET = builtin("claude-sonnet-5-5")
assert SONNET is not None


def test_a_forty_step_session_that_ages_twice_sends_only_appended_requests(fake_api, tmp_path):  # noqa: F811
    (tmp_path / "src").mkdir()
    for n in range(38):
        (tmp_path / "src" / f"m{n:02d}.py").write_text(
            "".join(f"def f{n}_{i}(x):\n    return x + {i}  # padding padding\n" for i in range(150))
        )
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text(
        "age_threshold_tokens = 20000\ncompact_threshold_tokens = 400000\nkeep_recent_steps = 3\nretries = 1\n"
    )
    unknown = {"usage": {"input_tokens": 0}}  # no token count from this fake: cast sizes the context itself
    for n in range(38):
        fake_api.reply(
            thinking(f"Reading m{n:02d} next.", ""),
            text(f"Module {n}."),
            tool_use(f"toolu_{n:03d}", "read_file", {"path": f"src/m{n:02d}.py"}),
            **unknown,
        )
    fake_api.reply(
        thinking("Enough.", ""),
        tool_use("toolu_plan", "write_plan", {"name": "plan", "content": "# Plan: tidy\n\n- [ ] Tidy m00; verify with `true`\n"}),
        **unknown,
    )
    fake_api.reply(thinking("Done.", ""), text("Planned."), **unknown)
    options = runs.Options(cwd=tmp_path, max_steps=60)
    _, config = runs.setup(options)
    model = AnthropicModel("claude-sonnet-5-5", config, api_key="test-key", base_url=fake_api.url)
    model.spec = replace(SONNET, context_management=False)  # type: ignore[attr-defined]  # cast ages the context itself
    run = runs.plan_run("tidy", options, model=model)
    events = list(run.agent.run("Plan a tidy-up of src/."))
    run.outcome()
    stop = [e for e in events if isinstance(e, ev.Stopped)][-1]
    assert stop.status == "done", stop

    bodies = [_strip(r.body) for r in fake_api.requests]
    assert len(bodies) == 40
    elided = [json.dumps(b["messages"]).count(ELIDED) for b in bodies]
    rewrites = {i for i in range(1, len(bodies)) if elided[i] > elided[i - 1]}
    assert len(rewrites) >= 2, "the session must age twice to show anything"
    assert_append_only(bodies, allow=rewrites)
    for body in bodies:
        assert placement_error(body["messages"], body["tools"]) is None
    # every thinking block goes back as the API signed it, and the fake checked each against its
    # prefix: from the first rewrite on, the requests ask it to drop the invalidated ones
    sent_thinking = [
        b for m in bodies[-1]["messages"] if m["role"] == "assistant" for b in m["content"] if b["type"] == "thinking"
    ]
    assert len(sent_thinking) == 39 and len({b["signature"] for b in sent_thinking}) == 39
    first = min(rewrites)
    binding = [(b.get("thinking") or {}).get("block_binding") for b in bodies]
    assert all(x == {"prefix_mismatch_behavior": "drop_block"} for x in binding[first:]) and not any(binding[:first])
    # the rewrites are in the journal, with the prefix that asks for drop_block from the first on
    records = read_records(sessions_dir(tmp_path) / run.session_id / TRANSCRIPT)
    prefixes = [r["prefix"] for r in records if r["role"] == "meta" and "prefix" in r]
    assert [p["drop_block"] for p in prefixes] == [False, True]
    assert sum(1 for r in records if r["role"] == "meta" and "replace" in r) == len(rewrites)
