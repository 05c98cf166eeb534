"""The REPL without a terminal: one task per input line, plain text out, nobody to approve.

Used when stdin or stdout is not a terminal (a pipe, a script). Same runs, same events, same
renderer as the interactive REPL, with no prompt and no live area."""
from __future__ import annotations

import sys
from typing import Any, TextIO

from cast.agent.loop import drive


def run_plain(options: Any, mode: str = "plan", task: str | None = None,
              stdin: TextIO | None = None, stdout: TextIO | None = None, resume: str | None = None) -> int:
    from rich.console import RenderableType

    from cast.repl.state import ReplState
    from cast.ui.console import render_text
    from cast.ui.render import Renderer

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout

    def commit(renderable: RenderableType) -> None:
        stdout.write(render_text(renderable, 100, terminal=False))
        stdout.flush()

    state = ReplState(options, mode)
    renderer = Renderer(commit, plain=True)

    def handle(event: Any) -> None:
        state.observe(event)
        renderer.handle(event)

    status = 0
    try:
        if resume:
            state.resume(resume)
        elif mode == "execute":
            from cast import runs

            run = state.execute(task)
            board = run.tasks
            if board is not None and board.remaining():
                first = runs.task_event(board)
                handle(first)
                status = drive(run.agent, run.agent.run(runs.execute_brief(run)), handle).exit_code
            task = None
        if task:
            run = state.ensure_run(task)
            status = drive(run.agent, run.agent.run(task), handle).exit_code
        for line in stdin:
            text = line.strip()
            if not text:
                continue
            if text in ("/exit", "/quit"):
                break
            run = state.ensure_run(text)
            status = drive(run.agent, run.agent.run(text), handle).exit_code
    except Exception as exc:
        sys.stderr.write(f"cast: {exc}\n")
        return 1
    finally:
        renderer.finish()
    return status
