"""Completion of slash commands and @file mentions; the toolbar; the REPL without a terminal."""

from __future__ import annotations

import io

from conftest import write_script
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from cast.repl import commands
from cast.repl.complete import FileIndex, ReplCompleter, fuzzy_filter, list_files
from cast.repl.state import ReplState
from cast.repl.toolbar import toolbar_fragments
from cast.runs import Options

FILES = ["README.md", "cast/cli.py", "cast/repl/app.py", "cast/repl/complete.py", "tests/test_cli.py", "docs/cast-cli.md"]


def completions(text: str, files=FILES, arguments=None) -> list[str]:
    index = FileIndex(__import__("pathlib").Path("."), lister=lambda root: list(files))
    index.refresh(wait=True)
    completer = ReplCompleter(commands.names, index, arguments)
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]


def test_slash_commands_complete_by_prefix():
    assert completions("/") == [c.name for c in commands.COMMANDS]
    assert completions("/pl") == ["plan", "plans"]
    assert completions("/exit now") == []
    assert completions("not a /command") == []


def test_command_arguments_complete_from_the_given_values():
    def values(command, typed):
        return [("2026-01-02-flag", "1/3"), ("2026-01-01-x", "0/1")] if command == "execute" else []

    assert completions("/execute 2026-01-02", arguments=values) == ["2026-01-02-flag"]
    assert completions("/model cl", arguments=values) == []


def test_at_mentions_complete_fuzzily_preferring_file_names():
    found = completions("look at @cli")
    assert found[0] == "cast/cli.py" and set(found) == {"cast/cli.py", "tests/test_cli.py", "docs/cast-cli.md"}
    assert completions("@rapp") == ["cast/repl/app.py"]
    assert set(completions("@")) == set(FILES)
    assert completions("email@host") == []  # only a word starting with @
    assert completions("look at @cast/cli.py") == []  # picked: Enter sends instead of reopening the menu
    assert completions("look at @cast/cli.p") != []


def test_fuzzy_filter_orders_and_rejects():
    assert fuzzy_filter("cmp", FILES) == ["cast/repl/complete.py"]
    assert fuzzy_filter("zzz", FILES) == []


def test_file_list_respects_gitignore(repo):
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("x")
    (repo / "src").mkdir()
    (repo / "src" / "main.py").write_text("")
    files = list_files(repo)
    assert "src/main.py" in files and "app.py" in files
    assert not any(f.startswith("build/") or f.startswith(".git/") for f in files)


def test_toolbar_shows_mode_model_session_context_and_cost(repo):
    state = ReplState(Options(model="script:/tmp/demo.jsonl", cwd=repo), "plan")
    text = "".join(t for _, t in toolbar_fragments(state, busy=False, width=100))
    assert text.startswith(" PLAN ") and "script:demo.jsonl" in text and "new session" in text
    assert "ctx 0" in text and "$0.000" in text
    for width in (80, 60, 40):
        assert len("".join(t for _, t in toolbar_fragments(state, busy=True, width=width))) <= width


def test_without_a_terminal_each_line_is_a_task_in_plain_text(repo, tmp_path):
    from cast.repl.plain import run_plain

    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"text": "# Looking\n\nAt `app.py`.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
            {"text": "Done looking."},
        ],
    )
    out = io.StringIO()
    code = run_plain(Options(model=f"script:{script}", cwd=repo), "plan", stdin=io.StringIO("look around\n/exit\n"), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "# Looking" in text and "✓ read_file app.py · lines 1-2 of 2" in text and "■ done" in text
    assert "\x1b" not in text
