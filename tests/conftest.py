"""Shared fixtures: real temp directories, real git repositories, scripted models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["sandboxkit"]  # the kernel-layer fixtures of tests/sandbox and tests/redteam

from cast.agent.loop import Agent
from cast.models.scripted import ScriptedModel
from cast.tools.base import ToolContext
from cast.workspace import Workspace


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    """No test reads the developer's own config, AGENTS.md or API key."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # the Models API answers cast keeps
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))  # sessions, history, checkpoints
    for var in ("CAST_MODEL", "CAST_MAX_STEPS", "CAST_EFFORT", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CAST_SCRIPT_RECORD"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    (home / ".gitconfig").write_text("[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n")
    # What cast says once per process is said once per test: a REPL's sink or an earlier test's
    # notice must not leak into the next (workers run tests in any order).
    from cast import state

    monkeypatch.setattr(state, "_announced", set())
    monkeypatch.setattr(state, "_sink", [])


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    """A real git repository with one commit."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "README.md").write_text("# demo\n")
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial")
    return root


def commit_plan(repo: Path, text: str, message: str = "plan", session: str = "2099-01-01-x") -> Path:
    """`text` as the plan of `session`, committed with everything else in the work tree."""
    plan = repo / ".cast" / "plans" / session / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return plan


def write_script(path: Path, turns: list[dict]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in turns))
    return path


def make_agent(root: Path, turns: list[dict], tools, **kwargs) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(turns)
    ctx = ToolContext(workspace=Workspace(root))
    return Agent(model=model, tools=tools, system="test system", ctx=ctx, **kwargs), model


def run_all(agent: Agent, text: str = "go") -> list:
    return list(agent.run(text))


def cast_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(extra)
    return env


def invoke_cast(
    cwd: Path, *args: str, stdin: str | None = None, record: Path | None = None, timeout: float = 60, **env: str
) -> subprocess.CompletedProcess[str]:
    """`cast ARGS` run in this process through typer's runner: the real CLI, as `run_cast` runs it
    (same arguments, same result) without a new Python and cast's imports, for tests that check an
    exit code, what was said and what was written. `env` is set for the call only; `timeout` is
    not enforced in-process. Use `run_cast` where the process itself is the subject (signals, a
    terminal, start-up, the environment cast passes on)."""
    import contextlib

    from typer.testing import CliRunner

    from cast.cli import app

    if record is not None:
        env["CAST_SCRIPT_RECORD"] = str(record)
    with contextlib.chdir(cwd):
        done = CliRunner().invoke(app, list(args), input=stdin, env=env, catch_exceptions=False)
    return subprocess.CompletedProcess(["cast", *args], done.exit_code, done.stdout, done.stderr)


def run_cast(
    cwd: Path, *args: str, stdin: str | None = None, record: Path | None = None, timeout: float = 60, **env: str
) -> subprocess.CompletedProcess[str]:
    """`cast ARGS` as a user runs it from a script: a real process in `cwd`, no terminal, stdin
    closed unless given, this test's isolated environment (no API key) plus `env`. `record`
    makes a scripted model write the requests it was sent there."""
    if record is not None:
        env["CAST_SCRIPT_RECORD"] = str(record)
    return subprocess.run(
        [sys.executable, "-m", "cast", *args],
        cwd=cwd,
        env=cast_env(**env),
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
