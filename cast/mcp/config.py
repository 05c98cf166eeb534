"""Which MCP servers a workspace has: `[mcp_servers.NAME]` in the user's and the project's
config.toml, and the project's `.mcp.json` as other agents write it.

Plain data and no `mcp` import: `cast mcp`, the REPL's `/mcp` and a run without servers read this
and pay nothing. Where a server comes from decides what it may do: a project's (either file) is the
repository's choice, so it starts only in a trusted workspace after the user approved its identity
(`identity`, pinned by `cast.pins`), never with the network, never as an HTTP connection, and never
reading a secret variable through `${VAR}`; a user's server of the same name wins over it.
`plan_tools` counts from the user's config only: anywhere else it is ignored, and named.
A bad entry is named with its file and skipped; the other servers are unaffected.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cast.config import ConfigError
from cast.config_tables import raw
from cast.fsutil import read_settings

USER, PROJECT, MCP_JSON = "user", "project", ".mcp.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")  # `mcp__<server>__<tool>` must stay a valid tool name
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
DEFAULT_STARTUP_TIMEOUT = 10.0
DEFAULT_TOOL_TIMEOUT = 60.0
KEYS: dict[str, type | tuple[type, ...]] = {
    "command": str,
    "args": list,
    "env": dict,
    "url": str,
    "headers": dict,
    "bearer_token_env_var": str,
    "enabled": bool,
    "enabled_tools": list,
    "disabled_tools": list,
    "startup_timeout_sec": (int, float),
    "tool_timeout_sec": (int, float),
    "network": bool,
    "type": str,  # .mcp.json's "stdio" | "http" (also "streamable-http"); implied by command/url elsewhere
}
USER_ONLY = ("network",)  # keys a project's server may not set: named and ignored


@dataclass(frozen=True)
class Server:
    """One configured server, as written (env values keep their `${VAR}`: `environment` expands them)."""

    name: str
    source: str  # USER, PROJECT or MCP_JSON
    path: Path  # the file it came from
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    bearer_token_env_var: str = ""
    enabled: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()
    startup_timeout_sec: float = DEFAULT_STARTUP_TIMEOUT
    tool_timeout_sec: float = DEFAULT_TOOL_TIMEOUT
    network: bool = False
    problem: str = ""  # why it cannot start whatever the user says (a bad entry, a forbidden key)

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    @property
    def from_project(self) -> bool:
        return self.source != USER

    def identity(self) -> dict[str, Any]:
        """What an approval of a project's server is pinned to: any change asks again. Env values are
        included as written (`${VAR}` unexpanded, so no secret is hashed): a changed `LD_PRELOAD`
        or `PYTHONPATH` value runs other code as surely as a changed command."""
        return {
            "command": self.command,
            "args": list(self.args),
            "env": {k: self.env[k] for k in sorted(self.env)},
            "url": self.url,
            "headers": sorted(self.headers),
        }

    def offers(self, tool: str) -> bool:
        """Whether the server's config lets `tool` through (`enabled_tools`, `disabled_tools`)."""
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def label(self) -> str:
        """What the server runs or connects to, on one line (for listings and the approval question)."""
        if self.transport == "http":
            return self.url
        return " ".join([self.command, *self.args])


@dataclass
class Found:
    """Every server the workspace has (one per name, the winning definition) and what was said about them."""

    servers: dict[str, Server] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    plan_tools: tuple[str, ...] = ()  # the user's config's `plan_tools`


def discover(root: Path | None) -> Found:
    """The servers of `root` (None: the user's only): user's config, then the project's
    config.toml, then its `.mcp.json`; a name already taken keeps its first definition."""

    found = Found()
    try:
        tables = raw(root, "mcp_servers")
        plan_tools = raw(root, "plan_tools")
    except ConfigError as exc:
        found.warnings.append(str(exc))
        return found
    for scope, path, value in plan_tools:
        if scope != USER:
            found.warnings.append(f"{path}: ignored plan_tools: only your own config ({USER}) names MCP tools for plan mode")
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            found.plan_tools = tuple(value)
        else:
            found.warnings.append(f'{path}: plan_tools must be a list of "server/tool" or "server/*" strings')
    for scope, path, value in tables:
        if not isinstance(value, dict):
            found.warnings.append(f"{path}: mcp_servers must be a table of servers ([mcp_servers.NAME])")
            continue
        _add(found, {name: (scope, path, entry) for name, entry in value.items()})
    if root is not None:
        _add(found, _mcp_json(root / ".mcp.json", found.warnings))
    return found


def _mcp_json(path: Path, warnings: list[str]) -> dict[str, tuple[str, Path, Any]]:
    if not path.is_file() and not path.is_symlink():
        return {}
    try:
        doc = json.loads(read_settings(path, repository=True))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        warnings.append(f"{path}: cannot read it: {exc}")
        return {}
    servers = doc.get("mcpServers") if isinstance(doc, dict) else None
    if not isinstance(servers, dict):
        warnings.append(f'{path}: no "mcpServers" object')
        return {}
    return {name: (MCP_JSON, path, entry) for name, entry in servers.items()}


def _add(found: Found, entries: dict[str, tuple[str, Path, Any]]) -> None:
    for name, (scope, path, entry) in entries.items():
        source = USER if scope == USER else scope if scope == MCP_JSON else PROJECT
        earlier = found.servers.get(name)
        if earlier is not None:
            if earlier.source == USER and source != USER:
                found.warnings.append(f"{path}: ignored server {name!r}: your own config defines a server of that name")
            continue
        server = parse(name, source, path, entry)
        found.servers[name] = server


def parse(name: str, source: str, path: Path, entry: Any) -> Server:
    """One server entry, checked; a bad one is a Server with a `problem` (listed, never started)."""
    if not NAME.fullmatch(str(name)) or "__" in str(name):
        return Server(str(name)[:40], source, path, problem="a server name is 1-32 letters, digits, '-' or '_' (no '__')")
    if not isinstance(entry, dict):
        return Server(name, source, path, problem="not a table")
    values: dict[str, Any] = {}
    for key, value in entry.items():
        kind = KEYS.get(key)
        if kind is None:
            return Server(name, source, path, problem=f"unknown key {key!r} (known: {', '.join(sorted(KEYS))})")
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            return Server(name, source, path, problem=f"bad value for {key!r}: {value!r}")
        values[key] = value
    problem = _problem(values, source)
    lists = {k: tuple(str(v) for v in values[k]) for k in ("args", "disabled_tools", "enabled_tools") if k in values}
    maps = {k: {str(a): str(b) for a, b in values[k].items()} for k in ("env", "headers") if k in values}
    kept = {k: v for k, v in values.items() if k in Server.__dataclass_fields__ and k not in lists and k not in maps}
    if source != USER:
        kept = {k: v for k, v in kept.items() if k not in USER_ONLY}
    return Server(name, source, path, **kept, **lists, **maps, problem=problem)  # type: ignore[arg-type]


def _problem(values: dict[str, Any], source: str) -> str:
    command, url, kind = values.get("command", ""), values.get("url", ""), values.get("type", "")
    if bool(command) == bool(url):
        return "give either a command (stdio) or a url (streamable HTTP)"
    if kind and kind not in ("stdio", "http", "streamable-http"):
        return f"unsupported type {kind!r} (stdio or http)"
    if url and not str(url).startswith(("http://", "https://")):
        return f"url must be http:// or https://, not {url!r}"
    for key in ("args", "enabled_tools", "disabled_tools"):
        if not all(isinstance(v, str) for v in values.get(key, [])):
            return f"{key} must be a list of strings"
    for key in ("env", "headers"):
        if not all(isinstance(v, str) for v in values.get(key, {}).values()):
            return f"{key} values must be strings"
    for key in ("startup_timeout_sec", "tool_timeout_sec"):
        if key in values and not values[key] > 0:
            return f"{key} must be positive"
    if source != USER:
        if url:
            return (
                "an HTTP server connects only when your own config declares it (a repository's would choose where cast connects)"
            )
        for key in USER_ONLY:
            if key in values:
                return f"{key!r} counts only in your own config, not a repository's"
    return ""


def plan_patterns_match(patterns: tuple[str, ...], server: str, tool: str) -> bool:
    """Whether `plan_tools` names `server/tool` (exactly, or as `server/*`)."""
    return f"{server}/{tool}" in patterns or f"{server}/*" in patterns


def variables(server: Server) -> list[str]:
    """The environment variables the server's env, headers and bearer token read."""
    texts = [*server.env.values(), *server.headers.values()]
    names = [m.group(1) for text in texts for m in VARIABLE.finditer(text)]
    return sorted({*names, *([server.bearer_token_env_var] if server.bearer_token_env_var else [])})


def expand(text: str, environ: dict[str, str] | Any, server: Server) -> str:
    """`${VAR}` replaced by its value ("" when unset). A project's server may not read a secret
    (`cast.sandbox.environment.secret`): that is refused by `secret_reads` before it starts."""
    return VARIABLE.sub(lambda m: str(environ.get(m.group(1), "")), text)


def secret_reads(server: Server) -> list[str]:
    """The secret variables a project's server would read (refused: declare it in your own config)."""
    if not server.from_project:
        return []
    from cast.sandbox.environment import secret  # deferred: keeps cast.sandbox.environment off the one-shot first request

    return [name for name in variables(server) if secret(name)]
