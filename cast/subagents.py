"""The explore subagent joins every run as an extension: one `explore` tool (access READ, so plan and
execute mode both offer it), whose children get plan mode's built-in read tools and nothing else.

Why the built-in read tools and not whatever the run's plan mode admits: a child's tools are fixed
here, at start-up, from cast's own registry, so no extension (an MCP server's tool granted to plan
mode, a skill) can widen what a subagent may do, and no explore can start another. What a child
may touch is that list, refused by name otherwise; its prompt only explains. Nothing heavy is
imported until a model asks for an explore.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cast.extensions import BaseExtension, Setup
from cast.modes import system_prompt
from cast.tools.base import Access
from cast.tools.explore import Explorer
from cast.tools.explore_settings import ExploreSettings
from cast.tools.registry import builtin

if TYPE_CHECKING:
    from cast.tools.base import Tool


class ExploreExtension(BaseExtension):
    name = "explore"

    def __init__(self, explorer: Explorer) -> None:
        self.explorer = explorer

    def tools(self) -> list[Tool[Any]]:
        return [self.explorer.tool()]

    def close(self) -> None:
        self.explorer.cancel()  # the run is over: no child outlives it


def read_tools() -> list[Tool[Any]]:
    """Plan mode's read tools from cast's own registry: read_file, list_files, grep, plan-mode bash."""

    return list(builtin().offered(lambda tool: tool.access is Access.READ))


def make(setup: Setup) -> ExploreExtension:
    config = setup.config
    explorer = Explorer(
        config,
        setup.workspace,
        system_prompt(setup.workspace),
        read_tools,
        run_model=config.model_for(setup.mode),
        settings=ExploreSettings.load(setup.workspace.root),
    )
    return ExploreExtension(explorer)
