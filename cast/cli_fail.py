"""How a command refuses its input: one line on stderr (text only: it may quote what the user or a
repository wrote) and the exit code, as a typer.Exit to raise. Every cli_*.py module uses it."""

from __future__ import annotations

import sys

import typer

from cast.exits import EXIT_USAGE
from cast.text import terminal_safe


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    sys.stderr.write(f"cast: {terminal_safe(message)}\n")
    return typer.Exit(code)
