"""`cast skills`: the skills a run here would offer, with where each comes from, and the ones
skipped and why (on stderr). A table on a terminal, tab-separated rows when piped, --json lines."""

from __future__ import annotations

import json as json_lib
import sys
from typing import Annotated

import typer

from cast.cli_lists import _json, _rows
from cast.text import echo, terminal_safe

JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]


def register(app: typer.Typer) -> None:
    app.command(short_help="Skills the model is offered here, and their source.")(skills)


def skills(ctx: typer.Context, json: JsonOpt = False) -> None:
    """List the skills (SKILL.md folders in ~/.config/cast/skills, .cast/skills, .agents/skills and
    .claude/skills) a run in this workspace offers the model, with their source."""
    from cast.skills import discover, prefix, rows  # deferred: keeps cast.skills (8 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (11 modules) off cast plan --help

    found = discover(Workspace.discover().root)
    for notice in found.notices + prefix(found)[1]:
        sys.stderr.write(f"cast: {terminal_safe(notice)}\n")
    if _json(ctx, json):
        for skill in found.sorted():
            print(
                json_lib.dumps(
                    {"name": skill.name, "source": skill.source, "path": skill.shown, "description": skill.description}
                )
            )
        return
    if not found.skills:
        echo("no skills: put SKILL.md folders in ~/.config/cast/skills/ or the workspace's .cast/skills/")
        return
    _rows(["NAME", "SOURCE", "DESCRIPTION"], rows(found))
