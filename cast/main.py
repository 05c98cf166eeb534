"""The `cast` entry point. `cast --version` answers before typer and rich are imported: a version
check in a script or a shell prompt should cost what starting Python costs, not a CLI framework."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from cast.version import VERSION

        print(f"cast {VERSION}")
        return
    from cast.cli import main as cli_main

    cli_main()
