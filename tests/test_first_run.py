"""A new user's first `cast plan "..."`: no flags, no config, against the strict fake API. It must
run clean on today's default model (no request refused), show the model's progress notes, and end
with a usage line whose cost is today's price for what the API reported."""

from __future__ import annotations

import re

import pytest
from conftest import run_cast
from fakeapi import fake_api, text, thinking, tool_use  # noqa: F401  (fake_api is a fixture)

from cast.agent.cost import price_for
from cast.config import Config
from cast.models.base import Usage

PLAN = "# Plan: sub\n\n- [ ] Add sub to app.py\n"


def test_a_first_plan_runs_clean_shows_notes_and_prices_what_it_spent(fake_api, repo):
    fake_api.reply(thinking("Reading app.py first.", "c2lnLTE="), tool_use("toolu_1", "read_file", {"path": "app.py"}))
    fake_api.reply(tool_use("toolu_2", "write_plan", {"name": "plan", "content": PLAN}))
    fake_api.reply(text("The plan is written."))
    done = run_cast(repo, "plan", "add sub", ANTHROPIC_BASE_URL=fake_api.url, ANTHROPIC_API_KEY="test-key")
    assert done.returncode == 0, done.stderr

    asked = [r for r in fake_api.requests if r.path.startswith("/v1/messages")]
    assert [r.status for r in asked] == [200] * len(asked) and len(asked) == 3, [(r.status, r.error) for r in asked]
    assert {r.body["model"] for r in asked} == {"claude-sonnet-5-5"}  # today's default, not a retired one
    lines = done.stdout.splitlines()
    assert lines.index("Reading app.py first.") < next(i for i, line in enumerate(lines) if line.startswith("✓ read_file"))
    assert lines[-1].endswith("plan.md")  # the plan path stays the last line

    usage = [line for line in lines if line.startswith("usage: ")]
    assert len(usage) == 1, done.stdout
    cost = float(re.search(r"\$(\d+\.\d+)", usage[0])[1])
    price = price_for(Config(), "claude-sonnet-5-5")
    spent = [
        Usage(
            r.usage["input_tokens"],
            r.usage["output_tokens"],
            r.usage.get("cache_read_input_tokens", 0),
            r.usage.get("cache_creation_input_tokens", 0),
            (r.usage.get("cache_creation") or {}).get("ephemeral_1h_input_tokens", 0),
        )
        for r in asked
    ]
    assert cost > 0 and cost == pytest.approx(sum(price(u) for u in spent), abs=1e-4)
