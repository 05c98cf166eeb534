"""The REPL without a terminal: one task per input line, plain text out, nobody to approve.

Used when stdin or stdout is not a terminal (a pipe, a script). Same runs, same events, same
renderer as the interactive REPL, with no prompt and no live area."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from cast.config import ConfigError
from cast.exits import EXIT_USAGE
from cast.models.base import ModelError
from cast.plans.checklist import PlanError
from cast.repl.state import ReplState
from cast.session_records import SessionError
from cast.text import terminal_safe
from cast.ui.console import render_text
from cast.ui.render import Renderer

if TYPE_CHECKING:
    from cast.options import Options

NO_TASK = (
    'no task given: without a terminal, cast reads tasks from standard input, one per line (echo "add a div function" | cast); '
    "run it in a terminal for the REPL"
)


def run_plain(
    options: Options,
    mode: str = "plan",
    task: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    resume: str | None = None,
) -> int:
    from rich.console import RenderableType
    from rich.text import Text

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout

    def commit(renderable: RenderableType) -> None:
        stdout.write(render_text(renderable, 100, terminal=False))
        stdout.flush()

    state = ReplState(options, mode)
    renderer = Renderer(commit, plain=True)

    def handle(event: Any) -> None:
        renderer.handle(event)

    def turn(text: str) -> int:
        """A line of input: a turn of the run it belongs to, ended as every turn ends (an execute
        turn with its closing report)."""
        run = state.ensure_run(text)
        run.turn(text, handle)
        outcome = run.outcome()
        if run.executing and outcome.report is not None:
            commit(Text("\n" + outcome.report.render_text()))
        return outcome.code

    status = 0
    try:
        if resume:
            state.resume(resume)
        elif mode == "execute":
            run = state.execute(task)
            if run.has_work():
                run.execute(handle)
                outcome = run.outcome()
                status = outcome.code
                if outcome.report is not None:
                    commit(Text("\n" + outcome.report.render_text()))
            elif run.tasks is not None:
                commit(Text(f"every item of {run.tasks.plan.path} is ticked; nothing to do"))
            task = None
        if task:
            status = turn(task)
        asked = bool(task or mode == "execute")
        for text in nonblank(stdin):
            asked = True
            if text in ("/exit", "/quit"):
                break
            status = turn(text)
        if not asked:  # a resumed session goes on only with a message, as at the REPL's prompt
            sys.stderr.write(f"cast: {no_message(resume) if resume else NO_TASK}\n")
            return EXIT_USAGE
    except Exception as exc:
        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        return exit_code(exc)
    finally:
        renderer.finish()
        state.close()  # the session's final cost, whatever happened
    return status


def no_message(session: str) -> str:
    session = terminal_safe(session)
    return (
        f"no message to continue {session} with: without a terminal, cast resume reads messages from standard input, "
        f'one per line (echo "go on" | cast resume {session}); run it in a terminal for the REPL'
    )


def nonblank(stdin: TextIO) -> Iterator[str]:
    for line in stdin:
        if line.strip():
            yield line.strip()


def exit_code(exc: BaseException) -> int:
    """The exit status for a failure outside the loop: the model's own code (2 for a missing key or
    a bad script), 2 for a usage or configuration error, 1 for anything else."""

    if isinstance(exc, ModelError):
        return exc.exit_code
    if isinstance(exc, (ConfigError, SessionError, PlanError)):
        return EXIT_USAGE
    return 1
