"""Every tool of one run, in one place: the built-in ones and those an extension adds at start-up.

A mode does not list tools; it admits them by access level (`cast.modes.Mode`), so a tool that
appears at start-up (an MCP server's, a skill's, a subagent) takes part in modes like a built-in
one. The registry is frozen before the first request: the declared tools are part of the prompt's
byte-stable prefix, so nothing joins a conversation once it has started.

One name may have variants of different access (plan mode's `bash` and execute mode's): a mode is
offered the most capable variant it admits, at the place the name was first registered, so the
order of the tools a model sees never depends on the mode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cast.tools.base import ACCESS_ORDER, Tool
from cast.tools.edit import EDIT_FILE, WRITE_FILE
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.tools.plan import RunPlan, write_plan_tool
from cast.tools.shell import EXECUTE_BASH, PLAN_BASH
from cast.tools.tasks import update_task_tool


class RegistryError(Exception):
    """A tool that cannot join: its name is taken, or the run's tools are already declared."""


class Registry:
    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        """The built-in tools, variants included (same name, different access)."""
        self._tools: list[Tool[Any]] = []
        self._frozen = False
        for tool in tools:
            if any(t.name == tool.name and t.access == tool.access for t in self._tools):
                raise RegistryError(f"two {tool.access} tools named {tool.name!r}")
            self._tools.append(tool)

    def add(self, tool: Tool[Any]) -> None:
        """A tool from an extension. Its name must be new: a tool named like a built-in one could
        otherwise stand in for it (an external `bash` would outrank execute mode's own)."""
        if self._frozen:
            raise RegistryError(f"{tool.name!r} came after the run's tools were declared")
        if tool.name in self.names():
            raise RegistryError(f"a tool named {tool.name!r} is already registered")
        self._tools.append(tool)

    def freeze(self) -> None:
        """No tool joins after this: the run is about to declare its tools to the model."""
        self._frozen = True

    def names(self) -> list[str]:
        return list(dict.fromkeys(t.name for t in self._tools))

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(list(self._tools))

    def offered(self, admits: Callable[[Tool[Any]], bool]) -> tuple[Tool[Any], ...]:
        """The tools `admits` lets in, one per name (its most capable admitted variant), in
        registration order."""
        chosen: dict[str, Tool[Any]] = {}
        for tool in self._tools:
            if not admits(tool):
                continue
            held = chosen.get(tool.name)
            if held is None or ACCESS_ORDER.index(tool.access) > ACCESS_ORDER.index(held.access):
                chosen[tool.name] = tool
        return tuple(chosen[name] for name in self.names() if name in chosen)


def builtin(plan: RunPlan | None = None) -> Registry:
    """A fresh registry of cast's own tools, for one run: write_plan keeps the run's `plan`,
    update_task works on its board (an execute run's); without one they say there is none."""
    plan = plan or RunPlan()
    write_plan, update_task = write_plan_tool(plan), update_task_tool(plan.board)
    return Registry((READ_FILE, LIST_FILES, GREP, PLAN_BASH, EXECUTE_BASH, write_plan, EDIT_FILE, WRITE_FILE, update_task))
