"""The command line. Thin on purpose: parse, build a run, hand it to a front-end. Heavy imports (the
model SDK, tree-sitter, prompt-toolkit) happen inside the commands, so `cast --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

from cast import cli_contract, cli_hooks, cli_lists, cli_mcp, cli_runs, cli_safety, cli_skills, cli_status, cli_undo
from cast.version import VERSION

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_show_locals=False,  # a bug report must not print the API key held in a local
    rich_markup_mode=None,
    help="cast: a coding agent that plans read-only, then executes the plan's checklist.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

ModelOpt = Annotated[
    str | None, typer.Option("--model", metavar="ID", help="Model id (env CAST_MODEL); script:PATH replays a scripted session.")
]
StepsOpt = Annotated[int | None, typer.Option("--max-steps", min=1, metavar="N", help="Step ceiling for one run.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Emit NDJSON events and a final result object.")]
AnswersOpt = Annotated[
    str | None,
    typer.Option("--answers", metavar="FROM", help="With --json: read each question's answer as a JSON line from FROM (stdin)."),
]


def _version(value: bool) -> None:
    if value:
        print(f"cast {VERSION}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main_callback(
    ctx: typer.Context,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
    json: Annotated[
        bool, typer.Option("--json", help="JSON for the command that follows: events and a result, or objects.")
    ] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")] = False,
) -> None:
    """Common options may come before the command (`cast --model script:demo.jsonl plan ...`)."""
    ctx.obj = {"model": model, "max_steps": max_steps, "json": json}
    if ctx.invoked_subcommand is None:
        raise typer.Exit(cli_runs.repl(model, max_steps, "plan"))


def _common(ctx: typer.Context, model: str | None, max_steps: int | None, json: bool) -> tuple[str | None, int | None, bool]:
    """Options given after the command win over the same options given before it."""
    outer = ctx.obj or {}
    return model or outer.get("model"), max_steps or outer.get("max_steps"), json or bool(outer.get("json"))


@app.command(short_help="Explore read-only, then write a plan with a checklist.")
def plan(
    ctx: typer.Context,
    task: Annotated[str | None, typer.Argument(metavar="TASK", help="What to plan. Omitted: interactive planning.")] = None,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
    json: JsonOpt = False,
    interactive: Annotated[bool, typer.Option("-i", "--interactive", help="Continue in the REPL after planning.")] = False,
    answers: AnswersOpt = None,
) -> None:
    """Explore the repository read-only and write a plan with a checklist."""
    model, max_steps, json = _common(ctx, model, max_steps, json)
    raise typer.Exit(cli_runs.plan_command(task, model, max_steps, json, interactive, answers))


@app.command(short_help="Work through a plan's checklist, ticking its items.")
def execute(
    ctx: typer.Context,
    plan: Annotated[
        str | None,
        typer.Argument(
            metavar="PLAN",
            help="Plan file path or session id. Omitted: the one plan with unticked items (several: asked in a terminal).",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve every command except the catastrophic deny list.")] = False,
    revision: Annotated[
        str | None, typer.Option("--revision", metavar="REV", help="Refuse (exit 2) unless the plan is at REV.")
    ] = None,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
    json: JsonOpt = False,
    answers: AnswersOpt = None,
) -> None:
    """Carry out a plan's checklist, ticking items in the plan file as they are done."""
    model, max_steps, json = _common(ctx, model, max_steps, json)
    raise typer.Exit(cli_runs.execute_command(plan, yes, revision, model, max_steps, json, answers))


@app.command(short_help="Reopen an earlier session in the REPL.")
def resume(
    ctx: typer.Context,
    session: Annotated[str | None, typer.Argument(metavar="SESSION", help="Session id. Omitted: the newest session.")] = None,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
) -> None:
    """Reopen the REPL on an earlier session: its conversation, mode and plan."""
    model, max_steps, json = _common(ctx, model, max_steps, False)
    raise typer.Exit(cli_runs.resume_command(session, model, max_steps, json))


cli_undo.register(app)  # cast undo, cast redo, cast diff
cli_status.register(app)  # cast checkpoints, cast doctor: here, to keep their place in --help
cli_safety.register(app)  # cast trust, cast check-command


cli_contract.register(app)  # cast verify
cli_lists.register(app)  # cast plans, cast sessions
cli_skills.register(app)  # cast skills
cli_hooks.register(app)  # cast hooks
cli_mcp.register(app)  # cast mcp


def main() -> None:
    app()
