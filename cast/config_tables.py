"""Config keys whose values their own module parses and gates, not `Config`.

A table such as `[mcp_servers.NAME]` or a key such as `plan_tools` has rules of its own about what a
repository's file may do (a project's server needs trust and an approval; `plan_tools` counts from
the user's file only), so `cast/config.py` only knows these keys exist (a typo elsewhere is still an
error) and never merges them; the owning module reads them with `raw` and applies its rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from cast.config_files import config_paths, read_toml

OWN_KEYS = {  # key -> the module that parses it
    "mcp_servers": "cast.mcp.config",
    "plan_tools": "cast.mcp.config",
    "explore_model": "cast.tools.explore_settings",
    "explore_max_steps": "cast.tools.explore_settings",
    "explore_max_tokens": "cast.tools.explore_settings",
    "hooks": "cast.hooks.config",
}

# The `config.LOOSENING` rule of an own key, where it is not "never": a project's [[hooks]] are
# programs run as the user (and so are its [mcp_servers]), so any of them asks for trust (and is ignored, and named, without it).
OWN_LOOSENING: dict[str, Callable[[Any, Any], bool]] = {
    "hooks": lambda base, value: bool(value),
    "mcp_servers": lambda base, value: bool(value),  # a repository's servers: trust first (then each is approved)
}


def raw(root: Path | None, key: str) -> list[tuple[str, Path, Any]]:
    """`key` as each config file writes it, lowest precedence first: ("user" | "project", the file,
    its value). Unchecked and ungated: the owning module decides what a repository's value may do.
    A repository's file is read as data (no symlink, at most 1 MB); an unreadable one is a ConfigError."""
    found = []
    for scope, path in zip(("user", "project"), config_paths(root), strict=False):
        if path.is_file():
            values = read_toml(path, repository=scope == "project")
            if key in values:
                found.append((scope, path, values[key]))
    return found
