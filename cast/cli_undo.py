"""`cast undo`, `cast redo` and `cast diff`: the checkpoint commands (their words and operations are
cast/checkpoints/commands.py's, shared with the REPL). With --json (here or before the command) each
prints one object (README: Commands): nothing is asked then, so a change needs --yes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer

from cast import cli_contract
from cast.cli_fail import fail
from cast.cli_lists import JsonOpt, _json
from cast.text import colored_diff, echo, terminal_safe

ItemArg = Annotated[int | None, typer.Argument(min=1, metavar="ITEM", help="Plan item number. Omitted: the last item touched.")]
PlanOpt = Annotated[
    str | None, typer.Option("--plan", metavar="PLAN", help="Plan file or session id. Omitted: the plan last executed.")
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Also restore files changed outside cast since the checkpoint.")]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first.")]


def register(app: typer.Typer) -> None:
    app.command(short_help="Put back the files before ITEM; untick it and later ones.")(undo)
    app.command(short_help="Reverse the last undo.")(redo)
    app.command(short_help="What an item or the last run changed; --plan: revisions.")(diff)


def _ask(question: str) -> bool:
    return typer.confirm(terminal_safe(question) + "?", default=False)


def _asker(as_json: bool) -> Callable[[str], bool] | None:
    """The terminal asks; a script (no terminal) or a program reading --json is never asked."""
    return _ask if sys.stdin.isatty() and sys.stdout.isatty() and not as_json else None


def undo(
    ctx: typer.Context,
    item: ItemArg = None,
    plan: PlanOpt = None,
    yes: YesOpt = False,
    force: ForceOpt = False,
    json: JsonOpt = False,
) -> None:
    """Restore the files to the checkpoint before ITEM and untick it and every later item."""
    from cast.checkpoints import commands  # deferred: keeps cast.checkpoints.commands (25 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    as_json = _json(ctx, json)
    root = Workspace.discover().root
    raise typer.Exit(commands.undo(root, item, plan, yes, force, echo, _asker(as_json), as_json=as_json))


def redo(ctx: typer.Context, yes: YesOpt = False, force: ForceOpt = False, json: JsonOpt = False) -> None:
    """Reverse the last undo: the files as they were before it, its items ticked again."""
    from cast.checkpoints import commands  # deferred: keeps cast.checkpoints.commands (25 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    as_json = _json(ctx, json)
    raise typer.Exit(commands.redo(Workspace.discover().root, yes, force, echo, _asker(as_json), as_json=as_json))


def diff(
    ctx: typer.Context,
    item: Annotated[
        str | None, typer.Argument(metavar="ITEM|REV", help="Plan item number (or, with --plan, a revision).")
    ] = None,
    rev: Annotated[str | None, typer.Argument(metavar="REV", help="With --plan: the revision to compare with.")] = None,
    plan: PlanOpt = None,
    json: JsonOpt = False,
) -> None:
    """What a plan item changed (checkpoint to tick), or the last run; with --plan and no item, the
    plan's revisions: item changes, then the text diff (REV [REV]; default: the one before, and now)."""
    from cast.checkpoints import commands  # deferred: keeps cast.checkpoints.commands (25 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    as_json = _json(ctx, json)
    if plan is not None and (item is None or not item.isdigit()):
        raise typer.Exit(cli_contract.revision_diff(plan, item, rev, as_json))
    if rev is not None:
        raise fail(f"cast diff takes one ITEM, not {item!r} and {rev!r}; to compare revisions: cast diff --plan ID REV REV")
    if item is not None and (not item.isdigit() or int(item) < 1):
        raise fail(f"{item!r} is not a plan item number (revisions need --plan ID)")
    number = int(item) if item else None
    show = colored_diff if sys.stdout.isatty() and not as_json else echo
    raise typer.Exit(commands.diff(Workspace.discover().root, number, plan, show, as_json=as_json))
