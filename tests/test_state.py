"""cast's private state dir: created owner-only, verified on every open (no symlink in any
component from $XDG_STATE_HOME/cast down, owned by this user, writable by nobody else)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cast.state import (
    StateError,
    existing_private_dir,
    existing_workspace_state,
    open_private_dir,
    private_dir,
    state_home,
    workspace_state,
    workspace_state_path,
)


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "my project"
    root.mkdir()
    return root


def chain(ws: Path) -> list[Path]:
    """Every directory cast verifies, from $XDG_STATE_HOME/cast down to a private dir."""
    top = workspace_state_path(ws) / "sessions"
    return [p for p in (top, *top.parents) if state_home() in p.parents]


def test_created_owner_only_under_xdg_state_home_whatever_the_umask(ws):
    old = os.umask(0)
    try:
        path = private_dir(ws, "sessions")
    finally:
        os.umask(old)
    assert path == Path(os.environ["XDG_STATE_HOME"]) / "cast" / "workspaces" / path.parent.name / "sessions"
    assert path.parent.name.startswith("my-project-")
    for directory in chain(ws):
        assert directory.stat().st_mode & 0o777 == 0o700, directory


def test_one_directory_per_real_path(tmp_path, ws):
    other = tmp_path / "elsewhere" / "my project"
    other.mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(ws)
    assert workspace_state(ws) != workspace_state(other)
    assert workspace_state(link) == workspace_state(ws)  # the same checkout through a symlink of the user's


def test_readers_create_nothing(ws):
    assert existing_workspace_state(ws) is None and existing_private_dir(ws, "sessions") is None
    assert not (state_home() / "cast").exists()
    private_dir(ws, "sessions")
    assert existing_private_dir(ws, "sessions") == workspace_state_path(ws) / "sessions"


def test_relative_xdg_state_home_is_ignored(ws, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert state_home() == Path.home() / ".local" / "state"


@pytest.mark.parametrize("depth", range(4))  # cast, workspaces, <name>-<hash>, sessions
def test_a_symlink_at_any_component_is_refused(ws, tmp_path, depth):
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    target = list(reversed(chain(ws)))[depth]
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    target.symlink_to(outside)
    with pytest.raises(StateError, match="is a symlink"):
        private_dir(ws, "sessions")
    with pytest.raises(StateError, match="is a symlink"):
        existing_private_dir(ws, "sessions")
    assert list(outside.iterdir()) == []


def test_a_file_in_place_of_a_directory_is_refused(ws):
    workspace_state(ws)
    (workspace_state_path(ws) / "sessions").write_text("x")
    with pytest.raises(StateError, match="not a directory"):
        private_dir(ws, "sessions")


def test_writable_by_others_is_refused_readable_by_others_is_tightened(ws):
    path = private_dir(ws, "sessions")
    os.chmod(path.parent, 0o777)
    with pytest.raises(StateError, match="can be written by other users"):
        private_dir(ws, "sessions")
    os.chmod(path.parent, 0o755)  # what an older cast left with the default umask
    private_dir(ws, "sessions")
    assert path.parent.stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_owned_by_another_user_is_refused(ws):
    path = private_dir(ws, "sessions")
    os.chown(path, 12345, 12345)
    with pytest.raises(StateError, match="belongs to another user"):
        private_dir(ws, "sessions")


def test_a_state_home_others_may_write_is_refused_unless_sticky(ws, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("XDG_STATE_HOME", str(shared))
    with pytest.raises(StateError, match="can be written by other users"):
        workspace_state(ws)
    os.chmod(shared, 0o1777)  # like /tmp: nobody can rename another user's entries
    assert workspace_state(ws).is_dir()


def test_a_descriptor_of_the_private_dir(ws):
    fd = open_private_dir(ws, "checkpoints")
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(workspace_state_path(ws) / "checkpoints"))
    finally:
        os.close(fd)


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".", ""])
def test_names_are_plain(ws, name):
    with pytest.raises(ValueError):
        private_dir(ws, name)


def test_an_unsafe_state_dir_is_a_usage_error_for_the_checkpoint_commands_too(ws):
    """One line and exit 2, as `cast sessions` or `cast plan` say it: `cast checkpoints`, `undo`,
    `redo` and `diff` name the store and the path, and exit 2, not 1 as if nothing could be undone."""
    from conftest import invoke_cast

    from cast.checkpoints.journal import Journal

    (ws / "a.txt").write_text("a\n")
    Journal(ws).record("probe", None, None, None, "a store to open")
    path = private_dir(ws, "checkpoints")
    os.chmod(path.parent, 0o777)
    for args in (("checkpoints",), ("undo",), ("redo",), ("diff", "1")):
        done = invoke_cast(ws, *args)
        assert done.returncode == 2 and "can be written by other users" in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
