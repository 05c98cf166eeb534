"""What cast keeps between commands (the sandbox's view, cast/sandbox/visible.py; the proven
commands' environment, cast/tools/command_env.py) changed under it mid-session by a command or
a hostile repository: the next command must see the change, not the kept answer.

Commands run through cast's own runner (run_command) with the environment and the sandbox a
proven read-only command gets (cast/tools/orchestrator.py: read_only_env, READ_ONLY)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cast.sandbox import visible
from cast.sandbox.policy import READ_ONLY
from cast.tools.command_env import read_only_env
from cast.tools.process import run_command

AUTHOR = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def _git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True, env={**os.environ, **AUTHOR})


def _repo_with_a_dirty_file(root: Path) -> None:
    """A repository whose every file is run through the `evil` filter, and one modified file:
    `git diff` cleans it, running the filter's program unless cast's overrides empty it."""
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.txt").write_text("one\n")
    (root / ".gitattributes").write_text("* filter=evil\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "x")
    (root / "a.txt").write_text("two, longer\n")


def _ran(root: Path, marker: Path) -> bool:
    """`git diff` as a proven command: did the filter's program run?"""
    done = run_command("git diff >/dev/null 2>&1; true", root, 60, env=read_only_env(root), sandbox=None)
    assert done.exit_code == 0, done.output
    return marker.exists()


def test_a_filter_an_include_defines_mid_session_is_neutralised(tmp_path):
    """First command with no include; then .git/config gains an include naming a file that defines
    the filter. Kept stale, the environment would not empty `filter.evil.clean` and the marker
    would be written by git itself."""
    root, marker = tmp_path / "work", tmp_path / "FILTER-RAN"
    _repo_with_a_dirty_file(root)
    assert not _ran(root, marker)
    (tmp_path / "evil.cfg").write_text(f'[filter "evil"]\n\tclean = "touch {marker}; cat"\n')
    _git(root, "config", "include.path", str(tmp_path / "evil.cfg"))
    assert not _ran(root, marker)


def test_an_include_rewritten_in_place_with_its_mtime_set_back_is_seen(tmp_path):
    """A command rewrites an included file in place (same inode, same size: `filter.aaaa` becomes
    `filter.evil`) and sets its mtime back with `touch -r`. Only the ctime says it changed; kept
    on inode, size and mtime alone, the environment would still empty `aaaa`, not `evil`, and the
    filter would run."""
    root, marker = tmp_path / "work", tmp_path / "FILTER-RAN"
    _repo_with_a_dirty_file(root)
    include = root / "tools.cfg"  # in the workspace: a command there may write it
    include.write_text(f'[filter "aaaa"]\n\tclean = "touch {marker}; cat"\n')
    _git(root, "config", "include.path", "../tools.cfg")
    assert not _ran(root, marker)
    rewrite = (
        f"cp -p {include} {tmp_path}/stamp && "
        f"sed 's/aaaa/evil/' {include} > {tmp_path}/new && cat {tmp_path}/new > {include} && "
        f"touch -r {tmp_path}/stamp {include}"
    )
    assert run_command(rewrite, root, 60).exit_code == 0
    assert "evil" in include.read_text()
    assert not _ran(root, marker)


def test_fsmonitor_and_pager_set_by_a_new_include_stay_off(tmp_path):
    """An include added mid-session sets core.fsmonitor and core.pager to programs that write a
    marker; `git status` and `git log` as proven commands must run neither (git runs fsmonitor on
    status and the pager on log when they are not overridden)."""
    root, marker = tmp_path / "work", tmp_path / "HOOK-RAN"
    _repo_with_a_dirty_file(root)
    assert run_command("git status >/dev/null", root, 60, env=read_only_env(root)).exit_code == 0
    (tmp_path / "evil.cfg").write_text(f'[core]\n\tfsmonitor = "touch {marker}; false"\n\tpager = "touch {marker}; cat"\n')
    _git(root, "config", "include.path", str(tmp_path / "evil.cfg"))
    done = run_command("git status; git log -1", root, 60, env=read_only_env(root))
    assert done.exit_code == 0, done.output
    assert not marker.exists()


def test_a_dot_git_file_that_now_points_elsewhere_stops_showing_the_old_git_dir(layer, tmp_path):
    """A linked worktree's common dir is shown in the sandbox (git's back-link proves it). The
    workspace's `.git` is then made to name a directory outside: the common dir must no longer be
    readable. A stale git view would still bind it."""
    main, linked = tmp_path / "main", tmp_path / "linked"
    main.mkdir()
    _git(main, "init", "-q")
    _git(main, "commit", "-q", "--allow-empty", "-m", "x")
    _git(main, "worktree", "add", "-q", str(linked))
    (main / ".git" / "PLANTED").write_text("PLANTED-IN-GIT-DIR\n")
    first = run_command(f"cat {main}/.git/PLANTED", linked, 60, env=read_only_env(linked), sandbox=READ_ONLY)
    assert "PLANTED-IN-GIT-DIR" in first.output, first.output  # shown while it is proven
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (linked / ".git").write_text(f"gitdir: {elsewhere}\n")
    second = run_command(f"cat {main}/.git/PLANTED", linked, 60, env=read_only_env(linked), sandbox=READ_ONLY)
    assert "PLANTED-IN-GIT-DIR" not in second.output, second.output


def test_a_hidden_dir_replaced_by_a_symlink_hides_what_it_points_to(layer, tmp_path, monkeypatch):
    """A system secret dir, hidden, is replaced between two commands by a symlink to another dir
    holding a token. The view must hide the symlink's target; a stale one would hide only the old
    path and `cat` through the target would read the token."""
    work, secrets, target = tmp_path / "work", tmp_path / "var" / "secrets", tmp_path / "store"
    work.mkdir()
    secrets.mkdir(parents=True)
    target.mkdir()
    (target / "token").write_text("PLANTED-TOKEN\n")
    monkeypatch.setattr(visible, "SHARED_TEMP", ())  # only the table's entry may hide it, not /tmp's cover
    monkeypatch.setattr(visible, "SYSTEM_SECRETS", (str(secrets),))
    first = run_command("true", work, 60, sandbox=READ_ONLY)
    assert first.exit_code == 0, first.output
    secrets.rmdir()
    secrets.symlink_to(target)
    second = run_command(f"cat {secrets}/token; cat {target}/token", work, 60, sandbox=READ_ONLY)
    assert "PLANTED-TOKEN" not in second.output, second.output
