"""The REPL's words for what the shared modules say in the command line's: an error from
`cast.plans` or `cast.sessions` names `cast plan`, `cast sessions`, `cast plans`, which at the
REPL's prompt are `/plan TASK` (or typing a task), `/resume` alone and `/plans`."""

from __future__ import annotations

REPL_WORDS = (
    ("run cast plan first", "describe a task to plan it first (or /plan TASK)"),
    ("(cast sessions lists them)", "(/resume alone lists the recent ones)"),
    ("(cast plans lists them all)", "(/plans lists them all)"),
)


def in_repl(message: str) -> str:
    """`message` with the command line's advice said as the REPL's."""
    for cli, repl in REPL_WORDS:
        message = message.replace(cli, repl)
    return message
