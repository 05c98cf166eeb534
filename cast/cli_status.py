"""`cast checkpoints` and `cast doctor`: what cast keeps for this workspace and what this machine
gives it. Text for people; with --json (here or before the command), one JSON object per line, as
`cast plans` and `cast sessions` print them."""

from __future__ import annotations

import json as json_lib
from typing import Annotated

import typer

from cast.cli_lists import JsonOpt, tabbed, words_only
from cast.text import echo


def register(app: typer.Typer) -> None:
    app.command(short_help="Checkpoint disk use per plan; --prune forgets old ones.")(checkpoints)
    app.command(short_help="Sandbox layer, provider, model, key, config and trust.")(doctor)


def _json(ctx: typer.Context, json: bool) -> bool:
    return json or bool((ctx.obj or {}).get("json"))


def checkpoints(
    ctx: typer.Context,
    prune: Annotated[bool, typer.Option("--prune", help="Remove checkpoints of finished plans older than --days.")] = False,
    days: Annotated[int, typer.Option("--days", min=0, metavar="N", help="Age in days for --prune.")] = 14,
    json: JsonOpt = False,
) -> None:
    """List checkpoints per plan and their disk use; --prune forgets old ones of finished plans."""
    from cast.checkpoints import commands  # deferred: keeps cast.checkpoints.commands (21 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (11 modules) off cast plan --help

    root = Workspace.discover().root
    if prune:
        words_only(ctx, json, "cast checkpoints --prune")
        raise typer.Exit(commands.prune(root, days, echo))
    if _json(ctx, json):
        raise typer.Exit(commands.listing(root, print, as_json=True))
    lines: list[str] = []
    code = commands.listing(root, lines.append)
    tabbed(["PLAN", "SNAPSHOTS", "ITEMS", "STATE", "LAST"], lines)  # a table on a terminal, as cast plans
    raise typer.Exit(code)


def doctor(ctx: typer.Context, json: JsonOpt = False) -> None:
    """What this machine gives cast: which kernel sandbox holds plan-mode commands and what it hides
    and blocks, the provider, the model, the API key, the config files and whether this workspace is trusted."""
    import os
    from unittest import mock

    from cast.doctor import render, run_checks  # deferred: keeps cast.doctor off cast plan --help

    model = (ctx.obj or {}).get("model")  # `cast --model X doctor` checks X, as CAST_MODEL=X does (same precedence)
    with mock.patch.dict(os.environ, {"CAST_MODEL": model} if model else {}):
        checks = run_checks()
    if not _json(ctx, json):
        print(render(checks))
        return
    for check in checks:
        print(json_lib.dumps({"status": "ok" if check.ok else "warn", "name": check.name, "detail": check.detail}))
