"""`cast plans` and `cast sessions`: aligned tables with headers on a terminal, tab-separated rows
without a header when piped (for scripts), one JSON object per line with --json. `cast plans`
shows unfinished plans; `--all` every plan; `cast plans archive ID` puts one away."""

from __future__ import annotations

import json as json_lib
import os
import sys
from typing import Annotated

import typer

from cast import cli_contract
from cast.exits import EXIT_USAGE
from cast.text import echo, plural, table, terminal_safe

JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object per line.")]


def register(app: typer.Typer) -> None:
    app.command(short_help="Plans and their progress; --history ID; archive ID.")(plans)
    app.command(short_help="Past sessions, newest first.")(sessions)


def _rows(headers: list[str], rows: list[list[str]]) -> None:
    if sys.stdout.isatty():
        for line in table(headers, rows):
            echo(line)
    else:
        for row in rows:
            echo("\t".join(row))


def tabbed(headers: list[str], lines: list[str]) -> None:
    """Tab-separated lines shown as `_rows` shows rows (aligned under headers on a terminal), then
    the other lines as they are."""
    rows = [line.split("\t") for line in lines if "\t" in line]
    if rows:
        _rows(headers, rows)
    for line in lines:
        if "\t" not in line:
            echo(line)


def _json(ctx: typer.Context, json: bool) -> bool:
    return json or bool((ctx.obj or {}).get("json"))


def words_only(ctx: typer.Context, json: bool, what: str) -> None:
    """An action that prints words only refuses --json (exit 2, before it does anything): said,
    never ignored, so a program does not read words as if they were its JSON."""
    if _json(ctx, json):
        sys.stderr.write(terminal_safe(f"cast: {what} prints words only; --json is for the listing (nothing was changed)") + "\n")
        raise typer.Exit(EXIT_USAGE)


def plans(
    ctx: typer.Context,
    action: Annotated[str | None, typer.Argument(metavar="archive", help="`archive ID` puts plan ID away.")] = None,
    ref: Annotated[str | None, typer.Argument(metavar="ID", help="With archive: the plan (session id or path).")] = None,
    all: Annotated[bool, typer.Option("--all", help="Every plan, finished ones too.")] = False,
    json: JsonOpt = False,
    history: Annotated[str | None, typer.Option("--history", metavar="ID", help="The revisions of plan ID.")] = None,
) -> None:
    """List unfinished plans with their progress, newest first (--all: every plan)."""
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist off cast plan --help

    # deferred: keeps cast.plans.housekeeping (8 modules) off cast plan --help
    from cast.plans.housekeeping import ARCHIVED, archive, archived, unfinished
    from cast.plans.store import find_plan, list_plans  # deferred: keeps cast.plans.store (7 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (11 modules) off cast plan --help

    if history is not None:
        raise typer.Exit(cli_contract.history(history, _json(ctx, json)))
    root = Workspace.discover().root
    if action is not None:
        words_only(ctx, json, "cast plans archive")
        if action != "archive" or not ref:
            sys.stderr.write("cast: usage: cast plans [--all] | cast plans archive ID\n")
            raise typer.Exit(EXIT_USAGE)
        from cast.session_list import executing  # deferred: keeps cast.sessions (12 modules) off cast plan --help

        try:
            for other, pid in executing(root, find_plan(root, ref).resolve()):  # it would lose the plan it ticks
                raise PlanError(f"{ref} is being executed by another cast (process {pid}, session {other}); archive it after")
            moved = archive(root, ref)
        except PlanError as exc:
            sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
            raise typer.Exit(EXIT_USAGE) from None
        echo(f"archived {ref}: kept in {os.path.relpath(moved)}; cast plans and cast execute no longer show it")
        return
    found = list_plans(root) if all else unfinished(root)
    if _json(ctx, json):
        for i in found:
            row = {
                "session": i.session,
                "task": i.task,
                "done": i.done,
                "total": i.total,
                "path": str(i.path),
                "created": i.created,
            }
            print(json_lib.dumps(row, default=str))
        return
    if not found:
        every = list_plans(root) if not all else []
        put_away = len(archived(root))
        if every:
            print(f"no unfinished plans ({len(every)} finished: cast plans --all)")
        elif put_away:
            print(f"no plans listed: {plural(put_away, 'plan')} archived, kept in .cast/plans/{ARCHIVED}/")
        else:
            print('no plans yet: cast plan "what to do"')
        return
    if not sys.stdout.isatty():  # the columns scripts already read
        for i in found:
            echo(f"{i.done}/{i.total}\t{i.session}\t{' '.join(i.task.split())}\t{os.path.relpath(i.path)}")
        return
    rows = [[f"{i.done}/{i.total}", i.session, os.path.relpath(i.path), " ".join(i.task.split())] for i in found]
    _rows(["DONE", "SESSION", "PATH", "TASK"], rows)


def sessions(ctx: typer.Context, json: JsonOpt = False) -> None:
    """List sessions (transcripts kept in cast's state dir, outside the repository), newest first."""
    from dataclasses import asdict

    from cast.session_list import list_sessions  # deferred: keeps cast.sessions (12 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (11 modules) off cast plan --help

    found = list_sessions(Workspace.discover().root)
    if _json(ctx, json):
        for info in found:
            print(json_lib.dumps(asdict(info), default=str))
        return
    if not found:
        print("no sessions yet")
        return
    rows = [[i.id, i.mode, i.status, f"{i.steps} step{'' if i.steps == 1 else 's'}", " ".join(i.task.split())] for i in found]
    _rows(["SESSION", "MODE", "STATUS", "STEPS", "TASK"], rows)
