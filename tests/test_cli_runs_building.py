"""A one-shot run is imported and built with the garbage collector off (what start-up makes lives
as long as the process), and the collector is on again, with what was built frozen out of its
scans, before the run is driven: a run of any length is collected as usual."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from conftest import invoke_cast, write_script

from cast import runs

PLAN = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: x\n\n- [ ] Do it\n"}}]}


@pytest.fixture
def seen(monkeypatch) -> dict[str, object]:
    """What the collector was doing while the run was built, and when the run was driven."""
    seen: dict[str, object] = {}
    real_plan, real_turn = runs.plan_run, runs.Run.turn

    def plan_run(*args, **kwargs):
        seen["building"] = gc.isenabled()
        return real_plan(*args, **kwargs)

    def turn(self, *args, **kwargs):
        seen["driving"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()
        return real_turn(self, *args, **kwargs)

    monkeypatch.setattr(runs, "plan_run", plan_run)
    monkeypatch.setattr(runs.Run, "turn", turn)
    yield seen
    gc.unfreeze()
    gc.enable()


def test_a_plan_run_is_built_without_collections_and_driven_with_them(repo: Path, tmp_path: Path, seen):
    gc.unfreeze()
    script = write_script(tmp_path / "script.jsonl", [PLAN, {"text": "Planned."}])
    done = invoke_cast(repo, "--model", f"script:{script}", "plan", "Do it")
    assert done.returncode == 0, done.stdout + done.stderr
    assert seen["building"] is False
    assert seen["driving"] is True and isinstance(seen["frozen"], int) and seen["frozen"] > 0


def test_a_run_that_cannot_start_leaves_the_collector_on(repo: Path, tmp_path: Path, seen):
    done = invoke_cast(repo, "--model", "script:" + str(tmp_path / "missing.jsonl"), "plan", "Do it")
    assert done.returncode != 0
    assert seen["building"] is False and gc.isenabled()
