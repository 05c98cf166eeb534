"""`[[hooks]]` in config: programs the user attaches to tool calls, prompts and the end of a task.

Each entry is `event` (pre_tool_use, post_tool_use, user_prompt, stop), `matcher` (a glob over tool
names, `mcp__*` included; `a|b` for either; tool events only), `command` (run by bash in the
workspace root) and `timeout` (seconds). The user's own config's hooks always count; a project's
count only in a trusted workspace and once approved (cast/hooks/project.py), because they run as the
user, outside the model's sandbox. A bad entry is a ConfigError naming the file and the entry:
a hook the user meant to block something must never be dropped quietly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from cast.config import ConfigError
from cast.config_tables import raw

EVENTS = ("pre_tool_use", "post_tool_use", "user_prompt", "stop")
TOOL_EVENTS = ("pre_tool_use", "post_tool_use")
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
KEYS = ("event", "matcher", "command", "timeout")
USER, PROJECT = "user", "project"


@dataclass(frozen=True)
class Hook:
    event: str
    command: str
    matcher: str = "*"
    timeout: float = DEFAULT_TIMEOUT
    source: str = USER  # "user" or "project"
    index: int = 0  # its place in its file's [[hooks]], from 0

    @property
    def name(self) -> str:
        """How listings and the pins store call it: its file and place (`project hooks[2]`)."""
        return f"{self.source} hooks[{self.index}]"

    def identity(self) -> dict[str, Any]:
        """What an approval pins: every field that changes what runs, or when."""
        return {"event": self.event, "matcher": self.matcher, "command": self.command, "timeout": self.timeout}

    def matches(self, tool: str) -> bool:
        return self.event not in TOOL_EVENTS or any(fnmatchcase(tool, part.strip()) for part in self.matcher.split("|"))

    def label(self) -> str:
        where = f" {self.matcher}" if self.event in TOOL_EVENTS else ""
        return f"{self.event}{where}: {self.command} (timeout {self.timeout:g}s)"


def parse(value: Any, source: str, path: Path) -> list[Hook]:
    """The `hooks` value of one config file, checked; ConfigError names what is wrong."""
    if not isinstance(value, list):
        raise ConfigError(f"{path}: 'hooks' must be an array of tables ([[hooks]])")
    return [_entry(entry, source, index, f"{path}: hooks[{index}]") for index, entry in enumerate(value)]


def _entry(entry: Any, source: str, index: int, where: str) -> Hook:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table with {', '.join(KEYS)}")
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(KEYS)})")
    event, command = entry.get("event"), entry.get("command")
    if event not in EVENTS:
        raise ConfigError(f"{where}: 'event' must be one of {', '.join(EVENTS)}, got {event!r}")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: 'command' must be a non-empty string (run by bash in the workspace root)")
    matcher = entry.get("matcher", "*")
    if not isinstance(matcher, str) or not matcher.strip():
        raise ConfigError(f'{where}: \'matcher\' must be a glob over tool names, e.g. "bash" or "mcp__*"')
    if event not in TOOL_EVENTS and matcher != "*":
        raise ConfigError(f"{where}: 'matcher' applies to tool events only ({', '.join(TOOL_EVENTS)}); {event} hooks have none")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT:
        raise ConfigError(f"{where}: 'timeout' must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, got {timeout!r}")
    return Hook(event, command, matcher, float(timeout), source, index)


def declared(root: Path | None) -> list[Hook]:
    """Every hook the config files declare, the user's first, approved or not."""

    hooks: list[Hook] = []
    for scope, path, value in raw(root, "hooks"):
        hooks += parse(value, USER if scope == "user" else PROJECT, path)
    return hooks
