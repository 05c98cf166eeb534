"""Started from `/` or from the home directory itself outside git, cast refuses in one line (exit 2)
instead of making the whole filesystem or home its workspace and writing `.cast/` there. Any other
directory outside git, and a home that is a git work tree, stay workspaces as before."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, write_script
from conftest import invoke_cast as cast

PLAN_TURNS = [
    {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] Do it\n"}}]},
    {"text": "Planned."},
]


def refused(done: subprocess.CompletedProcess[str], where: str) -> bool:
    lines = done.stderr.splitlines()
    return (
        done.returncode == 2
        and len(lines) == 1
        and lines[0].startswith(f"cast: not starting in {where}")
        and "git init" in lines[0]
    )


def test_plan_execute_and_the_repl_refuse_the_home_directory(tmp_path):
    home = Path(os.environ["HOME"])  # conftest's own, outside git
    script = write_script(tmp_path / "s.jsonl", PLAN_TURNS)
    for args in (("plan", "do it"), ("execute",), ()):  # () : the bare REPL (no terminal here)
        done = cast(home, "--model", f"script:{script}", *args)
        assert refused(done, f"your home directory ({os.path.realpath(home)})"), (args, done.stderr, done.stdout)
    assert not (home / ".cast").exists()


def test_the_filesystem_root_is_refused_unless_it_is_a_git_work_tree():
    if subprocess.run(["git", "rev-parse"], cwd="/", capture_output=True, check=False).returncode == 0:
        pytest.skip("/ is inside a git work tree on this machine")
    assert refused(cast(Path("/"), "plan", "do it"), "the filesystem root (/)")
    assert not Path("/.cast").exists()


@pytest.mark.parametrize("place", ["subdirectory", "home in git"])
def test_other_directories_outside_git_and_a_home_in_git_still_plan(tmp_path, place):
    home = Path(os.environ["HOME"])
    where = home / "notes" if place == "subdirectory" else home
    where.mkdir(exist_ok=True)
    if place == "home in git":
        git(home, "init", "-q")
    done = cast(where, "--model", f"script:{write_script(tmp_path / 's.jsonl', PLAN_TURNS)}", "plan", "do it")
    assert done.returncode == 0, done.stderr
    assert list((where / ".cast" / "plans").glob("*/plan.md"))
