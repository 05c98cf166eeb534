"""Explores in the REPL: while they run, their steps show under the call; Esc stops both children
and keeps what each had found; once answered the call is one line, and /cost lists each explore."""

from __future__ import annotations

import json
import os
from pathlib import Path

from replkit import harness  # noqa: F401  (a fixture)

CHILD = [
    {"text": "So far: app.py holds add.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
    {"text": "still reading, slowly", "delay": 30},
]


def test_esc_stops_two_running_explores_and_the_repl_keeps_their_answers(harness, repo, tmp_path):
    script = tmp_path / "child.jsonl"
    script.write_text("".join(json.dumps(t) + "\n" for t in CHILD))
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'explore_model = "script:{script}"\nplan_commands = "proven"\n')
    tasks = ("find the entry point", "find the tests")
    h = harness([{"tool_uses": [{"name": "explore", "input": {"task": t}} for t in tasks]}, {"text": "Next answer."}])
    h.send("look around\r")
    h.wait(
        lambda: h.repl.state.run is not None and len(h.repl.renderer.nested.lines("toolu_001_0")) > 0, "the first explore's step"
    )
    h.wait(lambda: len(h.repl.renderer.nested.lines("toolu_001_1")) > 0, "the second explore's step")
    h.send("\x1b")
    h.wait_text("■ interrupted: interrupted by user")
    h.wait_idle()
    run = h.repl.state.run
    results = [b for m in run.messages if m["role"] == "user" for b in m["content"] if b.get("type") == "tool_result"]
    assert len(results) == 2 and all("So far: app.py holds add." in r["content"] for r in results)
    assert all("interrupted after 2 steps" in r["content"] for r in results)
    out = h.out.text()
    assert "✓ explore find the entry point · interrupted" in out
    h.send("/cost\r")
    h.wait_text("explores (in the figures above): 2")
