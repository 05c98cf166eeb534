"""The questions a front-end asks before a run is built, the trust question and then each of a
trusted workspace's project hooks not yet approved: on the terminal, or, with `--json --answers
stdin`, as `asked` events a program answers with one JSON line each. Either way they are held for
the first run's session (`agent.asking`). `cast.trust` and `cast.hooks.project` keep the decisions
and know nothing of terminals; this is where the questions meet the user.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from cast.agent.asking import Announced, noted
from cast.hooks.project import HookRequest, ask_pending
from cast.trust import TrustRequest, settle
from cast.workspace import Workspace


def terminal(request: TrustRequest | HookRequest) -> bool | None:
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


def by_program() -> Callable[[TrustRequest | HookRequest], bool | None]:
    """Each question as an `asked` event on stdout, its answer a JSON line on stdin. Only a yes
    is kept: anything else leaves the question for next time, and this run trusts (or runs) nothing."""
    from cast.ui.answers import StdinAnswers  # deferred: keeps cast.ui.answers off the REPL's first prompt
    from cast.ui.oneshot import json_printer  # deferred: keeps cast.ui.oneshot (4 modules) off the REPL's first prompt

    questions = Announced(StdinAnswers())
    questions.post = json_printer()

    def ask(request: TrustRequest | HookRequest) -> bool | None:
        return True if questions.put(request).approved else None

    return ask


def ask_here(skip: bool = False, cwd: Path | None = None, answers: str | None = None) -> None:
    """Before a run is built: the question on a terminal (not with --json: `skip`), or to the
    program answering on stdin (`answers`)."""

    if answers == "stdin":
        root, program = Workspace.discover(cwd).root, by_program()
        settle(root, program)
        ask_pending(root, program)  # the project's hooks, once trusted: each a question of its own
        return
    if skip or not sys.stdin.isatty():  # nobody to ask: no workspace to find (git's answer costs a process)
        return
    root = Workspace.discover(cwd).root
    settle(root, noted(terminal))  # the answer is in the session of the run that follows too

    ask_pending(root, noted(terminal))  # the project's hooks, once trusted: each approved or not, pinned by hash
