"""A clone's committed plans cannot make cast write outside the workspace, nor run what the user
did not approve: `.cast/plans/<session>/plan.md` (or the session directory itself) committed as a
symlink to a file outside, a plan hard-linked to one, and a ticked plan whose `verify:` commands are
the attack. End to end through `cast plans`, `cast execute` (every way of naming the plan) and
`cast verify`, judged from outside: the files outside, the markers, the listener."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import git, invoke_cast, write_script

TODO = "# my notes\n- [ ] pay rent\n- [ ] call home\n"
TICK = [
    {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "already done"}}]},
    {"text": "Done."},
    {"complete": True, "missing": [], "claims": []},
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A user's notes beside the clone, with a checklist ticking would happily change."""
    place = tmp_path / "outside"
    (place / "sess").mkdir(parents=True)
    (place / "todo.md").write_text(TODO)
    (place / "sess" / "plan.md").write_text(TODO)
    return place


def _plant(repo: Path, outside: Path, how: str) -> tuple[str, str]:
    """Commit the link; return the session id and the plan path as `cast plans` would name it."""
    session = "2099-01-01-notes"
    plans = repo / ".cast" / "plans"
    plans.mkdir(parents=True)
    if how == "session dir":
        (plans / session).symlink_to(outside / "sess")
    else:
        (plans / session).mkdir()
        target = outside / "todo.md" if how == "absolute" else Path("../../../../outside/todo.md")
        (plans / session / "plan.md").symlink_to(target)
    assert (plans / session / "plan.md").read_text() == TODO  # the link works: cast must choose not to follow it
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plans")
    return session, f".cast/plans/{session}/plan.md"


@pytest.mark.parametrize("how", ["absolute", "relative", "session dir"])
def test_a_committed_plan_symlink_is_never_listed_nor_ticked_through(repo, outside, tmp_path, how):
    session, path = _plant(repo, outside, how)
    listed = invoke_cast(repo, "plans", "--all")
    assert session not in listed.stdout and "pay rent" not in listed.stdout, listed.stdout
    for ref in (None, session, path, str(repo / path)):
        script = write_script(tmp_path / "tick.jsonl", TICK)
        done = invoke_cast(repo, "--model", f"script:{script}", "execute", *([ref] if ref else []))
        assert done.returncode == 2, (ref, done.stdout, done.stderr)
        assert "pay rent" not in done.stdout, (ref, done.stdout)
    verified = invoke_cast(repo, "verify", path)
    assert verified.returncode == 2, verified.stdout
    assert (outside / "todo.md").read_text() == TODO and (outside / "sess" / "plan.md").read_text() == TODO
    assert sorted(p.name for p in outside.rglob("*")) == ["plan.md", "sess", "todo.md"]  # no temp file left beside them
