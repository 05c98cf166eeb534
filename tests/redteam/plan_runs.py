"""Plan mode driven through an attack list: the shared shape of the red-team tests that show a
command never runs. A scripted model sends each command, then a harmless `echo` (refusals in a
row would end the run), then writes a plan; the requests it was sent tell what came back."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from conftest import run_cast, write_script


@dataclass(frozen=True)
class PlanRun:
    attempts: list[dict]  # the tool result of each attack, in order
    sent: str  # every request the model was sent, as recorded
    output: str  # what cast printed, stdout and stderr


def run_attacks(repo: Path, tmp_path: Path, attacks: list[str], *, sandbox: str = "off", **env: str) -> PlanRun:
    turns: list[dict] = [
        {"tool_uses": [{"name": "bash", "input": {"command": a}}, {"name": "bash", "input": {"command": f"echo {i}"}}]}
        for i, a in enumerate(attacks)
    ]
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]},
        {"text": "ok"},
    ]
    record = tmp_path / f"requests-{sandbox}.jsonl"
    script = write_script(tmp_path / f"script-{sandbox}.jsonl", turns)
    done = run_cast(repo, "--model", f"script:{script}", "plan", "x", record=record, CAST_SANDBOX=sandbox, **env)
    assert done.returncode == 0, done.stderr[-2000:]
    sent = record.read_text()
    requests = [json.loads(line) for line in sent.splitlines()]
    results = [b for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"]
    assert len(results) == 2 * len(attacks) + 1, "every attack, its echo and the plan get a result"
    return PlanRun(results[0 : 2 * len(attacks) : 2], sent, done.stdout + done.stderr)


def assert_bash_runs_each(repo: Path, attacks: list[str], marker: Path) -> None:
    """The other half of each such test: plain bash, in the same tree, does run every attack."""
    for attack in attacks:
        marker.unlink(missing_ok=True)
        subprocess.run(["bash", "-c", attack], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
        assert marker.exists(), attack
