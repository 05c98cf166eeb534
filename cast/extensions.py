"""What joins a run at start-up besides cast's own tools: MCP servers, skills, subagents, hooks.

An extension is built once per run, before the first request (`start`), from the workspace and
the config; it may add tools (registered into the run's `Registry`, so modes admit them by access
like built-in ones), a section of the stable system prompt, and a `CallGate` the loop consults
around tool calls. It hears about mode switches (an MCP server started for plan mode is restarted
for execute) and is closed with the run (`Run.close`). What it could not do at start-up is said
through `Setup.notice`, which the user sees as a `Notice` at the first step.

Extensions are listed by module path in `FACTORIES`, so a run without any configured imports
nothing heavy: each factory returns None when its part is not configured.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cast.agent.gate import CallGate
    from cast.config import Config
    from cast.modes import Mode
    from cast.options import Options
    from cast.tools.base import Tool, ToolContext
    from cast.workspace import Workspace


class Extension(Protocol):
    name: str

    def tools(self) -> list[Tool[Any]]:
        """Tools to register before the first request."""
        ...

    def prefix(self) -> str:
        """Text for the stable system prompt ("" for none): byte-stable for the run's life."""
        ...

    def gate(self) -> CallGate | None:
        """What the loop asks before and after each tool call (hooks); None: nothing."""
        ...

    def switched(self, mode: Mode) -> None:
        """The run switched to `mode`."""
        ...

    def close(self) -> None: ...


class BaseExtension:
    """An extension that does nothing: subclass it and override what yours does."""

    name = "extension"

    def tools(self) -> list[Tool[Any]]:
        return []

    def prefix(self) -> str:
        return ""

    def gate(self) -> CallGate | None:
        return None

    def switched(self, mode: Mode) -> None:
        return None

    def close(self) -> None:
        return None


@dataclass
class Setup:
    """What a factory gets: the run's workspace, config and options, the mode it starts in, a way
    to tell the user something at start-up, and the request channel for start-up questions (see
    `tools.base.ToolContext.ask`; None: nobody can be asked, so whatever needs an answer is skipped)."""

    workspace: Workspace
    config: Config
    options: Options
    mode: str
    requests: Callable[[Any], Any] | None = None
    notices: list[str] = field(default_factory=list)
    ctx: ToolContext | None = None  # the run's tool context (session id, cancel, emit), for what runs at its seams
    # Waits until the run has recorded the tree it starts from (agent/found_tree.py); called before an
    # extension starts a process that could change the tree (an MCP server), so that the report counts
    # what that process writes as the run's doing. None: the tree is recorded already, or not at all.
    before_processes: Callable[[], object] | None = None

    def notice(self, text: str) -> None:
        self.notices.append(text)


Factory = Callable[[Setup], "Extension | None"]

# "module:function" of each factory, in the order their tools and prompt sections join a run.
FACTORIES: tuple[str, ...] = (
    "cast.subagents:make",
    "cast.skill_extension:extension",
    "cast.hooks.extension:make",
    "cast.mcp.extension:factory",
)


def start(setup: Setup, factories: tuple[str, ...] | None = None) -> list[Extension]:
    """Every configured extension of a run. One that fails to start is left out with a notice:
    a broken server or skill must not keep the user from working."""
    built: list[Extension] = []
    for path in FACTORIES if factories is None else factories:
        module, _, function = path.partition(":")
        try:
            factory: Factory = getattr(importlib.import_module(module), function)
            extension = factory(setup)
        except Exception as exc:  # an extension's bug, not the user's: say it and go on without it
            setup.notice(f"{path} did not start: {type(exc).__name__}: {exc}")
            continue
        if extension is not None:
            built.append(extension)
    return built


def close_all(extensions: list[Extension]) -> None:
    """Close each one, whatever the others do: closing is the end of the run, not a new failure."""
    for extension in extensions:
        try:
            extension.close()
        except Exception:
            pass
