"""The plan store: confinement of write_plan, session ids, listing and finding plans."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from cast.fsutil import atomic_write
from cast.plans.checklist import PlanError
from cast.plans.store import (
    base_commit,
    find_plan,
    front_matter,
    list_plans,
    new_session_id,
    parse_front_matter,
    slugify,
    write_plan,
)
from cast.sessions import sessions_dir

CREATED = datetime(2026, 11, 29, 11, 42, 7, tzinfo=UTC)
SESSION = "2026-11-29-add-a-verbose-flag"
BODY = "# Plan: Add a --verbose flag\n\n- [ ] Add `--verbose` to cli.py\n- [ ] Thread it\n  - [ ] nested\n"


def files_under(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")}


def plan(root: Path, name: str = "plan", body: str = BODY, session: str = SESSION, **kw: object) -> tuple[Path, int]:
    args = {"task": "Add a --verbose flag", "created": CREATED, "base_commit": "3f2a9c1", **kw}
    return write_plan(root, session, name, body, **args)  # type: ignore[arg-type]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return tmp_path / "repo"


def test_write_plan(root: Path) -> None:
    path, items = plan(root)
    assert path == root / ".cast" / "plans" / SESSION / "plan.md"
    assert items == 3
    assert path.read_text() == (
        "---\ntask: Add a --verbose flag\nsession: 2026-11-29-add-a-verbose-flag\n"
        "created: 2026-11-29T11:42:07Z\nbase_commit: 3f2a9c1\n---\n" + BODY
    )
    assert (root / ".cast" / ".gitignore").read_text() == "checkpoints/\n"
    assert sorted(os.listdir(path.parent)) == ["plan.md"]  # no temp files left behind


def test_write_plan_revises_and_keeps_gitignore(root: Path) -> None:
    (root / ".cast").mkdir()
    (root / ".cast" / ".gitignore").write_text("mine\n")
    plan(root, "plan.md")
    path, items = plan(root, "plan.md", body="# v2\n- [ ] only\n")
    assert items == 1 and path.read_text().endswith("---\n# v2\n- [ ] only\n")
    # the user's lines stay; what must stay private is appended once, however often plans are written
    assert (root / ".cast" / ".gitignore").read_text() == "mine\ncheckpoints/\n"
    assert sorted(os.listdir(path.parent)) == ["plan.md"]


@pytest.mark.parametrize("name", ["plan", "plan.md", "v2.plan", "my_plan-1", "0"])
def test_good_names(root: Path, name: str) -> None:
    path, _ = plan(root, name)
    assert path.parent == root / ".cast" / "plans" / SESSION and path.name.endswith(".md") and path.is_file()


@pytest.mark.parametrize("name", ["../x", "/tmp/x", "a/../../x", "A", ".hidden", "x/y", "", "a..b", "x\x00", "é", "a" * 200])
def test_bad_names_refused(tmp_path: Path, root: Path, name: str) -> None:
    outside = {Path("/tmp/x"), Path("/tmp/x.md")}
    existed = {p for p in outside if p.exists()}
    with pytest.raises(PlanError, match="invalid plan name"):
        plan(root, name)
    assert not any(p.name in ("x", "x.md", "y.md") for p in tmp_path.rglob("*"))
    assert {p for p in outside if p.exists()} == existed


def test_bad_session_refused(root: Path) -> None:
    with pytest.raises(PlanError, match="invalid session id"):
        plan(root, session="../evil")


def test_plans_dir_symlink_refused(tmp_path: Path, root: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".cast").mkdir()
    (root / ".cast" / "plans").symlink_to(elsewhere)
    with pytest.raises(PlanError, match=r"\.cast/plans is a symlink"):
        plan(root)
    assert files_under(elsewhere) == set()


def test_cast_dir_symlink_refused(tmp_path: Path, root: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".cast").symlink_to(elsewhere)
    with pytest.raises(PlanError, match=r"\.cast is a symlink"):
        plan(root)
    assert files_under(elsewhere) == set()


def test_session_dir_symlink_refused(tmp_path: Path, root: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".cast" / "plans").mkdir(parents=True)
    (root / ".cast" / "plans" / SESSION).symlink_to(elsewhere)
    with pytest.raises(PlanError, match="is a symlink"):
        plan(root)
    assert files_under(elsewhere) == set()


def test_plan_file_symlink_refused(tmp_path: Path, root: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    session_dir = root / ".cast" / "plans" / SESSION
    session_dir.mkdir(parents=True)
    (session_dir / "plan.md").symlink_to(victim)
    with pytest.raises(PlanError, match="not a regular file"):
        plan(root)
    assert victim.read_text() == "keep" and (session_dir / "plan.md").is_symlink()


def test_cast_is_a_file(root: Path) -> None:
    (root / ".cast").write_text("")
    with pytest.raises(PlanError, match="not a directory"):
        plan(root)


def test_models_front_matter_replaced(root: Path) -> None:
    body = "---\ntask: evil\ncreated: never\nbase_commit: deadbee\n---\n\n# Plan\n- [ ] a"
    path, items = plan(root, body=body, base_commit=None)
    text = path.read_text()
    assert items == 1 and "evil" not in text and "deadbee" not in text
    assert parse_front_matter(text) == {"task": "Add a --verbose flag", "session": SESSION, "created": "2026-11-29T11:42:07Z"}
    assert text.endswith("---\n# Plan\n- [ ] a\n")


def test_front_matter_quoting() -> None:
    text = front_matter('fix: "x"\nand # y', "s", datetime(2026, 1, 2, 3, 4, 5), "")
    assert text.startswith('---\ntask: "fix: \\"x\\"\\nand # y"\nsession: s\ncreated: 2026-01-02T03:04:05Z\n---\n')
    assert parse_front_matter(text)["task"] == 'fix: "x"\nand # y'
    assert parse_front_matter("# no front matter\n") == {}
    assert parse_front_matter("---\r\ntask: 'it''s'\r\n---\r\n") == {"task": "it's"}


def test_atomic_write(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    atomic_write(path, b"one")
    path.chmod(0o600)
    atomic_write(path, b"two\r\n")
    assert path.read_bytes() == b"two\r\n" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["f.txt"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_base_commit(tmp_path: Path) -> None:
    outside = subprocess.run(["git", "-C", str(tmp_path), "rev-parse"], capture_output=True).returncode != 0
    if outside:
        assert base_commit(tmp_path) is None
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert base_commit(tmp_path) is None  # no commits yet
    subprocess.run([*git, "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    sha = base_commit(tmp_path)
    assert sha and len(sha) >= 7 and head.startswith(sha)


@pytest.mark.parametrize(
    "task,slug",
    [
        ("Add a --verbose flag!", "add-a-verbose-flag"),
        ("  Fix   bug #12 in parser.py ", "fix-bug-12-in-parser-py"),
        ("Café crème ☃", "cafe-creme"),
        ("!!!", "task"),
        ("", "task"),
        ("日本語", "task"),
        ("refactor the configuration loader so that it merges environment variables", "refactor-the-configuration-loader-so"),
        ("x" * 60, "x" * 40),
    ],
)
def test_slugify(task: str, slug: str) -> None:
    assert slugify(task) == slug
    assert len(slugify(task)) <= 40


def test_session_ids(root: Path) -> None:
    today = date(2026, 11, 29)
    assert new_session_id(root, "Add a --verbose flag!", today) == SESSION
    (root / ".cast" / "plans" / SESSION).mkdir(parents=True)
    assert new_session_id(root, "Add a --verbose flag!", today) == SESSION + "-2"
    (sessions_dir(root) / (SESSION + "-2")).mkdir()
    assert new_session_id(root, "Add a --verbose flag!", today) == SESSION + "-3"
    assert new_session_id(root, "Add a --verbose flag!", date(2026, 11, 30)) == "2026-11-30-add-a-verbose-flag"


def make(root: Path, session: str, body: str, created: datetime | None, name: str = "plan.md", mtime: int | None = None) -> Path:
    if created is None:
        path = root / ".cast" / "plans" / session / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    else:
        path, _ = plan(root, name, body=body, session=session, task=f"task {session}", created=created)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_list_plans(root: Path) -> None:
    assert list_plans(root) == []
    make(root, "s-old", "- [x] a\n- [ ] b\n", datetime(2026, 1, 1, tzinfo=UTC), mtime=2_000_000_000)
    make(root, "s-new", "- [x] a\n- [x] b\n- [ ] c\n", datetime(2026, 3, 1, tzinfo=UTC), mtime=1_000_000_000)
    make(root, "s-hand", "no front matter\n- [ ] a\n", None, mtime=1_780_000_000)  # 2026-05-28
    (root / ".cast" / "plans" / "s-new" / "notes.txt").write_text("- [ ] not a plan")
    infos = list_plans(root)
    assert [(i.session, i.done, i.total) for i in infos] == [("s-hand", 0, 1), ("s-new", 2, 3), ("s-old", 1, 2)]
    assert infos[1].task == "task s-new" and infos[1].created == "2026-03-01T00:00:00Z"
    assert infos[0].task == "" and infos[0].path.name == "plan.md" and infos[0].mtime == 1_780_000_000


def test_find_plan_newest_unticked(root: Path) -> None:
    with pytest.raises(PlanError, match="no plan with unticked items; run cast plan first"):
        find_plan(root, None)
    older = make(root, "s1", "- [ ] a\n", datetime(2026, 1, 1, tzinfo=UTC))
    make(root, "s2", "- [x] a\n", datetime(2026, 2, 1, tzinfo=UTC))
    make(root, "s3", "no items\n", datetime(2026, 3, 1, tzinfo=UTC))
    assert find_plan(root, None) == older
    newer = make(root, "s4", "- [ ] b\n", datetime(2026, 4, 1, tzinfo=UTC))
    assert find_plan(root, None) == newer


def test_find_plan_by_path(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make(root, "s1", "- [x] a\n", CREATED)
    outside = tmp_path / "mine.md"
    outside.write_text("- [ ] x\n")
    assert find_plan(root, str(path)) == path
    assert find_plan(root, str(outside)) == outside
    monkeypatch.chdir(root)
    assert find_plan(root, ".cast/plans/s1/plan.md") == path
    assert find_plan(root, ".cast/plans/s1") == path


def test_find_plan_by_session(root: Path) -> None:
    path = make(root, "2026-11-29-a", "- [ ] a\n", CREATED)
    make(root, "2026-11-29-a", "- [ ] b\n", CREATED, name="zz-later.md", mtime=2_000_000_000)
    assert find_plan(root, "2026-11-29-a") == path  # plan.md wins over newer files
    make(root, "2026-11-29-b", "- [ ] a\n", CREATED, name="first.md", mtime=1_000_000_000)
    second = make(root, "2026-11-29-b", "- [ ] b\n", CREATED, name="second.md", mtime=1_500_000_000)
    assert find_plan(root, "2026-11-29-b") == second
    (root / ".cast" / "plans" / "2026-11-29-empty").mkdir()
    with pytest.raises(PlanError, match="has no plan file"):
        find_plan(root, "2026-11-29-empty")


def test_find_plan_unknown(root: Path) -> None:
    with pytest.raises(PlanError, match="no plans yet"):
        find_plan(root, "nope")
    make(root, "2026-11-29-add-a-verbose-flag", "- [ ] a\n", CREATED)
    make(root, "2026-11-30-fix-parser", "- [ ] a\n", CREATED)
    with pytest.raises(PlanError, match="did you mean: 2026-11-29-add-a-verbose-flag") as err:
        find_plan(root, "2026-11-29-add-verbose")
    assert "cast plans" in str(err.value)
    with pytest.raises(PlanError, match="2026-11-30-fix-parser"):
        find_plan(root, "fix-parser")


def test_a_directory_that_is_no_plan_session_is_not_searched_for_a_checklist(root: Path, monkeypatch) -> None:
    """`cast execute .` (or `docs/`) must not pick the newest Markdown file there: a README with a
    task list would be executed and ticked as if it were a plan. A session directory, by path or
    by id, still names its plan; another directory only by holding a plan.md."""
    session = make(root, "2026-11-29-b", "- [ ] b\n", CREATED, name="second.md")
    (root / "README.md").write_text("# demo\n\n- [ ] ship it\n")
    monkeypatch.chdir(root)
    for ref in (".", str(root), "./"):
        with pytest.raises(PlanError, match="is not a plan session directory and has no plan.md"):
            find_plan(root, ref)
    assert find_plan(root, ".cast/plans/2026-11-29-b/") == session
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "plan.md").write_text("- [ ] x\n")
    assert find_plan(root, "elsewhere") == (root / "elsewhere" / "plan.md").absolute()


def test_the_id_of_a_session_that_executed_a_plan_names_that_plan(root: Path) -> None:
    """`cast sessions` lists `2026-11-29-a-exec`, `-exec-2`: `cast execute` / `verify` / `diff --plan`
    given one of those find the plan that session executed, the one of `2026-11-29-a`."""
    path = make(root, "2026-11-29-a", "- [ ] a\n", CREATED)
    for ref in ("2026-11-29-a-exec", "2026-11-29-a-exec-2", "2026-11-29-a-exec-exec-3"):
        assert find_plan(root, ref) == path, ref
    with pytest.raises(PlanError, match="no plan file or session '2026-11-29-b-exec'"):
        find_plan(root, "2026-11-29-b-exec")
