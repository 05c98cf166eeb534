"""`cast trust` and `cast check-command`: whether this workspace's config may loosen security, and
whether the checker proves a command read-only. Words for people; with --json (here or before the
command) one object each (README: Commands)."""

from __future__ import annotations

import json as json_lib
from typing import Annotated

import typer

from cast.cli_fail import fail
from cast.cli_lists import JsonOpt, _json
from cast.text import echo


def register(app: typer.Typer) -> None:
    app.command(short_help="Let this workspace's .cast/config.toml loosen security.")(trust)
    app.command(
        "check-command",
        short_help="Print whether the checker proves COMMAND read-only.",
        context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    )(check_command)


def trust(
    ctx: typer.Context,
    revoke: Annotated[bool, typer.Option("--revoke", help="Stop trusting it: its config may only tighten.")] = False,
    json: JsonOpt = False,
) -> None:
    """Let this workspace's .cast/config.toml loosen security settings (sandbox, allow, models)."""
    from cast import trust as trusting  # deferred: keeps cast.trust (12 modules) off cast plan --help
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    try:
        changed = trusting.changed(Workspace.discover().root, not revoke)
    except ConfigError as exc:
        raise fail(str(exc)) from None
    if _json(ctx, json):
        print(json_lib.dumps(changed.to_json()))
    else:
        echo(changed.words())


def check_command(
    ctx: typer.Context,
    command: Annotated[
        list[str], typer.Argument(metavar="COMMAND", help="A bash command line: one quoted argument, or its words.")
    ],
    json: Annotated[bool, typer.Option("--json", help="One JSON object: command, allowed, reason.")] = False,
) -> None:
    """Say whether the checker proves COMMAND read-only: prints `allowed` or `blocked: <reason>` (plan
    mode also runs a blocked one, sandboxed and unverified, where `cast doctor` shows the strong sandbox)."""
    import shlex

    # deferred: keeps the checker off cast plan --help
    from cast.tools.shell import read_only_verdict  # without a kernel sandbox: the strict subset

    # `cast check-command ls -la` means the command `ls -la`, not an option of cast's; words the
    # shell already split are quoted back, so `grep 'a b' f` is checked as the shell gave it. An
    # option of cast's (--json) comes before the command's first word.
    from cast.workspace import Workspace  # deferred: keeps cast.workspace off cast plan --help

    root = Workspace.discover().root  # where cast runs commands: relative paths are read from there
    line = command[0] if len(command) == 1 else shlex.join(command)
    allowed, reason = read_only_verdict(line, root)
    if _json(ctx, json):
        print(json_lib.dumps({"command": line, "allowed": allowed, "reason": "" if allowed else reason}))
    else:
        echo("allowed" if allowed else f"blocked: {reason}")
    raise typer.Exit(0 if allowed else 1)
