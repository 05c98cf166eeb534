"""What the sandbox shows is worked out once (visible.view) and used again while what decides it
holds: a secret directory that appears between two commands is hidden from the second, under
each layer, and the workspace's git view follows a `.git` that changes."""

from __future__ import annotations

import subprocess

import pytest

from cast.sandbox import visible
from cast.sandbox.policy import READ_ONLY
from cast.tools.process import run_command


def test_a_secret_dir_made_after_the_first_command_is_hidden_from_the_next(layer, tmp_path, monkeypatch):
    work, secrets = tmp_path / "work", tmp_path / "var" / "secrets"
    work.mkdir()
    (tmp_path / "var").mkdir()
    monkeypatch.setattr(visible, "SHARED_TEMP", ())  # only the table's entry may hide it, not /tmp's cover
    monkeypatch.setattr(visible, "SYSTEM_SECRETS", (str(secrets),))
    first = run_command("true", work, 30, sandbox=READ_ONLY)
    assert first.exit_code == 0 and str(secrets) not in visible.view().hidden
    secrets.mkdir()
    (secrets / "token").write_text("PLANTED-TOKEN\n")
    second = run_command(f"cat {secrets}/token", work, 30, sandbox=READ_ONLY)
    assert "PLANTED-TOKEN" not in second.output and str(secrets.resolve()) in visible.view().hidden


def test_the_view_is_kept_while_nothing_it_rests_on_changes(monkeypatch):
    first = visible.view()
    monkeypatch.setattr(visible, "_existing", lambda paths: pytest.fail("resolved the paths again"))
    assert visible.view() is first


def test_a_new_home_makes_a_new_view(tmp_path, monkeypatch):
    monkeypatch.setattr(visible, "SHARED_TEMP", ())  # the home itself, not the /tmp it lies in
    before = visible.view()
    monkeypatch.setenv("HOME", str(tmp_path))
    assert str(tmp_path.resolve()) in visible.view().hidden and str(tmp_path.resolve()) not in before.hidden


def test_the_git_view_follows_a_changed_dot_git(tmp_path):
    """A linked worktree's common dir is shown; once its `.git` file names nothing proven, not."""
    main, linked = tmp_path / "main", tmp_path / "linked"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=_author())
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(linked)], check=True)
    assert visible.git_dirs(str(linked)) == [str((main / ".git").resolve())]
    (linked / ".git").write_text(f"gitdir: {tmp_path / 'elsewhere'}\n")
    assert visible.git_dirs(str(linked)) == []


def _author() -> dict[str, str]:
    import os

    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }


def test_a_toolchain_dir_removed_after_the_view_does_not_break_commands(layer, tmp_path, monkeypatch):
    """Toolchains are bound with --ro-bind-try: one removed since the view was made is skipped."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".rbenv").mkdir(parents=True)
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert str((home / ".rbenv").resolve()) in visible.view().roots
    (home / ".rbenv").rmdir()
    done = run_command("echo ran", work, 30, sandbox=READ_ONLY)
    assert done.exit_code == 0 and "ran" in done.output, done.output


def test_one_command_looks_once_and_the_next_looks_again(layer, tmp_path, monkeypatch):
    """Its scratch dir, its mounts or rules and its git view come from one look at what is hidden
    (visible.one_look), and the next command looks again: a secret made between them is seen."""
    looks: list[int] = []
    key = visible._key
    monkeypatch.setattr(visible, "_key", lambda: looks.append(1) or key())
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for _ in range(2):
        done = run_command("true", tmp_path, 30, sandbox=READ_ONLY)
        assert done.exit_code == 0, done.output
    assert len(looks) == 2


def test_a_look_is_the_calling_threads_alone(monkeypatch):
    """Parallel read-only calls run on threads of their own: one's look holds nothing for another."""
    import threading

    looks: list[int] = []
    key = visible._key
    monkeypatch.setattr(visible, "_key", lambda: looks.append(1) or key())
    with visible.one_look():
        visible.view()
        other = threading.Thread(target=visible.view)
        other.start()
        other.join()
        visible.view()
    assert len(looks) == 2
