"""edit_file / write_file against real files, including changes made behind the model's back."""

from __future__ import annotations

import os

import pytest

from cast.tools.base import ToolContext, run_tool
from cast.tools.edit import EDIT_FILE, WRITE_FILE
from cast.tools.files import READ_FILE
from cast.workspace import Workspace


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    return ToolContext(workspace=Workspace(root))


def read(ctx, path="app.py"):
    assert run_tool(READ_FILE, {"path": path}, ctx).ok


def edit(ctx, **arguments):
    return run_tool(EDIT_FILE, {"path": "app.py", **arguments}, ctx)


def test_edit_needs_a_read_first(ctx):
    obs = edit(ctx, old_string="def f", new_string="def h")
    assert not obs.ok and "read_file it first" in obs.text


def test_unique_match_edits_and_returns_a_diff(ctx):
    read(ctx)
    obs = edit(ctx, old_string="def f():\n    return 1", new_string="def f():\n    return 2")
    assert obs.ok and obs.changed == ("app.py",)
    assert "-    return 1" in obs.text and "+    return 2" in obs.text and "--- a/app.py" in obs.text
    assert (ctx.workspace.root / "app.py").read_text().count("return 2") == 1


def test_ambiguous_match_is_refused_unless_replace_all(ctx):
    read(ctx)
    obs = edit(ctx, old_string="return 1", new_string="return 3")
    assert not obs.ok and "occurs 2 times" in obs.text
    assert (ctx.workspace.root / "app.py").read_text().count("return 1") == 2
    assert edit(ctx, old_string="return 1", new_string="return 3", replace_all=True).ok
    assert (ctx.workspace.root / "app.py").read_text().count("return 3") == 2


def test_missing_text_is_refused_with_a_whitespace_hint(ctx):
    read(ctx)
    obs = edit(ctx, old_string="def f():\n  return 1", new_string="x")
    assert not obs.ok and "not found" in obs.text and "whitespace" in obs.text


def test_file_changed_behind_the_models_back_is_refused(ctx):
    read(ctx)
    (ctx.workspace.root / "app.py").write_text("def f():\n    return 1  # edited by the user\n")
    obs = edit(ctx, old_string="return 1", new_string="return 2")
    assert not obs.ok and "changed on disk since you read it" in obs.text
    assert "edited by the user" in (ctx.workspace.root / "app.py").read_text()


def test_consecutive_edits_do_not_count_as_stale(ctx):
    read(ctx)
    assert edit(ctx, old_string="def f", new_string="def f1").ok
    assert edit(ctx, old_string="def g", new_string="def g1").ok


def test_write_file_creates_and_refuses_stale_overwrite(ctx):
    obs = run_tool(WRITE_FILE, {"path": "pkg/new.py", "content": "x = 1\n"}, ctx)
    assert obs.ok and "created pkg/new.py (6 bytes" in obs.text
    read(ctx)
    (ctx.workspace.root / "app.py").write_text("changed\n")
    stale = run_tool(WRITE_FILE, {"path": "app.py", "content": "mine\n"}, ctx)
    assert not stale.ok and (ctx.workspace.root / "app.py").read_text() == "changed\n"


def test_write_file_outside_the_workspace_is_refused(ctx, tmp_path):
    for path in ("../escape.txt", str(tmp_path / "escape.txt")):
        obs = run_tool(WRITE_FILE, {"path": path, "content": "x"}, ctx)
        assert not obs.ok and "outside the workspace" in obs.text
    os.symlink(tmp_path, ctx.workspace.root / "link")
    assert "symlink" in run_tool(WRITE_FILE, {"path": "link/escape.txt", "content": "x"}, ctx).text
    assert not (tmp_path / "escape.txt").exists()


def test_write_preserves_file_mode(ctx):
    script = ctx.workspace.root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    read(ctx, "run.sh")
    assert run_tool(WRITE_FILE, {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}, ctx).ok
    assert script.stat().st_mode & 0o777 == 0o755
