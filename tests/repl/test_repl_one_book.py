"""One usage book per run: after a task with an explore, a model switch and a compaction, the REPL's
toolbar and /cost, the run's summary line and the `--json` result (`Outcome.to_json`) show the
same tokens and cost, and each call is priced at the model that made it."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from replkit import harness  # noqa: F401  (a fixture)

from cast.agent.cost import price_for
from cast.config import Config
from cast.models.base import Usage

RATES = {"script:script.jsonl": (3.0, 15.0, 0.3, 3.75), "script:child.jsonl": (1.0, 5.0, 0.1, 1.25)}
OTHER = (10.0, 50.0, 1.0, 12.5)  # the model switched to: ten times the first's rates, so a mispriced call shows


def test_the_repl_the_summary_and_the_json_result_read_one_book(harness, repo, tmp_path):
    child = tmp_path / "child.jsonl"
    child.write_text(json.dumps({"text": "add is at app.py:1."}) + "\n")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "Summary: add is at app.py:1."}) + "\n" + json.dumps({"text": "Second answer."}) + "\n")
    rates = {**RATES, f"script:{other.name}": OTHER}
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    prices = "".join(f'"{name}" = {list(values)}\n' for name, values in rates.items())
    config.write_text(f'explore_model = "script:{child}"\nplan_commands = "proven"\n\n[prices]\n{prices}')
    h = harness([{"tool_uses": [{"name": "explore", "input": {"task": "where is add?"}}]}, {"text": "First answer."}])
    h.send("where is add?\r")
    h.wait_text("First answer.")
    h.wait_idle()
    h.send(f"/model script:{other}\r")
    h.wait(lambda: h.repl.state.run.model.name == f"script:{other.name}", "the model switch")
    h.send("/compact\r")
    h.wait_text("compacted into a summary")
    h.send("and now?\r")
    h.wait_text("Second answer.")
    h.wait_idle()

    run = h.repl.state.run
    book = run.usage
    made = {(r.agent, r.model, r.kind) for r in book.rows()}
    assert ("", "script:script.jsonl", "step") in made and ("explore-1", "script:child.jsonl", "explore") in made
    assert ("", f"script:{other.name}", "compaction") in made and ("", f"script:{other.name}", "step") in made
    for record in book.rows():  # each call at its own model's rates, whenever it was made
        assert record.cost == pytest.approx(price_for(Config(prices=rates), record.model)(record.usage), abs=1e-6)

    result = run.outcome().to_json()
    total = h.repl.state.total()
    shown = {k: v for k, v in result["usage"]["total"].items() if k != "cost"}
    assert total.usage == Usage.from_dict(shown) and total.usage.input_tokens > 0
    assert result["cost"] == round(total.cost, 6) == round(sum(r.cost or 0.0 for r in book.rows()), 6)
    assert result["usage"]["subagents"]["explore-1"]["calls"] == 1
    assert h.repl.state.cost_label() == f"${result['cost']:.3f}"  # the toolbar's figure
    assert f"${result['cost']:.4f}" in (book.summary() or "")  # the one-shot's closing line
    h.send("/cost\r")
    h.wait_text("explores (in the figures above): 1")
    said = re.findall(r"cost: \$([0-9.]+)", h.out.text())
    assert said and float(said[-1]) == pytest.approx(result["cost"], abs=1e-4)
