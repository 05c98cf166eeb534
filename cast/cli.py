"""The command line. Thin on purpose: parse, build a run, hand it to a front-end. Heavy imports (the
model SDK, tree-sitter, prompt-toolkit) happen inside the commands, so `cast --help` stays fast."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from cast import cli_contract, cli_hooks, cli_lists, cli_mcp, cli_safety, cli_skills, cli_status, cli_undo
from cast.cli_fail import fail
from cast.exits import EXIT_USAGE
from cast.options import Options
from cast.text import echo, terminal_safe  # what cast prints from outside itself is text only
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


def _answers(answers: str | None, json: bool) -> None:
    if answers is not None and answers != "stdin":
        raise fail(f"--answers reads from stdin only, not {answers!r}")
    if answers is not None and not json:
        raise fail("--answers stdin needs --json: the questions it answers are printed as JSON events")


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
        raise typer.Exit(_repl(model, max_steps, "plan"))


def _repl(
    model: str | None, max_steps: int | None, mode: str, task: str | None = None, resume: str | None = None, yes: bool = False
) -> int:
    from cast.repl.entry import start_repl  # deferred: keeps cast.repl off the other commands

    return start_repl(Options(model=model, max_steps=max_steps, yes=yes), mode, task, resume)


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


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
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.models.base import ModelError  # deferred: keeps cast.models.base off cast plan --help
    from cast.runs import Options, plan_run  # deferred: keeps cast.runs (103 modules) off cast plan --help
    from cast.ui.oneshot import approver_for, show_outcome  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help
    from cast.ui.trusting import ask_here as ask_trust  # deferred: keeps cast.ui.trusting (20 modules) off cast plan --help

    model, max_steps, json = _common(ctx, model, max_steps, json)
    _answers(answers, json)
    if task is not None and not task.strip():
        raise fail('the task is blank: say what to plan, e.g. cast plan "add a div function"')
    if not task or interactive:
        if not task and not _interactive():
            raise fail('give a task: cast plan "what to do" (without one, cast opens the REPL in a terminal)')
        raise typer.Exit(_repl(model, max_steps, "plan", task))
    try:
        ask_trust(json, answers=answers)
        run = plan_run(task, Options(model=model, max_steps=max_steps, json=json, approver=approver_for(json, answers)))
    except (ConfigError, ModelError) as exc:
        raise fail(str(exc), getattr(exc, "exit_code", EXIT_USAGE)) from None
    except OSError as exc:  # a full disk, a read-only state dir: said in one line, never a traceback
        raise fail(f"cannot start: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""), 1) from None
    _drive(json, lambda handle: run.turn(task, handle))
    outcome = run.close(plan_required=True)
    if outcome.status == "no plan":
        sys.stderr.write(f"cast: {terminal_safe(outcome.reason)}\n")
    show_outcome(run, outcome, json, show_report=False)
    if run.plan_path is not None and not json:
        _say_if_no_items(run.plan_path)
        echo(run.plan_path)
    raise typer.Exit(outcome.code)


def _say_if_no_items(path: Path) -> None:
    """A plan without a `- [ ]` item is written, but `cast execute` would have nothing to run."""
    from cast.plans.checklist import parse  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help

    try:
        empty = not parse(path.read_bytes().decode("utf-8", "surrogateescape"))
    except Exception:  # noqa: BLE001 — a plan cast cannot read is reported where it is used
        return
    if empty:
        sys.stderr.write("cast: note: the plan has no `- [ ]` checklist items, so cast execute has nothing to run\n")


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
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.models.base import ModelError  # deferred: keeps cast.models.base off cast plan --help
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help
    from cast.runs import Options, execute_run  # deferred: keeps cast.runs (103 modules) off cast plan --help
    from cast.ui.oneshot import approver_for, show_outcome  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help
    from cast.ui.trusting import ask_here as ask_trust  # deferred: keeps cast.ui.trusting (20 modules) off cast plan --help

    model, max_steps, json = _common(ctx, model, max_steps, json)
    _answers(answers, json)
    if revision is not None:
        if plan is None:  # which plan REV pins is not cast's guess among several (nor the newest's)
            cli_lists.refuse_if_ambiguous()
        cli_contract.require_revision(plan, revision)
    if _interactive() and not json:
        raise typer.Exit(_repl(model, max_steps, "execute", plan, yes=yes))  # asks which plan if several are unfinished
    if plan is None:
        cli_lists.refuse_if_ambiguous()
    approver = approver_for(json, answers)
    try:
        ask_trust(json, answers=answers)
        run = execute_run(
            plan, Options(model=model, max_steps=max_steps, json=json, yes=yes, approver=approver, revision=revision)
        )
    except (ConfigError, ModelError, PlanError) as exc:
        raise fail(str(exc), getattr(exc, "exit_code", EXIT_USAGE)) from None
    except OSError as exc:  # a full disk, a read-only state dir: said in one line, never a traceback
        raise fail(f"cannot start: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""), 1) from None
    board = run.tasks
    assert board is not None
    if not board.rows():
        raise fail(f"{board.plan.path} has no `- [ ]` checklist items to execute")
    if not run.has_work():
        done = run.close()  # the keys of every run's result: CI reads plan_revision here too
        if json:
            _print_json([done.to_json()])
        else:
            echo(done.reason)
        raise typer.Exit(done.code)
    _drive(json, lambda handle: run.execute(handle))
    outcome = run.close()
    if outcome.status in ("incomplete", "plan missing", "tests failing"):
        sys.stderr.write(f"cast: {terminal_safe(outcome.reason)}\n")
    show_outcome(run, outcome, json, show_report=True)
    raise typer.Exit(outcome.code)


def _print_json(rows: list[dict[str, Any]]) -> None:
    import json as json_lib

    for row in rows:
        print(json_lib.dumps(row, default=str))


@app.command(short_help="Reopen an earlier session in the REPL.")
def resume(
    ctx: typer.Context,
    session: Annotated[str | None, typer.Argument(metavar="SESSION", help="Session id. Omitted: the newest session.")] = None,
    model: ModelOpt = None,
    max_steps: StepsOpt = None,
) -> None:
    """Reopen the REPL on an earlier session: its conversation, mode and plan."""
    from cast.session_list import list_sessions  # deferred: keeps cast.sessions (12 modules) off cast plan --help
    from cast.session_records import SessionError  # deferred: keeps cast.session_records (4 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    model, max_steps, json = _common(ctx, model, max_steps, False)
    if json:  # said, never ignored: a program reading JSON would wait on a REPL
        raise fail("cast resume opens the REPL, which prints no JSON; for NDJSON events: cast execute --json [PLAN]")
    if session is not None and not session.strip():  # `cast resume "$SESSION"` with the variable unset
        raise fail("the session id is blank: cast resume ID, or cast resume alone for the newest (cast sessions lists them)")
    if session is None:
        found = list_sessions(Workspace.discover().root)
        if not found:
            raise fail("no sessions to resume in this workspace")
        session = found[0].id
    try:
        raise typer.Exit(_repl(model, max_steps, "plan", resume=session))
    except SessionError as exc:
        raise fail(str(exc)) from None


cli_undo.register(app)  # cast undo, cast redo, cast diff
cli_status.register(app)  # cast checkpoints, cast doctor: here, to keep their place in --help
cli_safety.register(app)  # cast trust, cast check-command


def _drive(json: bool, start: Callable[[Callable[[Any], None]], Any]) -> Any:
    """Run `start(handle)` with the one-shot renderer: NDJSON events, or streamed text (with a
    running command's newest line, on a terminal)."""
    from cast.ui.oneshot import Printer, json_printer  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help

    return start(json_printer() if json else Printer())


cli_contract.register(app)  # cast verify
cli_lists.register(app)  # cast plans, cast sessions
cli_skills.register(app)  # cast skills
cli_hooks.register(app)  # cast hooks
cli_mcp.register(app)  # cast mcp


def main() -> None:
    app()
