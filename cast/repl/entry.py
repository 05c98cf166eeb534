"""How the REPL starts from the command line (`cast`, `cast --model ID`, `cast resume`): a too-broad
workspace is refused before the first prompt, and a configuration error is said as a usage error.
Both entry points (cast/main.py without typer, cast/cli.py with it) call this; it imports only what
`cast --version` may also load until it is called."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from cast.config import ConfigError
from cast.exits import EXIT_USAGE
from cast.repl.app import run_repl
from cast.workspace import refuse_broad

if TYPE_CHECKING:
    from cast.options import Options


def start_repl(options: Options, mode: str = "plan", task: str | None = None, resume: str | None = None) -> int:
    """The REPL's exit status; a configuration error is reported like any usage error."""

    try:
        refuse_broad(options.cwd)  # before the first prompt, not at the first task
        return run_repl(options, mode, task, resume)
    except ConfigError as exc:
        from cast.text import terminal_safe  # deferred: keeps cast.text off cast --version

        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        return EXIT_USAGE
