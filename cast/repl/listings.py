"""Slash commands that list what a run here is offered (`/skills`, `/mcp`), as tables of Text: the names
and descriptions come from files of the repository, so they are never read as markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.repl.session import Session


def skills(session: Session, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from cast.skills import discover, prefix, rows  # deferred: keeps cast.skills (7 modules) off the REPL's first prompt

    found = discover(session.state.root)
    for notice in found.notices + prefix(found)[1]:
        session.view.say(notice, "dim")
    if not found.skills:
        session.view.say("No skills: put SKILL.md folders in ~/.config/cast/skills/ or the workspace's .cast/skills/.", "dim")
        return
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("skill", no_wrap=True)
    table.add_column("source", no_wrap=True)
    table.add_column("description", overflow="fold")
    for row in rows(found):
        table.add_row(*(Text(cell) for cell in row))
    session.view.show(table)


def mcp(session: Session, arg: str) -> None:
    """The configured MCP servers with their source, approval and whether they may start (the
    running ones' tools are `cast mcp`'s: listing them starts the servers)."""
    from rich.table import Table
    from rich.text import Text

    from cast.cli_mcp import rows  # deferred: keeps typer off the REPL's first prompt
    from cast.mcp.config import discover  # deferred: keeps cast.mcp.config (7 modules) off the REPL's first prompt

    found = discover(session.state.root)
    for warning in found.warnings:
        session.view.say(warning, "dim")
    if not found.servers:
        session.view.say("No MCP servers: add [mcp_servers.NAME] with a command or url to ~/.config/cast/config.toml.", "dim")
        return
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for column in ("server", "source", "approval", "status", "runs"):
        table.add_column(column, overflow="fold")
    for row in rows(found.servers, found.plan_tools, session.state.root, probe=False):
        table.add_row(*(Text(row[key]) for key in ("name", "source", "approval", "status", "runs")))
    session.view.show(table)
