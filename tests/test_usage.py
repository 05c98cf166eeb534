"""`cast --help` without typer (cast/usage.py) prints exactly what typer prints, and typer still
answers where the stored text would not be its text (a narrow terminal)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer._click.utils import _detect_program_name

from cast import usage

PROBE = (
    "import sys, runpy\n"
    "sys.argv = ['cast', '{flag}']\n"
    "try:\n"
    "    runpy.run_module('cast', run_name='__main__')\n"
    "finally:\n"
    "    sys.stderr.write('TYPER=' + str('typer' in sys.modules))\n"
)


def typer_help(columns: int, prog: str) -> str:
    return usage.generated(columns, prog)


def test_the_stored_text_is_what_typer_prints_today():
    assert usage.TEXT == usage.generated(), "cast/cli.py's help changed: run python3 -m cast.usage --write"


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("columns", [80, 200])
def test_cast_help_on_a_wide_terminal_is_typers_text_without_typer(flag, columns, tmp_path):
    env = {**__import__("os").environ, "COLUMNS": str(columns)}
    done = subprocess.run([sys.executable, "-c", PROBE.format(flag=flag)], capture_output=True, text=True, env=env, timeout=60)
    assert done.stderr.endswith("TYPER=False") and done.returncode == 0
    assert done.stdout == typer_help(columns, "cast") and "Commands:" in done.stdout


def test_a_narrow_terminal_gets_typers_own_wrapping():
    env = {**__import__("os").environ, "COLUMNS": "60"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(flag="--help")], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.stderr.endswith("TYPER=True")
    assert done.stdout == typer_help(60, "cast") != typer_help(100, "cast")


def test_the_program_name_is_clicks(monkeypatch):
    main = type(sys)("__main__")
    for package, argv0 in ((None, "/usr/bin/cast"), ("cast", "/x/cast/__main__.py"), ("", "/x/cast.pyz")):
        main.__package__ = package
        monkeypatch.setitem(sys.modules, "__main__", main)
        monkeypatch.setattr(sys, "argv", [argv0, "--help"])
        assert usage.program_name() == _detect_program_name(), (package, argv0)


def test_write_regenerates_the_text(tmp_path):
    copy = tmp_path / "usage.py"
    source = Path(usage.__file__).read_text()
    copy.write_text(source.replace(usage.TEXT, "stale help\n"))
    usage.write(str(copy))
    assert copy.read_text() == source and shutil.which("true")


@pytest.mark.parametrize("columns", [80, 60])
def test_every_command_is_summed_up_whole_not_cut_short(columns):
    """A newcomer's first `cast --help` lists each command with a whole phrase (click cuts a
    long docstring at the column's width and ends it with "...")."""
    entries: list[str] = []
    for line in typer_help(columns, "cast").split("Commands:\n")[1].splitlines():
        if line.startswith("   "):  # a wrapped summary's next line
            entries[-1] += " " + line.strip()
        else:
            entries.append(line.strip())
    assert [entry.split()[0] for entry in entries] == listed_commands(), entries
    assert all(entry.endswith(".") and not entry.endswith("...") for entry in entries), entries


def listed_commands() -> list[str]:
    """The commands `cast --help` must list: every command the app registers and does not hide."""
    import typer.main

    from cast.cli import app

    group = typer.main.get_command(app)
    return [name for name, command in group.commands.items() if not command.hidden]
