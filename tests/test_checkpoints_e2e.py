"""Checkpoints end to end: `cast execute` with a scripted model takes them, `cast undo`, `cast redo`
and `cast diff` use them; the real CLI in-process (a real process where it is killed) on real git repositories and plain directories."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import git, write_script
from conftest import invoke_cast as cast

from cast.plans.checklist import parse
from cast.sessions import sessions_dir

PLAN = """---
task: Tidy the project
session: 2026-11-30-tidy
created: 2026-11-30T10:00:00Z
---
# Plan: Tidy the project
Some notes the user wrote by hand.

- [ ] Rework the project files
- [ ] Add a note
  * [ ] nested item, later in document order
"""

DONE = {"text": '{"complete": true, "missing": []}'}


def project(root: Path, use_git: bool) -> Path:
    root.mkdir()
    (root / "keep.py").write_text("VALUE = 1\n")
    (root / "old.txt").write_text("to be deleted\n")
    (root / "gone_by_bash.txt").write_text("bash removes me\n")
    (root / ".gitignore").write_text("*.log\n")
    if use_git:
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "start")
    plan = root / ".cast" / "plans" / "2026-11-30-tidy" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_bytes(PLAN.encode())
    return plan


ITEM_ONE = [
    {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
    {"tool_uses": [{"name": "read_file", "input": {"path": "keep.py"}}]},
    {"tool_uses": [{"name": "edit_file", "input": {"path": "keep.py", "old_string": "VALUE = 1", "new_string": "VALUE = 2"}}]},
    {"tool_uses": [{"name": "write_file", "input": {"path": "pkg/new.py", "content": "NEW = True\n"}}]},
    {
        "tool_uses": [
            {
                "name": "bash",
                "input": {"command": "rm old.txt gone_by_bash.txt && echo made > by_bash.txt && echo noise > run.log"},
            }
        ]
    },
    {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "checked by hand"}}]},
]
ITEM_TWO = [
    {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "in_progress"}}]},
    {"tool_uses": [{"name": "write_file", "input": {"path": "NOTE.md", "content": "note\n"}}]},
    {
        "tool_uses": [
            {"name": "update_task", "input": {"id": 2, "status": "done", "note": "checked by hand"}},
            {"name": "update_task", "input": {"id": 3, "status": "done", "note": "checked by hand"}},
        ]
    },
    {"text": "All done."},
    DONE,
]


def execute(root: Path, tmp: Path, turns: list[dict], *extra: str) -> subprocess.CompletedProcess[str]:
    script = write_script(tmp / f"script{len(list(tmp.glob('script*')))}.jsonl", turns)
    return cast(root, "--model", f"script:{script}", "execute", "--yes", *extra)


def files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".cast" not in p.parts
    }


def checks(plan: Path) -> list[bool]:
    return [item.checked for item in parse(plan.read_text())]


def tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        info = path.lstat()
        digest.update(f"{path.relative_to(directory)}\0{info.st_mode}\0{info.st_mtime_ns}\0".encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("use_git", [True, False], ids=["git", "plain"])
def test_undo_restores_edits_creations_deletions_and_bash_changes_and_unticks_byte_exactly(tmp_path, use_git):
    root = tmp_path / "proj"
    plan = project(root, use_git)
    before = files(root)
    done = execute(root, tmp_path, ITEM_ONE + ITEM_TWO)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Changes by item" in done.stdout and "by_bash.txt" in done.stdout
    assert checks(plan) == [True, True, True]
    after = files(root)
    assert after["keep.py"] == "VALUE = 2\n" and "old.txt" not in after and after["pkg/new.py"] == "NEW = True\n"

    shown = cast(root, "diff", "1")
    assert shown.returncode == 0 and "+VALUE = 2" in shown.stdout and "gone_by_bash.txt" in shown.stdout
    assert "NOTE.md" not in shown.stdout and "run.log" not in shown.stdout  # item 2's file; ignored file

    asked = cast(root, "undo", "1")  # no terminal, no --yes: shows the diffstat, changes nothing
    assert asked.returncode == 1 and "keep.py" in asked.stdout and "--yes" in asked.stdout
    assert files(root) == after

    undone = cast(root, "undo", "1", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    now = files(root)
    assert now.pop("run.log") == "noise\n"  # ignored by .gitignore: not cast's to restore
    assert now == before
    assert not (root / "pkg").exists()
    assert plan.read_bytes() == PLAN.encode()


def test_redo_puts_back_the_files_and_the_ticks(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, True)
    assert execute(root, tmp_path, ITEM_ONE + ITEM_TWO).returncode == 0
    after, ticked = files(root), plan.read_bytes()
    assert cast(root, "undo", "--yes").returncode == 0  # default: the last item touched (3, ticked without a start)
    assert checks(plan) == [True, True, False]
    assert cast(root, "undo", "2", "--yes").returncode == 0
    assert checks(plan) == [True, False, False] and "NOTE.md" not in files(root)
    redone = cast(root, "redo", "--yes")
    assert redone.returncode == 0, redone.stdout
    assert files(root) == after and checks(plan) == [True, True, False]
    assert cast(root, "redo", "--yes").returncode == 0
    assert plan.read_bytes() == ticked
    nothing = cast(root, "redo", "--yes")
    assert nothing.returncode == 1 and "nothing to redo" in nothing.stderr


def test_a_file_changed_by_hand_since_the_checkpoint_is_refused_unless_forced(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, True)
    assert execute(root, tmp_path, ITEM_ONE + ITEM_TWO).returncode == 0
    (root / "keep.py").write_text("VALUE = 3  # the user's own edit\n")
    refused = cast(root, "undo", "1", "--yes")
    assert refused.returncode == 1
    assert "refused" in refused.stdout and "keep.py" in refused.stdout.split("refused (")[1]
    # the undo is done, so `--force` alone would find no checkpoint: the way back is named, and followed below
    assert (
        "kept as changed outside cast: keep.py; to restore them too: `cast redo --yes`, then `cast undo 1 --yes --force`"
        in refused.stdout
    )
    assert (root / "keep.py").read_text() == "VALUE = 3  # the user's own edit\n"
    assert (root / "old.txt").read_text() == "to be deleted\n" and not (root / "NOTE.md").exists()
    assert checks(plan) == [False, False, False]
    assert cast(root, "redo", "--yes").returncode == 0
    assert (root / "NOTE.md").exists() and checks(plan) == [True, True, True]
    forced = cast(root, "undo", "1", "--yes", "--force")
    assert forced.returncode == 0, forced.stdout
    assert (root / "keep.py").read_text() == "VALUE = 1\n"


def kill_during_item_two(root: Path, tmp_path: Path) -> None:
    """Run item 1 and start item 2 (a command writes half.txt, then hangs), then kill -9."""
    script = write_script(
        tmp_path / "killed.jsonl",
        ITEM_ONE
        + [
            {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "in_progress"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "echo half > half.txt; sleep 29.75"}}]},
        ],
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "cast", "--model", f"script:{script}", "execute", "--yes"],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not (root / "half.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    subprocess.run(["pkill", "-f", "sleep 29.75"], check=False)


REST = [
    {"tool_uses": [{"name": "write_file", "input": {"path": "NOTE.md", "content": "note\n"}}]},
    {
        "tool_uses": [
            {"name": "update_task", "input": {"id": 2, "status": "done", "note": "checked by hand"}},
            {"name": "update_task", "input": {"id": 3, "status": "done", "note": "checked by hand"}},
        ]
    },
    {"text": "Done."},
    DONE,
]


def test_undo_after_kill_9_and_resume_of_the_same_session(tmp_path):
    from cast.models.scripted import ScriptedModel
    from cast.runs import Options, resume_run

    root = tmp_path / "proj"
    plan = project(root, True)
    kill_during_item_two(root, tmp_path)
    session = next(sessions_dir(root).glob("*-exec")).name
    run = resume_run(session, Options(cwd=root, yes=True), model=ScriptedModel(REST))
    run.turn("Carry on.", lambda event: None)
    outcome = run.close()
    assert outcome.code == 0, outcome.reason
    assert [item for item, *_ in outcome.report.by_item] == [1, 2, 3]  # the session's items, before and after the kill
    assert checks(plan) == [True, True, True]
    undone = cast(root, "undo", "2", "--yes")
    assert undone.returncode == 0, undone.stdout
    assert not (root / "half.txt").exists() and not (root / "NOTE.md").exists()
    assert (root / "keep.py").read_text() == "VALUE = 2\n" and checks(plan) == [True, False, False]


def test_undo_across_kill_9_and_a_later_run(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, True)
    kill_during_item_two(root, tmp_path)
    assert checks(plan) == [True, False, False]
    done = execute(root, tmp_path, REST, "2026-11-30-tidy")
    assert done.returncode == 0, done.stdout + done.stderr
    shown = cast(root, "diff", "2")  # item 2 began in the killed run and ended in this one
    assert "half.txt" in shown.stdout and "NOTE.md" in shown.stdout
    undone = cast(root, "undo", "1", "--yes")
    assert undone.returncode == 0, undone.stdout
    assert (root / "keep.py").read_text() == "VALUE = 1\n" and (root / "old.txt").exists()
    assert not (root / "half.txt").exists() and not (root / "NOTE.md").exists()
    assert plan.read_bytes() == PLAN.encode()


def test_git_directory_is_never_written_with_uncommitted_work_and_a_stale_index(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    (root / "keep.py").write_text("VALUE = 1\nDRAFT = 'uncommitted'\n")  # the user's own work in progress
    (root / "scratch.txt").write_text("untracked draft\n")
    git(root, "add", "scratch.txt")
    (root / "scratch.txt").write_text("untracked draft, edited after staging\n")
    for path in ("old.txt", "gone_by_bash.txt", ".gitignore"):  # same content, new mtime: the index is stale
        os.utime(root / path, ns=(time.time_ns() + 5_000_000_000,) * 2)
    digest = tree_digest(root / ".git")
    turns = [dict(turn) for turn in ITEM_ONE + ITEM_TWO]
    turns[2] = {
        "tool_uses": [{"name": "edit_file", "input": {"path": "keep.py", "old_string": "VALUE = 1", "new_string": "VALUE = 2"}}]
    }
    done = execute(root, tmp_path, turns)
    assert done.returncode == 0, done.stdout + done.stderr
    assert tree_digest(root / ".git") == digest
    assert cast(root, "diff").returncode == 0
    assert cast(root, "undo", "1", "--yes").returncode == 0
    assert tree_digest(root / ".git") == digest
    assert (root / "keep.py").read_text() == "VALUE = 1\nDRAFT = 'uncommitted'\n"
    assert (root / "scratch.txt").read_text() == "untracked draft, edited after staging\n"
    assert cast(root, "redo", "--yes").returncode == 0
    assert tree_digest(root / ".git") == digest
    assert ".cast/checkpoints" not in git(root, "status", "--porcelain", "--untracked-files=all")


def test_a_file_over_the_size_cap_is_named_in_the_report_and_left_alone_by_undo(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, False)
    turns = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
        {"tool_uses": [{"name": "bash", "input": {"command": "head -c 9000000 /dev/zero > big.bin && echo small > small.txt"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "checked by hand"}}]},
        {
            "tool_uses": [
                {"name": "update_task", "input": {"id": 2, "status": "done", "note": "checked by hand"}},
                {"name": "update_task", "input": {"id": 3, "status": "done", "note": "checked by hand"}},
            ]
        },
        {"text": "Done."},
        DONE,
    ]
    done = execute(root, tmp_path, turns)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not checkpointed (over 8 MiB, undo leaves them alone): big.bin" in done.stdout
    undone = cast(root, "undo", "1", "--yes")
    assert undone.returncode == 0 and "big.bin" in undone.stdout.split("not covered")[1]
    assert (root / "big.bin").stat().st_size == 9000000 and not (root / "small.txt").exists()
    assert checks(plan) == [False, False, False]


def test_an_item_or_plan_that_does_not_exist_is_a_usage_error(tmp_path):
    """Exit 2 (usage), as `cast execute` and `cast verify` say for the same plan: `cast undo 9` of a
    three-item plan names how many it has; an unknown --plan is the same message and code everywhere."""
    root = tmp_path / "proj"
    project(root, True)
    assert execute(root, tmp_path, ITEM_ONE + ITEM_TWO).returncode == 0
    for args in (("undo", "9"), ("diff", "9")):
        done = cast(root, *args)
        assert done.returncode == 2 and "has no item 9: it has 3 items" in done.stderr, (args, done.stderr)
    for args in (("undo", "--plan", "nope"), ("diff", "1", "--plan", "nope"), ("execute", "nope")):
        done = cast(root, *args)
        assert done.returncode == 2 and "no plan file or session 'nope'" in done.stderr, (args, done.stderr)
    two = cast(root, "diff", "1", "2")  # 1 is an item; two of them is what is wrong
    assert two.returncode == 2 and "cast diff takes one ITEM, not '1' and '2'" in two.stderr, two.stderr
    for args in (("diff", "x"), ("diff", "0")):
        assert "is not a plan item number" in cast(root, *args).stderr
    blank = cast(root, "execute", "")
    assert blank.returncode == 2 and "cast: '' is not a plan session directory" in blank.stderr, blank.stderr


def test_a_reader_that_went_away_is_not_blamed_on_the_checkpoint_store(tmp_path):
    """`cast checkpoints | head -1`: the write that fails is stdout's, so no "checkpoint store:
    Broken pipe" line; the error goes up to the CLI, which ends quietly."""
    from cast.checkpoints import commands

    root = tmp_path / "proj"
    project(root, True)
    assert execute(root, tmp_path, ITEM_ONE + ITEM_TWO).returncode == 0
    said: list[str] = []

    def gone(text: str) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    for call in (lambda: commands.listing(root, gone, said.append), lambda: commands.diff(root, 1, None, gone, err=said.append)):
        with pytest.raises(BrokenPipeError):
            call()
    assert said == []


def test_checkpoints_json_lists_each_plans_snapshots_as_the_table_does(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    assert execute(root, tmp_path, ITEM_ONE + ITEM_TWO).returncode == 0
    table = cast(root, "checkpoints")
    [row] = [line.split("\t") for line in table.stdout.splitlines() if "\t" in line]  # piped: tab-separated
    for args in (("--json", "checkpoints"), ("checkpoints", "--json")):
        done = cast(root, *args)
        assert done.returncode == 0 and done.stderr == ""
        [listed] = [json.loads(line) for line in done.stdout.splitlines()]
        plan, count, last = ".cast/plans/2026-11-30-tidy/plan.md", listed["snapshots"], listed["last"]
        assert listed == {"plan": plan, "snapshots": count, "items": [1, 2], "state": "finished", "last": last}
        assert count > 2 and row == [plan, f"{count} snapshots", "items 1, 2", "finished", f"last {last}"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cast(empty, "--json", "checkpoints").stdout == ""  # no plans: no rows (the text says there are none)


def test_a_run_killed_mid_item_is_resumed_and_the_item_ticks_from_the_change_it_left(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, True)
    plan.write_text(PLAN.replace("- [ ] Add a note", "- [ ] Write half.txt"))  # the item names what the killed command wrote
    kill_during_item_two(root, tmp_path)
    tick = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done"}}]},  # no note: it must rest on evidence
        {"tool_uses": [{"name": "update_task", "input": {"id": 3, "status": "done", "note": "checked by hand"}}]},
        {"text": "Done."},
        DONE,
    ]
    done = execute(root, tmp_path, tick, "2026-11-30-tidy")
    assert done.returncode == 0, done.stdout + done.stderr
    assert checks(plan) == [True, True, True]
    meta = json.loads(next(p for p in sessions_dir(root).glob("*/meta.json") if "Write half.txt" in p.read_text()).read_text())
    evidence = meta["evidence"]["Write half.txt"]
    assert evidence["supported"] and evidence["earlier"] == ["half.txt"]
    shown = cast(root, "diff", "2")
    assert "half.txt" in shown.stdout


def test_a_second_tick_of_a_ticked_item_is_refused_and_its_diff_stays_its_own(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    turns = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
        {"tool_uses": [{"name": "write_file", "input": {"path": "one.txt", "content": "1\n"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "in_progress"}}]},
        {"tool_uses": [{"name": "write_file", "input": {"path": "two.txt", "content": "2\n"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 3, "status": "done", "note": "checked by hand"}}]},
        {"text": "Done."},
        DONE,
    ]
    done = execute(root, tmp_path, turns, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    retick = [r for r in results if r.get("type") == "tool_result" and "already ticked" in json.dumps(r)]
    assert retick, "the second tick of item 1 was not refused"
    one = cast(root, "diff", "1").stdout
    assert "one.txt" in one and "two.txt" not in one


def test_diff_of_an_undone_item_says_it_was_undone(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    done = execute(root, tmp_path, ITEM_ONE + ITEM_TWO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert cast(root, "undo", "1", "--yes").returncode == 0
    shown = cast(root, "diff", "1")
    assert "was undone" in shown.stdout + shown.stderr and "has no checkpoint" not in shown.stdout + shown.stderr
    assert "cast redo" in shown.stdout + shown.stderr


def test_undo_without_an_item_skips_an_item_just_started_with_nothing_to_undo(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    turns = [
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "in_progress"}}]},
        {"tool_uses": [{"name": "write_file", "input": {"path": "one.txt", "content": "1\n"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "in_progress"}}]},
        {"text": "Stopping here."},
        DONE,
        {"text": "Stopping here."},
        DONE,
    ]
    execute(root, tmp_path, turns)
    assert (root / "one.txt").exists()
    undone = cast(root, "undo", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert not (root / "one.txt").exists(), undone.stdout


def test_verify_after_every_tick_was_undone_says_so_and_that_nothing_is_left_to_verify(tmp_path):
    root = tmp_path / "proj"
    project(root, True)
    done = execute(root, tmp_path, ITEM_ONE + ITEM_TWO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert cast(root, "undo", "1", "--yes").returncode == 0
    checked = cast(root, "verify")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no plan has a ticked item yet" not in checked.stderr
    assert "nothing to verify (items 1, 2 and 3 unticked by cast undo" in checked.stdout
    result = json.loads(cast(root, "verify", "--json").stdout.splitlines()[-1])
    assert result["status"] == "passed" and result["undone"] == [1, 2, 3]
