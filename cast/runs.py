"""Assemble a run: workspace, config, model, mode and tools wired into an Agent.

This is the only place that knows how the parts fit; the CLI and the REPL both call it, so a
one-shot run and an interactive one are the same machine with different front-ends.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from cast.agent.loop import Agent, Hooks
from cast.config import Config, load
from cast.models.base import Model
from cast.modes import PLAN, Mode, system_prompt
from cast.tools.base import ToolContext
from cast.workspace import Workspace


@dataclass
class Options:
    """What the command line may override."""

    model: str | None = None
    max_steps: int | None = None
    json: bool = False
    yes: bool = False
    cwd: Path | None = None
    extra: dict = field(default_factory=dict)


@dataclass
class Run:
    workspace: Workspace
    config: Config
    mode: Mode
    agent: Agent
    session_id: str

    @property
    def ctx(self) -> ToolContext:
        return self.agent.ctx


def setup(options: Options) -> tuple[Workspace, Config]:
    workspace = Workspace.discover(options.cwd)
    config = load(workspace.root, model=options.model, max_steps=options.max_steps)
    return workspace, config


def make_model(spec: str, config: Config) -> Model:
    from cast.models.registry import resolve

    return resolve(spec, config)


def plan_run(task: str, options: Options, model: Model | None = None) -> Run:
    from cast.plans.store import new_session_id

    workspace, config = setup(options)
    session_id = new_session_id(workspace.root, task or "plan", date.today())
    ctx = ToolContext(workspace=workspace, task=task, services={"session_id": session_id})
    model = model or make_model(config.model_for("plan"), config)
    agent = Agent(
        model=model, tools=PLAN.tools, system=system_prompt(PLAN, workspace), ctx=ctx,
        max_steps=config.max_steps, max_tokens=config.max_tokens, hooks=Hooks(),
    )
    return Run(workspace, config, PLAN, agent, session_id)
