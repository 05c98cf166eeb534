"""The plan's checklist as the executor works through it: the brief that starts a run, the task
list as events for the front-ends, and the plan file edited by the user mid-run.

Why the plan's text travels in a user turn and not in a system notice: it is the user's file, and
untrusted text never goes into a system message; the notice only says what happened.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cast.agent import events as ev
from cast.agent.gate import Halt
from cast.agent.loop import Agent
from cast.tools.tasks import TaskBoard


def brief(board: TaskBoard, root: Path) -> str:
    """The executor's first message: the plan as it is on disk now, and where to pick up."""
    plan_text = board.plan.path.read_text(encoding="utf-8", errors="replace")
    left = board.remaining()
    done = len(board.rows()) - len(left)
    where = (
        f"Items already ticked ({done}) are done: skip them. Start with item {left[0][0]}." if left else "Every item is ticked."
    )
    return (
        f"Execute this plan. Its checklist is your task list; task ids are item numbers.\n\n"
        f'<plan path="{os.path.relpath(board.plan.path, root)}">\n{plan_text}\n</plan>\n\n'
        f"Task list:\n{board.listing()}\n\n{where}"
    )


def task_event(board: TaskBoard) -> ev.TaskUpdate:
    """The task list as rows, each with the evidence its tick rested on (for `/tasks`)."""
    return ev.TaskUpdate(
        tuple(ev.Task(n, text, status, note, board.evidence_for(text)) for n, text, status, note in board.rows())
    )


def watch(board: TaskBoard) -> Callable[[Agent], Iterator[ev.Event]]:
    """An `after_tools` hook: re-reads the plan after every batch of tool calls, tells the model
    about edits the user made, and emits the task list whenever it changed."""
    seen = [-1]

    def after_tools(agent: Agent) -> Iterator[ev.Event]:
        changes = board.sync()
        if changes:
            edited = "; ".join(changes)
            agent.transcript.add_user(
                [
                    {
                        "type": "text",
                        "text": f"[cast: the user edited the plan file while you work: {edited}. The task list is now:\n"
                        f"{board.listing()}\nFollow the plan as it is now.]",
                    }
                ]
            )
            agent.transcript.notice(
                "[cast: the user edited the plan file while you work. What changed and the task list as "
                "it is now are in the last user turn; follow that list from now on.]"
            )
            yield ev.Notice("plan edited: " + edited)
        if board.version != seen[0]:
            seen[0] = board.version
            yield task_event(board)

    return after_tools


def halting(board: TaskBoard) -> Callable[[], Halt | None]:
    """The loop's stop condition (`Hooks.halt`) for an execute run: a changed plan the user did not
    approve stops the turn, and the calls left in it are not run."""

    def halt() -> Halt | None:
        reason = board.take_halt()
        return Halt(reason, "the changed plan was not approved") if reason else None

    return halt
