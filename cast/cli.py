"""The command line. Thin on purpose: parse, build a run, hand it to a front-end.

Heavy imports (the model SDK, tree-sitter, prompt-toolkit) happen inside the commands that need
them, so `cast --help` and `cast --version` stay fast.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cast.version import VERSION

app = typer.Typer(
    add_completion=False,
    rich_markup_mode=None,
    help="cast: a coding agent that plans read-only, then executes the plan's checklist.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

ModelOpt = Annotated[Optional[str], typer.Option("--model", help="Model id (env CAST_MODEL); script:PATH replays a scripted session.")]
StepsOpt = Annotated[Optional[int], typer.Option("--max-steps", min=1, help="Step ceiling for one run.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Emit NDJSON events and a final result object.")]

EXIT_USAGE = 2


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    sys.stderr.write(f"cast: {message}\n")
    return typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        print(f"cast {VERSION}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_callback(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


@app.command()
def plan(
    task: Annotated[Optional[str], typer.Argument(help="What to plan. Omitted: interactive planning.")] = None,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
    json: JsonOpt = False,
) -> None:
    """Explore the repository read-only and write a plan with a checklist."""
    from cast.config import ConfigError
    from cast.models.base import ModelError
    from cast.runs import Options, plan_run

    if not task:
        raise fail("give a task: cast plan \"what to do\"")
    try:
        run = plan_run(task, Options(model=model, max_steps=max_steps, json=json))
    except (ConfigError, ModelError) as exc:
        raise fail(str(exc), getattr(exc, "exit_code", EXIT_USAGE)) from None
    stopped = _drive(run, json)
    plan_path = run.ctx.services.get("plan_path")
    code = stopped.details.get("exit_code") or stopped.exit_code
    if plan_path is None:
        sys.stderr.write("cast: no plan was written\n")
        raise typer.Exit(code or 1)
    print(plan_path)
    raise typer.Exit(code)


@app.command("check-command")
def check_command(command: Annotated[str, typer.Argument(help="A bash command line.")]) -> None:
    """Say whether plan mode would run COMMAND: prints `allowed` or `blocked: <reason>`."""
    from cast.safety.bash_check import check

    verdict = check(command)
    print("allowed" if verdict.allowed else f"blocked: {verdict.reason}")
    raise typer.Exit(0 if verdict.allowed else 1)


def _drive(run, json: bool):
    from cast.agent.loop import drive
    from cast.ui.oneshot import Printer, json_printer

    handle = json_printer() if json else Printer()
    return drive(run.agent, run.agent.run(run.ctx.task), handle)


def main() -> None:
    app()
