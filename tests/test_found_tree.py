"""The tree as a run found it is recorded on a thread of its own while the run is built and its
first request goes out, and waited for before anything may change the tree: the first tool call,
or (with the user's hooks, which run commands before any call) the run's start."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from cast import runs
from cast.agent import events as ev
from cast.agent import found_tree
from cast.agent.found_tree import Taking
from cast.agent.report import ReportBuilder
from cast.config import config_dir
from cast.models.scripted import ScriptedModel
from cast.options import Options


class Counted(Taking):
    """A Taking that counts who waited for it."""

    waits = 0

    def result(self) -> found_tree.Found:
        Counted.waits += 1
        return super().result()


@pytest.fixture
def counted(monkeypatch) -> type[Counted]:
    Counted.waits = 0
    monkeypatch.setattr(runs, "Taking", Counted)
    return Counted


def test_a_plan_run_is_built_while_git_records_the_starting_tree(repo: Path, monkeypatch):
    builder, seen = threading.current_thread(), []
    real = found_tree.GitBaseline.take

    def take(root: Path):  # the tree is recorded on a thread of its own, never on the builder's
        seen.append(threading.current_thread() is not builder)
        return real(root)

    monkeypatch.setattr(found_tree.GitBaseline, "take", take)
    run = runs.plan_run("look around", Options(cwd=repo), model=ScriptedModel([{"text": "Nothing to plan."}]))
    assert run.report is not None and run.report.baseline is not None
    assert seen == [True]
    run.close()


def test_the_first_tool_call_waits_for_the_starting_tree(repo: Path):
    tree = Counted(repo)
    Counted.waits = 0
    builder = ReportBuilder(repo, found=tree)
    builder.observe(ev.StepStarted(1))
    builder.observe(ev.TextDelta("Looking."))
    assert Counted.waits == 0  # nothing yet could change the tree
    builder.observe(ev.ToolCall("toolu_1", "bash", {"command": "touch new.txt"}))
    assert Counted.waits == 1  # observed before the call runs: recorded first
    (repo / "new.txt").write_text("made by the call\n")
    assert builder.build("").files_changed == ["new.txt"]


def test_with_the_users_hooks_the_tree_is_recorded_before_the_run_starts(repo: Path, counted):
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[[hooks]]\nevent = "user_prompt"\ncommand = "touch hooked.txt"\n')
    run = runs.plan_run("look around", Options(cwd=repo), model=ScriptedModel([]))
    assert counted.waits == 1  # a user_prompt hook runs before any call: the tree it may change is in first
    run.close()
