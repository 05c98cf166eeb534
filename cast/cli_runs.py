"""The two commands that run the model, `cast plan` and `cast execute`, as plain functions that
return an exit code. They know no CLI framework: typer's commands in cli.py parse into them, and so
does argv_runs.py, which reads their plain command lines without typer so that the first request is
not kept waiting by a CLI framework's import and its option coercion."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cast.cli_fail import fail
from cast.exits import EXIT_USAGE
from cast.text import echo, table, terminal_safe


def plan_command(
    task: str | None,
    model: str | None = None,
    max_steps: int | None = None,
    json: bool = False,
    interactive: bool = False,
    answers: str | None = None,
) -> int:
    """Explore the repository read-only and write a plan with a checklist."""
    check_answers(answers, json)
    if task is not None and not task.strip():
        raise fail('the task is blank: say what to plan, e.g. cast plan "add a div function"')
    if not task or interactive:
        if not task and not interactive_terminal():
            raise fail('give a task: cast plan "what to do" (without one, cast opens the REPL in a terminal)')
        return repl(model, max_steps, "plan", task)
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.models.base import ModelError  # deferred: keeps cast.models.base off cast plan --help
    from cast.runs import Options, plan_run  # deferred: keeps cast.runs (103 modules) off cast plan --help
    from cast.ui.oneshot import approver_for, show_outcome  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help
    from cast.ui.trusting import ask_here as ask_trust  # deferred: keeps cast.ui.trusting (20 modules) off cast plan --help

    try:
        ask_trust(json, answers=answers)
        run = plan_run(task, Options(model=model, max_steps=max_steps, json=json, approver=approver_for(json, answers)))
    except (ConfigError, ModelError) as exc:
        raise fail(str(exc), getattr(exc, "exit_code", EXIT_USAGE)) from None
    except OSError as exc:  # a full disk, a read-only state dir: said in one line, never a traceback
        raise cannot_start(exc) from None
    drive(json, lambda handle: run.turn(task, handle))
    outcome = run.close(plan_required=True)
    if outcome.status == "no plan":
        sys.stderr.write(f"cast: {terminal_safe(outcome.reason)}\n")
    show_outcome(run, outcome, json, show_report=False)
    if run.plan_path is not None and not json:
        _say_if_no_items(run.plan_path)
        echo(run.plan_path)
    return outcome.code


def execute_command(
    plan: str | None,
    yes: bool = False,
    revision: str | None = None,
    model: str | None = None,
    max_steps: int | None = None,
    json: bool = False,
    answers: str | None = None,
) -> int:
    """Carry out a plan's checklist, ticking items in the plan file as they are done."""
    check_answers(answers, json)
    if revision is not None:
        if plan is None:  # which plan REV pins is not cast's guess among several (nor the newest's)
            refuse_if_ambiguous()
        require_revision(plan, revision)
    if interactive_terminal() and not json:
        return repl(model, max_steps, "execute", plan, yes=yes)  # asks which plan if several are unfinished
    if plan is None:
        refuse_if_ambiguous()
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.models.base import ModelError  # deferred: keeps cast.models.base off cast plan --help
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help
    from cast.runs import Options, execute_run  # deferred: keeps cast.runs (103 modules) off cast plan --help
    from cast.ui.oneshot import approver_for, show_outcome  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help
    from cast.ui.trusting import ask_here as ask_trust  # deferred: keeps cast.ui.trusting (20 modules) off cast plan --help

    approver = approver_for(json, answers)
    try:
        ask_trust(json, answers=answers)
        run = execute_run(
            plan, Options(model=model, max_steps=max_steps, json=json, yes=yes, approver=approver, revision=revision)
        )
    except (ConfigError, ModelError, PlanError) as exc:
        raise fail(str(exc), getattr(exc, "exit_code", EXIT_USAGE)) from None
    except OSError as exc:  # a full disk, a read-only state dir: said in one line, never a traceback
        raise cannot_start(exc) from None
    board = run.tasks
    assert board is not None
    if not board.rows():
        raise fail(f"{board.plan.path} has no `- [ ]` checklist items to execute")
    if not run.has_work():
        done = run.close()  # the keys of every run's result: CI reads plan_revision here too
        if json:
            print_json([done.to_json()])
        else:
            echo(done.reason)
        return done.code
    drive(json, lambda handle: run.execute(handle))
    outcome = run.close()
    if outcome.status in ("incomplete", "plan missing", "tests failing"):
        sys.stderr.write(f"cast: {terminal_safe(outcome.reason)}\n")
    show_outcome(run, outcome, json, show_report=True)
    return outcome.code


def resume_command(session: str | None = None, model: str | None = None, max_steps: int | None = None, json: bool = False) -> int:
    """Reopen the REPL on an earlier session: its conversation, mode and plan."""
    from cast.session_list import list_sessions  # deferred: keeps cast.sessions (12 modules) off cast plan --help
    from cast.session_records import SessionError  # deferred: keeps cast.session_records (4 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

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
        return repl(model, max_steps, "plan", resume=session)
    except SessionError as exc:
        raise fail(str(exc)) from None


def check_answers(answers: str | None, json: bool) -> None:
    if answers is not None and answers != "stdin":
        raise fail(f"--answers reads from stdin only, not {answers!r}")
    if answers is not None and not json:
        raise fail("--answers stdin needs --json: the questions it answers are printed as JSON events")


def repl(
    model: str | None, max_steps: int | None, mode: str, task: str | None = None, resume: str | None = None, yes: bool = False
) -> int:
    from cast.options import Options  # deferred: keeps cast.options off cast --help
    from cast.repl.entry import start_repl  # deferred: keeps cast.repl off the other commands

    return start_repl(Options(model=model, max_steps=max_steps, yes=yes), mode, task, resume)


def interactive_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def cannot_start(exc: OSError) -> SystemExit:
    return fail(f"cannot start: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""), 1)


def drive(json: bool, start: Callable[[Callable[[Any], None]], Any]) -> Any:
    """Run `start(handle)` with the one-shot renderer: NDJSON events, or streamed text (with a
    running command's newest line, on a terminal)."""
    from cast.ui.oneshot import Printer, json_printer  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help

    return start(json_printer() if json else Printer())


def print_json(rows: list[dict[str, Any]]) -> None:
    import json as json_lib

    for row in rows:
        print(json_lib.dumps(row, default=str))


def _say_if_no_items(path: Path) -> None:
    """A plan without a `- [ ]` item is written, but `cast execute` would have nothing to run."""
    from cast.plans.checklist import parse  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help

    try:
        empty = not parse(path.read_bytes().decode("utf-8", "surrogateescape"))
    except Exception:  # noqa: BLE001 — a plan cast cannot read is reported where it is used
        return
    if empty:
        sys.stderr.write("cast: note: the plan has no `- [ ]` checklist items, so cast execute has nothing to run\n")


def refuse_if_ambiguous() -> None:
    """`cast execute` without a plan and nobody to ask: with more than one unfinished plan, which
    one is meant is not cast's guess; list them and exit 2."""
    from cast.plans.housekeeping import unfinished  # deferred: keeps cast.plans.housekeeping (8 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (11 modules) off cast plan --help

    found = unfinished(Workspace.discover().root)
    if len(found) < 2:
        return
    lines = [f"cast: {len(found)} plans have unticked items; name one: cast execute ID (cast plans archive ID puts one away)"]
    lines += table(["DONE", "SESSION", "TASK"], [[f"{i.done}/{i.total}", i.session, " ".join(i.task.split())] for i in found])
    sys.stderr.write(terminal_safe("\n".join(lines)) + "\n")
    raise SystemExit(EXIT_USAGE)


def require_revision(plan_ref: str | None, revision: str) -> None:
    """Refuse, with exit 2 and what changed item by item, unless the plan is at `revision`: CI
    executes exactly the plan that was reviewed. Ticks are not changes (they make no revision)."""
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help

    # deferred: keeps cast.plans.revisions (6 modules) off cast plan --help
    from cast.plans.revisions import MIN_PREFIX, Revisions, item_diff, revision_id
    from cast.plans.store import find_plan  # deferred: keeps cast.plans.store (7 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    if len(revision.strip()) < MIN_PREFIX:  # `--revision "$APPROVED_REVISION"` with the variable unset, say
        raise fail(
            f"--revision {revision!r} is not a revision id: give at least {MIN_PREFIX} characters "
            "of the approved one (cast plans --history ID lists them)"
        )
    root = Workspace.discover().root
    try:
        path = find_plan(root, plan_ref)
        data = path.read_bytes()
    except (PlanError, OSError) as exc:
        raise fail(str(exc)) from None
    now = revision_id(data)
    if len(revision) >= MIN_PREFIX and now.startswith(revision):
        return
    lines = [f"cast: {path} is at revision {now}, not {revision}: not executing a plan other than the one approved"]
    try:
        lines += ["items changed since then:", *(f"  {note}" for note in item_diff(Revisions(root, path).text(revision), data))]
    except PlanError as exc:
        lines.append(f"  (no item diff: {exc})")
    sys.stderr.write(terminal_safe("\n".join(lines)) + "\n")
    raise SystemExit(EXIT_USAGE)
