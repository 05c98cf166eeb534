"""The report's git baseline is read-only and describes this run's changes only.

Real git repositories with uncommitted work in them: the report must not write a byte into .git
(not an object, not the index) and must not count the user's own uncommitted edits as the run's.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
from conftest import git

from cast.agent import events as ev
from cast.agent.report import ReportBuilder


def git_digest(repo: Path) -> dict[str, str]:
    """Every file under .git (index, objects, refs, logs) by content."""
    digest = {}
    for path in sorted((repo / ".git").rglob("*")):
        if path.is_file() and not path.is_symlink():
            digest[str(path.relative_to(repo))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def stale_index(repo: Path) -> None:
    """Make the index's stat data out of date, so a plain `git status` or `git diff` would
    rewrite .git/index to refresh it (lib.py stays clean: its content is unchanged)."""
    later = time.time() + 5
    for name in ("README.md", "app.py", "lib.py"):
        os.utime(repo / name, (later, later))


@pytest.fixture
def dirty(repo: Path) -> Path:
    """The user's uncommitted work: an edited tracked file, a staged new file, an untracked one."""
    (repo / "lib.py").write_text("X = 1\n")
    git(repo, "add", "lib.py")
    git(repo, "commit", "-qm", "lib")
    (repo / "README.md").write_text("# demo\nuser's own edit\n")
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "notes.txt").write_text("one\ntwo\n")
    stale_index(repo)
    return repo


def test_building_a_report_writes_nothing_into_git_and_lists_only_this_runs_changes(dirty):
    before = git_digest(dirty)
    builder = ReportBuilder(dirty)
    (dirty / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    (dirty / "notes.txt").write_text("one\ntwo\nthree\n")  # untracked before the run, edited by it
    (dirty / "new.txt").write_text("a\nb\n")
    builder.observe(ev.Stopped("done", "finished", 1))
    report = builder.build("")
    assert git_digest(dirty) == before
    assert sorted(report.files_changed) == ["app.py", "new.txt", "notes.txt"]
    stat = report.diff_stat.splitlines()
    assert [line.split("|")[0].strip() for line in stat[:-1]] == ["app.py", "new.txt", "notes.txt"]
    assert "| 4 ++++" in stat[0] and "| 2 ++" in stat[1] and "| 1 +" in stat[2]
    assert stat[-1].strip() == "3 files changed, 7 insertions(+)"
    assert "README.md" not in report.render_text() and "staged.txt" not in report.render_text()


def test_an_edit_to_a_file_already_dirty_counts_only_the_runs_lines(dirty):
    builder = ReportBuilder(dirty)
    (dirty / "README.md").write_text("# demo\nuser's own edit\nrun's line\n")
    (dirty / "staged.txt").unlink()
    report = builder.build("")
    assert report.files_changed == ["README.md", "staged.txt"]
    assert report.diff_stat.splitlines()[:2] == [" README.md  | 1 +", " staged.txt | 1 -"]


def test_a_file_the_run_restores_to_head_is_still_a_change(dirty):
    builder = ReportBuilder(dirty)
    git(dirty, "checkout", "--", "README.md")  # clean now, but the run changed it
    report = builder.build("")
    assert report.files_changed == ["README.md"]
    assert report.diff_stat.splitlines()[0] == " README.md | 1 -"


def test_commits_made_during_the_run_are_counted(repo):
    builder = ReportBuilder(repo)
    (repo / "app.py").write_text("def add(a, b):\n    return b + a\n")
    git(repo, "commit", "-qam", "swap")
    report = builder.build("")
    assert report.files_changed == ["app.py"]
    assert report.diff_stat.splitlines()[0] == " app.py | 2 +-"


def test_a_repository_without_commits(tmp_path):
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("x\n")
    before = git_digest(root)
    builder = ReportBuilder(root)
    (root / "b.txt").write_text("y\nz\n")
    report = builder.build("")
    assert git_digest(root) == before
    assert report.files_changed == ["b.txt"] and report.diff_stat.startswith(" b.txt | 2 ++")


def test_the_plan_file_and_binary_files(repo):
    plan = repo / ".cast" / "plans" / "s" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("- [ ] a\n")
    (repo / "blob.bin").write_bytes(b"\0\1\2")
    builder = ReportBuilder(repo, plan)
    plan.write_text("- [x] a\n")  # its progress has a line of its own in the report
    (repo / "blob.bin").write_bytes(b"\0\1\2\3")
    report = builder.build("")
    assert report.files_changed == ["blob.bin"]
    assert report.diff_stat.splitlines()[0] == " blob.bin | Bin 3 -> 4 bytes"
    # a change a tool call reported is listed even where git has no lines for it
    builder.observe(ev.ToolResult("id", "bash", True, "", "", (".cast/plans/s/plan.md",), False, {}))
    text = builder.build("").render_text()
    assert "Files changed: 2" in text and ".cast/plans/s/plan.md | changed" in text and "2 files changed" in text


def test_git_false_records_nothing(dirty):
    builder = ReportBuilder(dirty, git=False)
    (dirty / "app.py").write_text("changed\n")
    assert builder.baseline is None and builder.build("").files_changed == []


def test_format_stat_scales_long_bars():
    from cast.agent.report import format_stat

    text = format_stat([("a.py", (300, 100)), ("b", "changed (lines not counted)")])
    lines = text.splitlines()
    assert lines[0] == " a.py | 400 " + "+" * 30 + "-" * 10
    assert lines[1] == " b    | changed (lines not counted)"
    assert lines[2] == " 2 files changed, 300 insertions(+), 100 deletions(-)"


def test_casts_own_gitignore_is_not_a_change_the_run_made(repo):
    """Writing a plan creates .cast/.gitignore (cast's bookkeeping): a planning run's report does
    not say it changed a file outside its plan."""
    from cast.fsutil import ensure_gitignore

    builder = ReportBuilder(repo)
    ensure_gitignore(repo)
    (repo / "app.py").write_text("def add(a, b):\n    return b + a\n")
    builder.observe(ev.Stopped("done", "finished", 1))
    report = builder.build("")
    assert (repo / ".cast" / ".gitignore").is_file()
    assert report.files_changed == ["app.py"] and ".gitignore" not in report.diff_stat


@pytest.mark.parametrize(
    "edits",
    [
        {"app.py": "def add(a, b):\n    return a + b\n# one\n"},  # 1 insertion, no deletion
        {"app.py": "def add(a, b):\n"},  # a deletion only
        {"app.py": "def add(a, b):\n    return b + a\n", "README.md": "# demo\n\nmore\n"},
        {"new.txt": "a\nb\n"},
        {"new.txt": ""},  # an empty new file: nothing counted, git still names both zeros
    ],
)
def test_format_stat_summary_reads_as_gits(repo, edits):
    from cast.agent.report import format_stat

    for name, text in edits.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    rows = [
        (path, (int(a), int(d)))
        for a, d, path in (line.split("\t") for line in git(repo, "diff", "--cached", "--numstat").splitlines())
    ]
    expected = git(repo, "diff", "--cached", "--stat").splitlines()[-1]
    assert format_stat(rows).splitlines()[-1] == expected
