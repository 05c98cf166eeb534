"""`cast plan`, `cast execute` and `cast resume` command lines read without typer (cast/argv.py): every line read
there is read the same way by typer, the plain lines are read there, and the rest goes to typer."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from cast import cli_runs
from cast.argv import read_command

READ_HERE = [
    ["plan", "add a div function"],
    ["plan", ""],
    ["plan"],
    ["plan", "--json", "task"],
    ["plan", "task", "--json", "--answers", "stdin"],
    ["plan", "task", "--answers=stdin", "--json"],
    ["plan", "-i", "task"],
    ["plan", "--interactive", "task", "--model", "claude-opus-5-5"],
    ["plan", "task", "--max-steps", "12"],
    ["plan", "task", "--max-steps=3", "--model=script:demo.jsonl"],
    ["plan", "--answers", "a file", "task"],
    ["--model", "script:a.jsonl", "plan", "task"],
    ["--model", "outer", "plan", "task", "--model", "inner"],
    ["--max-steps", "4", "--json", "plan", "task"],
    ["--json", "plan", "task", "--max-steps", "9"],
    ["execute"],
    ["execute", "20261201-120000-add"],
    ["execute", ".cast/plans/x/plan.md", "--yes"],
    ["execute", "-y", "--revision", "abcdef12", "plan-id"],
    ["execute", "--revision=abcdef12", "--json", "--answers", "stdin"],
    ["--model", "m", "execute", "--max-steps", "2", "p"],
    ["resume"],
    ["resume", "20261201-120000-add"],
    ["resume", "--model", "claude-opus-5-5", "20261201-120000-add"],
    ["--max-steps", "5", "resume", "--max-steps=7"],
    ["--json", "resume"],  # read as typer reads it; the command then says why it will not
]

FOR_TYPER = [
    [],
    ["plan", "--help"],
    ["plan", "-h", "task"],
    ["--help", "plan"],
    ["plan", "--", "-task"],
    ["plan", "-"],
    ["plan", "one", "two"],
    ["plan", "task", "--json", "--json"],
    ["plan", "task", "--model", "a", "--model", "b"],
    ["plan", "task", "--model"],
    ["plan", "task", "--model", "--json"],
    ["plan", "task", "--model="],
    ["execute", "--revision", ""],  # typer hands the blank on, and the command names what is wrong
    ["plan", "task", "--max-steps", "0"],
    ["plan", "task", "--max-steps", "two"],
    ["plan", "task", "--max-steps", "+3"],
    ["plan", "task", "--max-steps", "٣"],
    ["plan", "task", "--json=1"],
    ["plan", "task", "--yes"],
    ["plan", "task", "--revision", "abc"],
    ["plan", "task", "--unknown"],
    ["plan", "task", "-x"],
    ["execute", "-iy"],
    ["execute", "-yy"],
    ["execute", "--interactive"],
    ["--yes", "execute"],
    ["--version", "plan", "task"],
    ["--model", "a", "--model", "b", "plan", "task"],
    ["resume", "--json"],
    ["resume", "-y"],
    ["resume", "one", "two"],
    ["resume", "--", "-x"],
    ["plans"],
    ["verify", "x"],
    ["Plan", "task"],
]


def typer_reads(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[str, dict[str, object]] | None:
    """What typer's commands hand to cli_runs for `argv` (None: it refused the line or ran none)."""
    from cast.cli import app  # deferred: typer is what is compared against

    seen: list[tuple[str, dict[str, object]]] = []
    for name in ("plan_command", "execute_command", "resume_command"):
        real = getattr(cli_runs, name)  # before patching: the signature the recorder binds to

        def record(*args: object, _name: str = name, _real: object = real, **kwargs: object) -> int:
            bound = inspect.signature(_real).bind(*args, **kwargs)  # type: ignore[arg-type]
            bound.apply_defaults()
            seen.append((_name.removesuffix("_command"), dict(bound.arguments)))
            return 0

        monkeypatch.setattr(cli_runs, name, record)
    done = CliRunner().invoke(app, argv)
    return seen[0] if seen and done.exit_code == 0 else None


@pytest.mark.parametrize("argv", READ_HERE, ids=" ".join)
def test_a_plain_line_is_read_without_typer_as_typer_reads_it(argv, monkeypatch):
    command = read_command(argv)
    assert command is not None, argv
    function = getattr(cli_runs, f"{command.name}_command")
    bound = inspect.signature(function).bind(**command.arguments)
    bound.apply_defaults()
    assert typer_reads(argv, monkeypatch) == (command.name, dict(bound.arguments))


@pytest.mark.parametrize("argv", FOR_TYPER, ids=lambda argv: " ".join(argv) or "(none)")
def test_any_other_line_goes_to_typer(argv):
    assert read_command(argv) is None


def test_what_typer_refuses_is_never_read_here(monkeypatch):
    """The other direction of the comparison: a line typer refuses or reads as something else
    must not run a command here."""
    for argv in FOR_TYPER:
        if typer_reads(argv, monkeypatch) is None:
            assert read_command(argv) is None, argv


def without_typer(tmp_path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`cast ARGV` in a new git repository with no API key; its stderr ends with TYPER=<whether
    typer was ever imported>."""
    probe = (
        "import sys, runpy, atexit\n"
        "atexit.register(lambda: sys.stderr.write('TYPER=' + str('typer' in sys.modules)))\n"
        f"sys.argv = ['cast', *{list(argv)!r}]\n"
        "runpy.run_module('cast', run_name='__main__')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CAST_"))}
    env.update(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env)


def test_cast_plan_reaches_its_run_without_the_cli_framework(tmp_path):
    """The one-shot plan reaches building its run (here: refused for want of an API key) with no
    typer imported: its import and option coercion would sit before the first request."""
    done = without_typer(tmp_path, "plan", "add a div function")
    assert done.returncode == 2 and "ANTHROPIC_API_KEY" in done.stderr, done.stderr
    assert "TYPER=False" in done.stderr, done.stderr


def test_cast_resume_answers_without_the_cli_framework(tmp_path):
    """`cast resume` opens the REPL, whose first prompt should not wait for typer either; with no
    session to resume it says so, with typer never imported."""
    done = without_typer(tmp_path, "resume")
    assert done.returncode == 2 and "no sessions to resume" in done.stderr, done.stderr
    assert "TYPER=False" in done.stderr, done.stderr
