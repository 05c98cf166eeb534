"""How a conversation with the model starts and changes mode without changing what was sent.

Today's models sign their thinking against everything before it, so within one conversation the
system prompt and the tool declarations stay as first declared (`Prefix`), and a mode lives in an
appended system notice. What differs between models is read from the catalog:

- mid-conversation tool changes (beta): every mode's tools are declared once and a switch adds and
  removes them by reference: nothing sent changes, the cache and all earlier thinking are kept;
- otherwise a switch declares the new mode's tools and the conversation goes on with drop_block:
  every message is kept, the API drops the thinking signed before the switch, and the cache is
  written again once. The other way that never fails the prefix check, a fresh conversation from a
  summary and the plan, costs a summary call and keeps only the summary; measured in
  bench/bench_cache.py, which the README reports;
- server-side context editing (beta): the API clears old tool results itself, so cast's own aging
  (a rewrite, hence drop_block) is not needed.

Effort is fixed per conversation (`Prefix.effort`): the prompt-caching page says a changed effort
does not preserve cached prefixes, so a switch keeps the conversation's effort, tells the user, and
the new mode's configured effort applies from the next conversation (after compaction, or a new
task). Per-message effort (a beta, `role: "system"` messages only) is not available on every model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cast.agent.loop import Agent
from cast.agent.transcript import Prefix
from cast.config import Config
from cast.models.base import Model
from cast.modes import Mode, declared_tools, mode_notice
from cast.tools.orchestrator import plan_commands


@dataclass(frozen=True)
class Capabilities:
    tool_changes: bool = False  # tools offered and withdrawn mid-conversation (beta)
    context_management: bool = False  # server-side clearing of old tool results (beta)


def capabilities(model: Model) -> Capabilities:
    """From the model's catalog entry; a model cast has no entry for (scripted, unknown) gets the
    client-side paths, which work everywhere."""
    spec = model.spec
    if spec is None:
        return Capabilities()
    return Capabilities(bool(spec.tool_changes), bool(spec.context_management))


def effort(config: Config, mode: Mode, model: Model) -> str:
    """The mode's configured effort, or the nearest lower level the model takes; empty: the
    model's default."""
    wanted = config.effort_for(mode.name)
    spec = model.spec
    return spec.effort_or_default(wanted) if spec is not None else wanted


_NOTED: set[str] = set()


def effort_note(config: Config, mode: Mode, model: Model) -> str:
    """What to tell the user when the configured effort or max_tokens is not what gets sent ("" when
    it is): a user's setting is never dropped silently."""
    spec = model.spec
    if spec is None:
        return ""
    return "; ".join(
        note for note in (spec.effort_note(config.effort_for(mode.name)), spec.output_note(config.max_tokens)) if note
    )


def server_context_management(config: Config) -> dict[str, Any]:
    """Server-side aging: past the aging threshold the API clears old tool results, keeping the
    recent ones, at least half the threshold at a time (epochs, as cast's own aging does, so the
    cache is rewritten rarely)."""
    return {
        "edits": [
            {
                "type": "clear_tool_uses_20250919",
                "trigger": {"type": "input_tokens", "value": config.age_threshold_tokens},
                "keep": {"type": "tool_uses", "value": config.keep_recent_steps},
                "clear_at_least": {"type": "input_tokens", "value": config.age_threshold_tokens // 2},
            }
        ]
    }


def runs_tests(config: Config) -> bool:
    """Does plan mode run what the checker cannot prove (so its instructions say it may run tests)?"""

    return plan_commands(config.plan_commands).unverified


def fresh(agent: Agent, config: Config, mode: Mode) -> tuple[Prefix, list[dict[str, Any]]]:
    """How a conversation in `mode` starts: its prefix and its first notice."""
    caps = capabilities(agent.model)
    managed = server_context_management(config) if caps.context_management else None
    prefix = Prefix(agent.system, declared_tools(mode, caps.tool_changes), False, managed, effort(config, mode, agent.model))
    return prefix, mode_notice(mode, runs_tests=runs_tests(config))


def start(agent: Agent, config: Config, mode: Mode) -> None:
    """Declare a new conversation's prefix and queue the mode's instructions as its first notice
    (it goes out right after the first user message)."""
    agent.transcript.fresh = fresh(agent, config, mode)
    agent.transcript.declare(agent.transcript.fresh[0])
    agent.transcript.add_system(mode_notice(mode, runs_tests=runs_tests(config)))
    note = effort_note(config, mode, agent.model)
    if note and note not in _NOTED:  # once per process: not news the second time
        _NOTED.add(note)
        agent.notes.append(note)


def switch(agent: Agent, config: Config, old: Mode, new: Mode) -> None:
    """From `old` to `new` by an appended notice: tool_addition / tool_removal over the tools
    declared once where the model supports it, else the new tools declared (drop_block)."""
    if new == old:  # the same mode, over the same registry or not
        return
    declared = {tool.get("name") for tool in agent.prefix().tools}
    changes = capabilities(agent.model).tool_changes and declared >= {tool.name for tool in new.tools}
    agent.set_mode(
        new.tools,
        mode_notice(new, old, changes, runs_tests=runs_tests(config)),
        None if changes else declared_tools(new, False),
    )
    agent.transcript.fresh = fresh(agent, config, new)
    kept, wanted = agent.prefix().effort, agent.transcript.fresh[0].effort
    if kept is not None and kept != wanted:
        agent.notes.append(
            f"{new.name} mode's effort {_said(wanted)} applies from the next conversation; this one keeps "
            f"{_said(kept)} (a changed effort would re-write the prompt cache)"
        )


def _said(level: str | None) -> str:
    return f'"{level}"' if level else "the model's default"
