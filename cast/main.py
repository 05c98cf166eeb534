"""The `cast` entry point. Some invocations answer before typer is imported: `cast --version` (a
version check in a script or a shell prompt should cost what starting Python costs), `--help`, the
bare REPL (`cast`, `cast --model ID`, `cast --max-steps N`), whose first prompt should not wait for a
CLI framework, and the plain command lines of `cast plan` and `cast execute`, whose first request
should not either, and of `cast resume`, whose first prompt should not (argv.py reads them). Anything else, including a malformed option, goes to typer,
which owns the messages.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from cast.options import Options

MODEL_COMMANDS = {"plan", "execute", "resume"}  # what sends a request soon after it starts


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from cast.version import VERSION  # deferred: keeps cast.version off cast --help

        print(f"cast {VERSION}")
        return
    if argv in (["--help"], ["-h"]):
        from cast.usage import answer  # deferred: keeps the help text off cast --version

        if answer(argv):
            return
    from cast.state import StateError  # deferred: keeps cast.state (7 modules) off cast --version

    try:
        options = bare_repl(argv)
        if options is not None:
            from cast.repl.entry import start_repl  # deferred: cast --version loads cast.main alone

            sys.exit(start_repl(options))
        from cast.argv import read_command  # deferred: keeps cast.argv off cast --version

        command = read_command(argv)
        if command is not None or (argv and argv[0] in MODEL_COMMANDS and "--help" not in argv):
            preload(argv)
        if command is not None:
            sys.exit(run_command(command.name, command.arguments))
        from cast.cli import main as cli_main  # deferred: keeps typer off cast --version, --help and the bare REPL

        cli_main()
    except StateError as exc:  # cast's private state is unsafe to use: say which path and why, no traceback
        from cast.text import terminal_safe  # deferred: keeps cast.text off cast --version

        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        sys.exit(exc.exit_code)


def preload(argv: list[str]) -> None:
    """Start importing the API client in the background while cast reads its
    config, the model facts, AGENTS.md and the git baseline (git runs outside the GIL); not for a
    scripted model, which needs no client."""
    import os

    if os.environ.get("CAST_MODEL", "").startswith("script:") or any("script:" in arg for arg in argv):
        return
    import threading

    from cast.models.loading import preload as start  # deferred: keeps cast.models.loading (19 modules) off cast --version

    start()
    threading.Thread(target=probe_sandbox, name="cast-preload-sandbox", daemon=True).start()


def probe_sandbox() -> None:
    """Find the kernel sandbox now (a bubblewrap probe process, waited for outside the GIL), not when
    the first prompt is built; the answer is cached."""
    try:
        from cast.sandbox.policy import isolation  # deferred: keeps cast.sandbox.policy (21 modules) off cast --version

        isolation()
    except Exception:  # the run's own call reports it
        pass


def run_command(name: str, arguments: dict[str, object]) -> int:
    from cast import cli_runs  # deferred: keeps cast.cli_runs off cast --version

    commands: dict[str, Callable[..., int]] = {
        "plan": cli_runs.plan_command,
        "execute": cli_runs.execute_command,
        "resume": cli_runs.resume_command,
    }
    return commands[name](**arguments)


def bare_repl(argv: list[str]) -> Options | None:
    """Options for `cast [--model ID] [--max-steps N]`, or None when argv is anything else."""
    from cast.argv import read_bare_repl  # deferred: keeps cast.argv off cast --version
    from cast.options import Options  # deferred: keeps cast.options (12 modules) off cast --version

    values = read_bare_repl(argv)
    return None if values is None else Options(**values)
