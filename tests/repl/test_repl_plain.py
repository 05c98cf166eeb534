"""The REPL without a terminal: its exit status says what went wrong, as the one-shot commands do
(2 for usage and configuration errors, the model's own code for a model failure), with one
`cast: <message>` line on stderr and no traceback."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from conftest import cast_env, write_script

from cast.runs import Options


def cast(*args: str, cwd, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cast", *args],
        cwd=cwd,
        env=cast_env(),
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_piped_task_without_an_api_key_is_a_usage_error(repo):
    done = cast(cwd=repo, stdin="hi\n")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("cast: ") and "ANTHROPIC_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr


def test_no_terminal_and_nothing_on_stdin_says_so_and_exits_2(repo):
    done = cast(cwd=repo)  # `cast </dev/null`, no API key: nothing to do is not a success
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("cast: no task given: without a terminal, cast reads tasks from standard input")


def test_blank_lines_are_no_task_with_a_usable_model_too(repo, tmp_path, capsys):
    code, out = plain(repo, f"script:{write_script(tmp_path / 's.jsonl', [])}", lines="\n  \n")
    assert code == 2 and out == "" and "cast: no task given" in capsys.readouterr().err


def test_resuming_an_unknown_session_without_a_terminal_is_a_usage_error(repo):
    done = cast("resume", "nope", cwd=repo)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("cast: ") and "Traceback" not in done.stderr


def plain(repo, model: str, mode: str = "plan", task: str | None = None, lines: str = "") -> tuple[int, str]:
    from cast.repl.plain import run_plain

    out = io.StringIO()
    code = run_plain(Options(model=model, cwd=repo), mode, task, stdin=io.StringIO(lines), stdout=out)
    return code, out.getvalue()


def test_a_bad_config_exits_2(repo, tmp_path, capsys):
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text("max_stepz = 3\n")
    code, _ = plain(repo, f"script:{write_script(tmp_path / 's.jsonl', [])}", lines="hi\n")
    assert code == 2 and "cast: " in capsys.readouterr().err


def test_an_unknown_plan_exits_2(repo, tmp_path, capsys):
    code, _ = plain(repo, f"script:{write_script(tmp_path / 's.jsonl', [])}", "execute", "no-such-plan")
    assert code == 2 and "cast: " in capsys.readouterr().err


def test_an_unreadable_script_exits_with_the_models_code(repo, tmp_path, capsys):
    code, _ = plain(repo, f"script:{tmp_path / 'missing.jsonl'}", lines="hi\n")
    assert code == 2 and "cannot read script" in capsys.readouterr().err


def test_a_model_failure_during_a_turn_keeps_its_code(repo, tmp_path, monkeypatch):
    from cast import runs
    from cast.models.base import ModelError

    class Refused:
        name = "refusing"
        spec = None

        def stream(self, request):
            raise ModelError("authentication failed (401)", exit_code=2)
            yield  # a generator, like every model

    monkeypatch.setattr(runs, "make_model", lambda spec, config: Refused())
    code, out = plain(repo, "script:unused.jsonl", lines="hi\n")
    assert code == 2 and "authentication failed" in out


def test_an_unexpected_error_exits_1_without_a_traceback(repo, tmp_path, monkeypatch, capsys):
    from cast import runs

    def broken(*args, **kwargs):
        raise RuntimeError("something broke")

    monkeypatch.setattr(runs, "plan_run", broken)
    code, _ = plain(repo, "script:unused.jsonl", lines="hi\n")
    err = capsys.readouterr().err
    assert code == 1 and err == "cast: something broke\n"


def test_a_fully_ticked_plan_has_nothing_to_do(repo, tmp_path):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan: sub\n\n- [x] Add sub\n")
    code, out = plain(repo, f"script:{write_script(tmp_path / 's.jsonl', [])}", "execute", "2026-01-01-sub")
    assert code == 0 and "is ticked; nothing to do" in out


@pytest.mark.parametrize("line", ["/exit", "/quit"])
def test_exit_lines_end_the_session(repo, tmp_path, line):
    code, out = plain(repo, f"script:{write_script(tmp_path / 's.jsonl', [])}", lines=f"{line}\nnot a task\n")
    assert code == 0 and out == ""
