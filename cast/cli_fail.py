"""How a command refuses its input: one line on stderr (text only: it may quote what the user or a
repository wrote) and the exit code, as a SystemExit to raise. Every cli_*.py module uses it; it
needs no CLI framework, so the commands that run without typer (cli_runs.py) refuse the same way."""

from __future__ import annotations

import sys

from cast.exits import EXIT_USAGE
from cast.text import terminal_safe


def fail(message: str, code: int = EXIT_USAGE) -> SystemExit:
    sys.stderr.write(f"cast: {terminal_safe(message)}\n")
    return SystemExit(code)
