"""`cast hooks`: the hooks a run here would use, where each comes from and whether it runs;
`cast hooks approve` / `revoke` for the project's own (its `.cast/config.toml` `[[hooks]]`), which
run only in a trusted workspace and once approved, pinned by a hash of what they are."""

from __future__ import annotations

import json as json_lib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cast.cli_lists import _json, _rows, words_only
from cast.exits import EXIT_USAGE
from cast.text import echo, terminal_safe

if TYPE_CHECKING:
    from cast.hooks.config import Hook

JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]


def register(app: typer.Typer) -> None:
    app.command(short_help="Hooks and whether each runs; approve, revoke a project's.")(hooks)


def hooks(
    ctx: typer.Context,
    action: Annotated[str | None, typer.Argument(metavar="approve|revoke", help="Approve or revoke the project's hooks.")] = None,
    places: Annotated[
        list[int] | None,
        typer.Argument(metavar="N", help="Their places in .cast/config.toml's [[hooks]] (from 0; default: all)."),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """List the hooks of your config and the workspace's; approve or revoke the workspace's own."""
    from cast import pins  # deferred: keeps cast.pins (4 modules) off cast plan --help
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.hooks import project  # deferred: keeps cast.hooks.project (16 modules) off cast plan --help
    from cast.hooks.config import PROJECT, declared  # deferred: keeps cast.hooks.config (13 modules) off cast plan --help
    from cast.trust import is_trusted  # deferred: keeps cast.trust (12 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    root = Workspace.discover().root
    try:
        found = declared(root)
        trusted = is_trusted(root)
        if action is not None:
            words_only(ctx, json, f"cast hooks {action}")
            return _change(root, action, [h for h in found if h.source == PROJECT], places or [], trusted)
        rows = [[hook.name, hook.event, hook.matcher, hook.command, project.status(root, hook, trusted)] for hook in found]
    except (ConfigError, pins.PinsError) as exc:
        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        raise typer.Exit(EXIT_USAGE) from None
    if _json(ctx, json):
        for row in rows:
            print(json_lib.dumps(dict(zip(("hook", "event", "matcher", "command", "status"), row, strict=True))))
    elif not rows:
        echo("no hooks: add [[hooks]] to ~/.config/cast/config.toml (event, matcher, command, timeout)")
    else:
        _rows(["HOOK", "EVENT", "MATCHER", "COMMAND", "STATUS"], [[" ".join(cell.split()) for cell in row] for row in rows])


def _change(root: Path, action: str, ours: list[Hook], places: list[int], trusted: bool) -> None:
    from cast import pins  # deferred: keeps cast.pins (4 modules) off cast plan --help
    from cast.hooks import project  # deferred: keeps cast.hooks.project (16 modules) off cast plan --help

    if action not in ("approve", "revoke"):
        sys.stderr.write("cast: usage: cast hooks [approve|revoke] [N ...]\n")
        raise typer.Exit(EXIT_USAGE)
    by_place = {hook.index: hook for hook in ours}
    unknown = [n for n in places if n not in by_place]
    if unknown:
        sys.stderr.write(f"cast: .cast/config.toml has no hooks[{unknown[0]}] (it declares {len(ours)})\n")
        raise typer.Exit(EXIT_USAGE)
    chosen = [by_place[n] for n in places] if places else ours
    if not chosen:
        echo("this workspace's .cast/config.toml declares no hooks")
        return
    for hook in chosen:
        if action == "approve":
            project.approve(root, hook)
            echo(f"approved {hook.name}: {hook.label()}")
        elif pins.revoke(root, project.KIND, hook.name):
            echo(f"revoked {hook.name}: it no longer runs")
    if action == "approve" and not trusted:
        echo("they run only once you trust this workspace (cast trust)")
