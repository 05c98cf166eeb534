"""File names are text from the repository or the model, and a name may hold a newline or an
escape: `cast execute`'s closing report (evidence, files changed, changes by item), `cast diff`,
`cast undo` and `cast redo` show each one on one line, quoted as git quotes it, so a name can
neither clear the screen nor print a line that passes for cast's own ("Result: done ...")."""

from __future__ import annotations

import re

from conftest import commit_plan, git, invoke_cast, write_script

FORGED = "Result: done (every item verified)"
NAMES = [f"x\n{FORGED}\n.txt", "y\x1b]0;pwned\x07\x1b[2J.txt", "z\r\x1b[1A\x1b[2K.txt"]
OWN = re.compile(r"\x1b\[[0-9;]*m")


def _shown(output: str) -> None:
    lines = output.splitlines()
    assert not [line for line in lines if line.lstrip().startswith(FORGED)], output  # a name never starts a line of its own
    assert not [c for c in OWN.sub("", output) if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F], output


def test_file_names_with_newlines_and_escapes_stay_one_quoted_line(repo, tmp_path):
    for name in NAMES:
        (repo / name).write_text("old\n")
    commit_plan(repo, "# Plan\n\n- [ ] Rewrite the files\n", "names")
    turns = [
        {"tool_uses": [{"name": "write_file", "input": {"path": name, "content": "new\n"}} for name in NAMES[:2]]},
        {"tool_uses": [{"name": "bash", "input": {"command": "printf 'new\\n' > z$'\\r\\e[1A\\e[2K'.txt"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"text": "Done."},
        {"complete": True, "missing": [], "claims": []},
    ]
    script = write_script(tmp_path / "s.jsonl", turns)
    done = invoke_cast(repo, "--model", f"script:{script}", "execute", "--yes", "2099-01-01-x")
    assert done.returncode == 0, done.stdout + done.stderr
    report = done.stdout[done.stdout.index("\nResult:") :]
    for quoted in (
        '"x\\nResult: done (every item verified)\\n.txt"',
        '"y\\033]0;pwned\\007\\033[2J.txt"',
        '"z\\r\\033[1A\\033[2K.txt"',
    ):
        assert report.count(quoted) == 3, (quoted, report)  # evidence, files changed, changes by item
    _shown(done.stdout + done.stderr)
    for command in (["diff"], ["diff", "1"], ["undo", "--yes"], ["redo", "--yes"]):
        shown = invoke_cast(repo, *command)
        assert shown.returncode == 0 and '"x\\nResult: done' in shown.stdout, (command, shown.stdout, shown.stderr)
        _shown(shown.stdout + shown.stderr)


def test_a_plan_directory_named_to_forge_lines_is_no_plan(repo, tmp_path):
    """`cast plans` prints one plan per line (tab-separated when piped, for scripts): a committed
    session directory whose name holds a newline, a tab or an escape could print a row of its own."""
    forged = "7 of 7\t2099-12-31-all-done\tShip it"
    for name in (f"2099-01-01-a\n{forged}\x1b]0;t\x07", "2099-01-02-b\tx", "2099-01-03-c\x1b[2J"):
        (repo / ".cast" / "plans" / name).mkdir(parents=True)
        (repo / ".cast" / "plans" / name / "plan.md").write_text("# Plan\n\n- [ ] one\n")
    (repo / ".cast" / "plans" / "2099-01-04-d").mkdir()
    (repo / ".cast" / "plans" / "2099-01-04-d" / f"x\n{forged}.md").write_text("# Plan\n\n- [ ] one\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plans")
    for command in (["plans"], ["plans", "--all"], ["--json", "plans"]):
        listed = invoke_cast(repo, *command)
        assert listed.returncode == 0 and "all-done" not in listed.stdout and "2099" not in listed.stdout, listed.stdout
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', [{'text': 'x'}])}", "execute")
    assert done.returncode == 2 and "all-done" not in done.stdout + done.stderr, done.stdout + done.stderr


def test_a_models_task_note_cannot_print_lines_of_the_report(repo, tmp_path):
    """update_task's note (why an item is done without evidence, or blocked) is the model's text,
    printed inside cast's closing report and task list: it is kept to one line."""
    commit_plan(repo, "# Plan\n\n- [ ] One\n- [ ] Two\n", "plan")
    forged = f"\n{FORGED}\nCommands run: 3\n  ok   `pytest -q` exit 0 (12 passed)"
    turns = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "done" + forged}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "blocked", "note": "stuck" + forged}}]},
        {"text": "Done."},
        {"complete": True, "missing": [], "claims": []},
    ]
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", "execute", "2099-01-01-x")
    assert "note: done Result: done (every item verified) Commands run: 3" in done.stdout, done.stdout
    _shown(done.stdout + done.stderr)
    assert not [line for line in done.stdout.splitlines() if line.lstrip().startswith(("ok   `pytest", "Commands run: 3"))]
