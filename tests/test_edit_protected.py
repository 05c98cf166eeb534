"""write_file and edit_file never touch `.git/` or `.cast/`: as given, through a symlink, in any
case, with the characters a case-folding or HFS+ file system ignores."""

from __future__ import annotations

import subprocess

import pytest

from cast.tools.base import ToolContext, run_tool
from cast.tools.edit import EDIT_FILE, WRITE_FILE
from cast.tools.files import READ_FILE
from cast.workspace import Workspace


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".cast").mkdir()
    (root / ".cast" / "config.toml").write_text('model = "x"\n')
    (root / "sub").mkdir()
    (root / "via").symlink_to(".git")
    (root / "castdir").symlink_to(".cast")
    return ToolContext(workspace=Workspace(root))


def tree(root):
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None) for p in root.rglob("*")}


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/info/attributes",
        ".cast/config.toml",
        ".cast/checkpoints/git/config",
        ".cast/plans/s/plan.md",
        ".CAST/x",
        ".Git/config",
        "sub/.git/config",
        "sub/../.cast/x",
        "via/config",
        "castdir/config.toml",
        ".cast\u200c/x",
        ".git./config",
        "{root}/.git/HEAD",
    ],
)
def test_write_file_refuses(ctx, path):
    root = ctx.workspace.root
    before = tree(root)
    obs = run_tool(WRITE_FILE, {"path": path.format(root=root), "content": "[core]\n\tfsmonitor = touch /tmp/x\n"}, ctx)
    assert not obs.ok and "never change" in obs.text, obs.text
    assert (".git/" in obs.text) or (".cast/" in obs.text)
    assert tree(root) == before


@pytest.mark.parametrize("path", [".git/config", ".cast/config.toml", "via/config", "castdir/config.toml"])
def test_edit_file_refuses_even_after_a_read(ctx, path):
    root = ctx.workspace.root
    assert run_tool(READ_FILE, {"path": path}, ctx).ok  # reading is fine
    before = tree(root)
    obs = run_tool(EDIT_FILE, {"path": path, "old_string": "[", "new_string": "[alias]\n[", "replace_all": True}, ctx)
    assert not obs.ok and "never change" in obs.text, obs.text
    assert tree(root) == before


@pytest.mark.parametrize("path", [".gitignore", ".github/workflows/ci.yml", "castle/x", "sub/.gitattributes", ".casting"])
def test_look_alikes_are_ordinary_files(ctx, path):
    assert run_tool(WRITE_FILE, {"path": path, "content": "ok\n"}, ctx).ok
    assert (ctx.workspace.root / path).read_text() == "ok\n"
