"""Whether a configured server may start, and the user's approvals of a repository's servers.

A server from the user's own config starts when enabled. One a repository declares (its
`.cast/config.toml` or `.mcp.json`) is the repository's choice of a program to run as the user, so
it starts only in a workspace the user trusted (`cast trust`) and only once the user approved that
very server: the approval is a pin (`cast.pins`) on the digest of its identity (command, args, env,
url, header names), so a clone that changes one byte of it is asked about again. Plain data and no
`mcp` import: `cast mcp`, `/mcp` and the run's start-up all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cast.mcp.config import Server, variables
from cast.pins import approve as pin
from cast.pins import digest, listing
from cast.pins import revoke as unpin
from cast.text import terminal_safe
from cast.trust import is_trusted

KIND = "mcp_server"


@dataclass(frozen=True)
class Gate:
    may_start: bool
    approval: str  # "your config", "approved", "not approved", "changed since approved"
    why: str = ""  # why it does not start ("" when it may)
    askable: bool = False  # only the user's approval is missing: a terminal may ask for it


def identity_digest(server: Server) -> str:
    return digest(server.identity())


def gate(server: Server, root: Path) -> Gate:
    if not server.from_project:
        if server.problem:
            return Gate(False, "your config", server.problem)
        if not server.enabled:
            return Gate(False, "your config", "disabled (enabled = false)")
        return Gate(True, "your config")
    approval = approval_of(server, root)
    if server.problem:
        return Gate(False, approval, server.problem)
    if not server.enabled:
        return Gate(False, approval, "disabled (enabled = false)")

    trusted = is_trusted(root)
    if approval == "approved":
        return Gate(True, approval) if trusted else Gate(False, approval, "this workspace is not trusted (cast trust)")
    how = f"cast mcp approve {server.name}"
    if not trusted:
        return Gate(False, approval, f"a repository's server: trust this workspace (cast trust), then approve it ({how})")
    said = "it changed since you approved it" if approval == "changed since approved" else "it needs your approval"
    return Gate(False, approval, f"{said} ({how})", askable=True)


def approval_of(server: Server, root: Path) -> str:
    if not server.from_project:
        return "your config"

    pins = {pin.name: pin for pin in listing(root, KIND)}
    pin = pins.get(server.name)
    if pin is None:
        return "not approved"
    return "approved" if pin.digest == identity_digest(server) else "changed since approved"


def approve(server: Server, root: Path) -> None:
    pin(root, KIND, server.name, identity_digest(server), label=server.label()[:200])


def revoke(name: str, root: Path) -> bool:
    return unpin(root, KIND, name)


def question(server: Server) -> str:
    """What the user is shown before approving a repository's server: what it runs and reads."""

    lines = [f"MCP server {server.name!r} from {server.path} wants to start:", f"  runs: {server.label()}"]
    if server.env:
        lines.append(f"  env: {', '.join(f'{k}={v}' for k, v in sorted(server.env.items()))}")
    if reads := variables(server):
        lines.append(f"  reads: {', '.join(reads)}")
    lines.append("It runs inside cast's sandbox (no network, your home hidden); approve it only if you trust it.")
    return terminal_safe("\n".join(lines))
