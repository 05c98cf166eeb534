"""The trust question, asked by a front-end before a run is built: on the terminal, or, with
`--json --answers stdin`, as an `asked` event a program answers with one JSON line. `cast.trust`
keeps the decision and knows nothing of terminals; this is where the question meets the user.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from cast.agent.asking import Announced, noted
from cast.hooks.project import ask_pending
from cast.trust import TrustRequest, settle
from cast.workspace import Workspace


def terminal(request: TrustRequest) -> bool | None:
    """Yes, no (anything else typed, or Enter), or None when the user left it (Ctrl+C, end of input)."""
    return terminal_text(request.question)


def terminal_text(question: str) -> bool | None:
    """A yes/no question on the terminal, said as `question`."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        return input().strip().lower() in ("y", "yes")
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\n")
        return None


def by_program() -> Callable[[TrustRequest], bool | None]:
    """The question as an `asked` event on stdout, its answer a JSON line on stdin. Only a yes
    is kept: anything else leaves the question for next time, and this run trusts nothing."""
    from cast.ui.answers import StdinAnswers  # deferred: keeps cast.ui.answers off the REPL's first prompt
    from cast.ui.oneshot import json_printer  # deferred: keeps cast.ui.oneshot (4 modules) off the REPL's first prompt

    questions = Announced(StdinAnswers())
    questions.post = json_printer()

    def ask(request: TrustRequest) -> bool | None:
        return True if questions.put(request).approved else None

    return ask


def ask_here(skip: bool = False, cwd: Path | None = None, answers: str | None = None) -> None:
    """Before a run is built: the question on a terminal (not with --json: `skip`), or to the
    program answering on stdin (`answers`)."""

    root = Workspace.discover(cwd).root
    if answers == "stdin":
        settle(root, by_program())
        return
    if skip or not sys.stdin.isatty():
        return

    settle(root, noted(terminal))  # the answer is in the session of the run that follows too

    ask_pending(root, terminal_text)  # the project's hooks, once trusted: each approved or not, pinned by hash
