"""`cast mcp`: the MCP servers a run here would have, with their source, approval, status and
tools; `cast mcp approve NAME` / `cast mcp revoke NAME` for a repository's servers. Listing starts
the servers that may start (in the plan-mode sandbox) to ask for their tools; one that may not is
listed with why. A table on a terminal, tab-separated rows when piped, --json lines."""

from __future__ import annotations

import json as json_lib
import sys
from typing import Annotated, Any

import typer

from cast.cli_lists import _json, _rows, words_only
from cast.text import echo, terminal_safe

JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]


def register(app: typer.Typer) -> None:
    app.command(short_help="MCP servers, their approval and tools; approve NAME.")(mcp)


def mcp(
    ctx: typer.Context,
    action: Annotated[str | None, typer.Argument(metavar="[approve|revoke]", help="Approve or revoke NAME.")] = None,
    name: Annotated[str | None, typer.Argument(metavar="NAME", help="A server of this workspace's config or .mcp.json.")] = None,
    json: JsonOpt = False,
) -> None:
    """List the MCP servers configured here (your config, .cast/config.toml, .mcp.json) with their
    source, approval, status and tools; `approve NAME` lets a repository's server start here
    (pinned to what it runs: a change asks again), `revoke NAME` takes that back."""
    from cast.mcp.config import discover  # deferred: keeps cast.mcp.config (13 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    root = Workspace.discover().root
    found = discover(root)
    for warning in found.warnings:
        sys.stderr.write(f"cast: {terminal_safe(warning)}\n")
    if action is not None:
        words_only(ctx, json, f"cast mcp {action}")
        raise typer.Exit(_change(action, name, found.servers, root))
    listed = rows(found.servers, found.plan_tools, root)
    if _json(ctx, json):
        for row in listed:
            print(json_lib.dumps(row))
        return
    if not listed:
        echo("no MCP servers: add [mcp_servers.NAME] with a command or url to ~/.config/cast/config.toml")
        return
    table = [[r["name"], r["source"], r["approval"], r["status"], ", ".join(r["tools"]) or "-"] for r in listed]
    _rows(["NAME", "SOURCE", "APPROVAL", "STATUS", "TOOLS"], table)


def rows(servers: dict[str, Any], plan_tools: tuple[str, ...], root: Any, probe: bool = True) -> list[dict[str, Any]]:
    """One dict per server; `probe` starts those that may start, for their status and tools."""
    from cast.mcp.gate import gate  # deferred: keeps cast.mcp.gate (16 modules) off cast plan --help

    gates = {name: gate(server, root) for name, server in servers.items()}
    live: dict[str, Any] = {}
    tools: dict[str, list[str]] = {}
    starting = [servers[name] for name, decided in gates.items() if decided.may_start]
    if probe and starting:
        from cast.mcp.servers import Servers  # deferred: keeps cast.mcp.servers (67 modules) off cast plan --help

        probed = Servers(root, starting, plan_tools, "plan")
        probed.start()
        live = probed.live
        tools = {
            name: [t.remote + (" (plan)" if "plan" in t.admitted else "") for t in probed.mcp_tools() if t.server == name]
            for name in live
        }
        probed.close()
    found = []
    for name, server in servers.items():
        decided = gates[name]
        status = live[name].status if name in live else ("may start" if decided.may_start else f"not started: {decided.why}")
        found.append(
            {
                "name": name,
                "source": server.source,
                "path": str(server.path),
                "transport": server.transport,
                "runs": server.label(),
                "approval": decided.approval,
                "status": status,
                "tools": tools.get(name, []),
            }
        )
    return found


def _change(action: str, name: str | None, servers: dict[str, Any], root: Any) -> int:
    from cast.mcp.gate import approve, question, revoke  # deferred: keeps cast.mcp.gate (16 modules) off cast plan --help

    if action not in ("approve", "revoke") or not name:
        sys.stderr.write("cast: usage: cast mcp [approve|revoke NAME]\n")
        return 2
    if action == "revoke":
        echo(f"revoked MCP server {name}" if revoke(name, root) else f"MCP server {name} was not approved here")
        return 0
    server = servers.get(name)
    if server is None:
        sys.stderr.write(f"cast: no MCP server {terminal_safe(name)!r} here (see cast mcp)\n")
        return 1
    if not server.from_project:
        echo(f"MCP server {name} is in your own config: it needs no approval")
        return 0
    echo(question(server))
    approve(server, root)
    from cast.trust import is_trusted  # deferred: keeps cast.trust (12 modules) off cast plan --help

    later = "" if is_trusted(root) else "; it starts once you trust this workspace (cast trust)"
    echo(f"approved MCP server {name} (pinned to what it runs: a change asks again){later}")
    return 0
