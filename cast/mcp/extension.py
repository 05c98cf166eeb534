"""The MCP extension's factory: which servers a run starts, before its first request.

Reading the config costs nothing and imports no `mcp`: a workspace with no server configured
returns None here, so a run without MCP pays nothing for it. A repository's server that only lacks
the user's approval is asked about through the run's request channel when there is one (the REPL,
`--json --answers stdin`); without one it is skipped with one line naming the command that
approves it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cast.mcp.config import Server, discover
from cast.mcp.gate import approve, gate, question
from cast.safety.decision import ApprovalRequest

if TYPE_CHECKING:
    from cast.extensions import Setup
    from cast.mcp.servers import Servers


def factory(setup: Setup) -> Servers | None:
    root = setup.workspace.root
    found = discover(root)
    for warning in found.warnings:
        setup.notice(warning)
    if not found.servers:
        return None
    starting: list[Server] = []
    for server in found.servers.values():
        decided = gate(server, root)
        if decided.may_start or (decided.askable and _asked(setup, server)):
            starting.append(server)
        elif server.enabled:
            setup.notice(f"MCP server {server.name} ({server.source}) not started: {decided.why}")
    if not starting:
        return None
    from cast.mcp.servers import Servers  # deferred: keeps cast.mcp.servers (34 modules) off the one-shot first request

    servers = Servers(root, starting, found.plan_tools, setup.mode, setup.config.sandbox_env_passthrough)
    if setup.before_processes is not None:  # a server may write the tree at start: the run's start is recorded first
        setup.before_processes()
    servers.start()
    for notice in servers.notices:
        setup.notice(notice)
    return servers


def _asked(setup: Setup, server: Server) -> bool:
    """Ask the user (as an approval question: what it runs and reads, yes or no); a yes is pinned."""

    if setup.requests is None:
        return False
    why = "a repository's MCP server: it starts only with your approval, pinned to what it runs"
    try:
        reply: Any = setup.requests(ApprovalRequest(question(server), str(setup.workspace.root), why, None))
    except Exception:  # noqa: BLE001 — a channel that cannot ask is a "no"
        return False
    if getattr(reply, "approved", False):
        approve(server, setup.workspace.root)
        return True
    return False
