"""--json is never ignored: every command prints its documented object with it, or refuses it in
words. Undo, redo and diff on real checkpoints of a scripted `cast execute`; trust and
check-command on a real workspace; the real CLI in-process."""

from __future__ import annotations

import inspect
import json

import pytest
from conftest import invoke_cast as cast
from test_checkpoints_e2e import ITEM_ONE, ITEM_TWO, execute, files, project

REFUSES_JSON = {"resume"}  # opens the REPL: says so rather than print nothing a program could read


def test_every_command_takes_json_or_refuses_it():
    from cast.cli import app

    for command in app.registered_commands:
        name = command.name or command.callback.__name__.replace("_", "-")
        takes = "json" in inspect.signature(command.callback).parameters
        assert takes != (name in REFUSES_JSON), f"cast {name} ignores --json"


def test_resume_refuses_json_in_words(repo):
    done = cast(repo, "--json", "resume")
    assert done.returncode == 2 and "prints no JSON" in done.stderr and not done.stdout


@pytest.fixture
def executed(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, True)
    done = execute(root, tmp_path, ITEM_ONE + ITEM_TWO)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, plan


def one_object(done) -> dict:
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return json.loads(lines[0])


@pytest.mark.parametrize("before", [False, True], ids=["after", "before"])
def test_diff_json_is_the_items_files_and_patch(executed, before):
    root, _ = executed
    args = ["--json", "diff", "1"] if before else ["diff", "1", "--json"]
    shown = one_object(cast(root, *args))
    assert shown["type"] == "diff" and shown["item"] == 1 and shown["plan"].endswith("2026-11-30-tidy/plan.md")
    assert shown["text"] == "Rework the project files"
    by_path = {f["path"]: f for f in shown["files"]}
    assert by_path["keep.py"] == {"path": "keep.py", "added": 1, "removed": 1}
    assert {"old.txt", "gone_by_bash.txt", "pkg/new.py", "by_bash.txt"} <= set(by_path) and "NOTE.md" not in by_path
    assert "+VALUE = 2" in shown["patch"] and "changed," not in shown["patch"]  # the patch alone, no --stat
    run = one_object(cast(root, "diff", "--json"))
    assert run["item"] is None and "NOTE.md" in {f["path"] for f in run["files"]}


def test_undo_json_previews_without_yes_then_undoes_and_redo_reverses(executed):
    root, plan = executed
    after = files(root)
    preview = cast(root, "undo", "2", "--json")
    assert preview.returncode == 1 and files(root) == after
    asked = one_object(preview)
    assert asked == asked | {"type": "undo", "status": "preview", "item": 2, "unticked": [2, 3]}
    assert asked["files"] == [{"path": "NOTE.md", "change": "removed"}] and asked["refused"] == []

    undone = cast(root, "--json", "undo", "2", "--yes")
    assert undone.returncode == 0 and one_object(undone)["status"] == "done"
    assert not (root / "NOTE.md").exists() and "- [ ] Add a note" in plan.read_text()

    redone = one_object(cast(root, "redo", "--yes", "--json"))
    assert redone == redone | {"type": "redo", "status": "done", "item": 2, "ticked": [2, 3]}
    assert (root / "NOTE.md").read_text() == "note\n"


def test_trust_json_says_what_changed(repo):
    first = one_object(cast(repo, "trust", "--json"))
    assert first == first | {"trusted": True, "was_trusted": False, "before": None, "loosening_keys": []}
    assert first["record"].endswith("trusted.toml")
    revoked = one_object(cast(repo, "--json", "trust", "--revoke"))
    assert revoked["trusted"] is False and revoked["was_trusted"] is True
    again = one_object(cast(repo, "trust", "--revoke", "--json"))
    assert again["was_trusted"] is False and again["before"] == "untrusted"


def test_check_command_json_is_the_verdict_and_keeps_the_exit_code(repo):
    allowed = cast(repo, "check-command", "--json", "git log --oneline -5 | head -3")
    assert allowed.returncode == 0
    assert one_object(allowed) == {"command": "git log --oneline -5 | head -3", "allowed": True, "reason": ""}
    blocked = cast(repo, "--json", "check-command", "sort", "-o", "out.txt", "in.txt")
    verdict = one_object(blocked)
    assert blocked.returncode == 1 and verdict["allowed"] is False and verdict["command"] == "sort -o out.txt in.txt"
    assert verdict["reason"]
    literal = cast(repo, "check-command", "echo", "--json")  # after the command's first word: the command's
    assert literal.returncode == 0 and literal.stdout.strip() == "allowed"


@pytest.mark.parametrize(
    "args",
    [
        ("plans", "archive", "2026-01-01-x"),
        ("checkpoints", "--prune", "--days", "0"),
        ("mcp", "approve", "server"),
        ("hooks", "approve"),
    ],
    ids=["archive", "prune", "mcp", "hooks"],
)
def test_an_action_that_prints_words_refuses_json_before_it_acts(repo, args):
    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] One\n")
    for where in ("before", "after"):
        done = cast(repo, "--json", *args) if where == "before" else cast(repo, *args, "--json")
        assert done.returncode == 2 and "prints words only" in done.stderr and not done.stdout, (where, done)
    assert plan.is_file()  # not archived
