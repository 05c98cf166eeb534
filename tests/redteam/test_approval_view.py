"""What the user approves is what runs: a command that hides its first line above the screen with
a hundred blank (or whitespace-only) lines and ends in a harmless-looking `echo hello` is shown
with the blank run as one visible line, so the whole command and the choices are on the screen
when the question is (before, the one-shot question showed only blank lines and the echo, and the
REPL's pushed its choices off the screen). A command of sixty real lines cannot fit either way:
the REPL prints it whole above a question that says how many lines it is and keeps its choices on
a 24-row screen; the one-shot question says how many lines it is, where it is answered. End to end on a terminal: the REPL (`cast execute` in
tmux, the screen as the user sees it) and the one-shot question (`cast execute` with its output
piped), answered no."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from conftest import cast_env, write_script

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "repl"))
from tmuxkit import tmux  # noqa: E402, F401  (a fixture: the real REPL in tmux)

pexpect = pytest.importorskip("pexpect")
PADDING = {
    "blank": "\n" * 120,
    "whitespace": "\n \t \n      \n\t\n" * 40,
    "tall": "".join(f"\necho {i}" for i in range(60)) + "\n",
}


def _plan(repo: Path, marker: Path, padding: str, tmp_path: Path) -> Path:
    plan = repo / ".cast" / "plans" / "2099-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Say hello\n")
    command = f"touch {marker}{padding}echo hello"
    turns = [{"tool_uses": [{"name": "bash", "input": {"command": command}}]}, {"text": "Done."}]
    return write_script(tmp_path / "s.jsonl", [*turns, {"complete": True, "missing": [], "claims": []}] + [{"text": "ok"}] * 3)


@pytest.mark.parametrize("padding", list(PADDING))
def test_the_repl_question_shows_a_command_hidden_behind_blank_lines(tmux, repo, tmp_path, padding):
    marker = tmp_path / "approved-unseen"
    t = tmux(_plan(repo, marker, PADDING[padding], tmp_path), columns=100, rows=24, args=("execute",))
    if padding == "tall":  # sixty real lines do not fit: printed whole above, the question says how many, its choices shown
        shown = t.wait_for("62 lines in all")
        assert "cast wants to run this 62-line command (shown whole above)" in shown and "[n]o" in shown, shown
        assert "echo 59\n" in shown and "  echo hello" in shown, shown  # the command's end, above the question
    else:
        shown = t.wait_for("[n]o")
        assert f"touch {marker}" in shown and "blank lines]" in shown and "echo hello" in shown, shown
    t.type("n")
    t.send("Enter")
    t.wait_for("declined")
    assert not marker.exists()


@pytest.mark.parametrize("padding", list(PADDING))
def test_the_one_shot_question_shows_a_command_hidden_behind_blank_lines(repo, tmp_path, padding):
    marker = tmp_path / "approved-unseen"
    script = _plan(repo, marker, PADDING[padding], tmp_path)
    command = f"{sys.executable} -m cast --model script:{script} execute 2>&1 | cat"  # a terminal to ask on, output piped
    child = pexpect.spawn("bash", ["-c", command], cwd=str(repo), env=cast_env(), encoding="utf-8", timeout=60)
    child.expect(r"\[y\]es / \[n\]o")
    screen = child.before.replace("\r", "").split("\n")[-24:]  # what a 25-row terminal shows with the question
    if padding == "tall":  # sixty real lines scroll the first off: the question says how many there are
        assert screen[-1] == "run all 62 lines of it? ", screen
    else:
        assert any(f"touch {marker}" in line for line in screen) and any("blank lines]" in line for line in screen), screen
    child.sendline("n")
    child.expect(pexpect.EOF)
    time.sleep(0.1)
    assert not marker.exists()
