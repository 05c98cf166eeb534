"""cast's private state for a workspace: sessions, checkpoints, prompt history, plan revisions.

None of it lives in the repository, because a repository is untrusted input: a clone can commit
`.cast/sessions -> /anywhere`, a checkpoint store whose git config runs a program, or
`.cast/history -> ~/.bashrc`, and whatever cast then writes or runs follows it. So each workspace
gets a directory in the user's state dir, `$XDG_STATE_HOME/cast/workspaces/<name>-<hash>/`
(default ~/.local/state), named after the checkout and a hash of its real path.

cast creates every directory from `$XDG_STATE_HOME/cast` down with mode 0700 and verifies the
chain on every open, through directory descriptors opened with O_NOFOLLOW: each one is a real
directory (no symlink), owned by this user, and writable by nobody else; `$XDG_STATE_HOME` itself
may be the user's own symlink, but nobody else may be able to rename entries in it. Once that
holds, only the user (or root) can put anything in the chain or redirect it, so the paths handed
out stay safe to use afterwards. A directory readable by others but writable only by the user
(what an older cast left, with the default umask) is tightened to 0700: nobody else could have
planted anything in it. Anything else is a `StateError`, one line that says what to fix.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from cast.exits import EXIT_USAGE
from cast.text import slugify, terminal_safe

O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | O_CLOEXEC
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class StateError(Exception):
    """cast's private state cannot be used safely; the message names the path and the fix."""

    exit_code = EXIT_USAGE


def state_home() -> Path:
    """$XDG_STATE_HOME (an absolute path, as the spec requires), else ~/.local/state."""
    base = os.environ.get("XDG_STATE_HOME", "")
    return Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"


def workspace_state_path(root: Path) -> Path:
    """Where the state of the checkout at `root` lives; computed only, nothing is created or checked."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return state_home() / "cast" / "workspaces" / f"{slugify(Path(real).name or 'root')}-{digest}"


def workspace_state(root: Path) -> Path:
    """This workspace's private state directory, created if needed and verified (StateError if unsafe)."""
    path = workspace_state_path(root)
    _close(_open_chain(path.relative_to(state_home()).parts, create=True))
    return path


def existing_workspace_state(root: Path) -> Path | None:
    """The same, for readers: None while cast never created it; verified when it exists."""
    path = workspace_state_path(root)
    fd = _open_chain(path.relative_to(state_home()).parts, create=False)
    if fd is None:
        return None
    os.close(fd)
    return path


def private_dir(root: Path, name: str) -> Path:
    """A verified 0700 subdirectory of the workspace's state (`sessions`, `checkpoints`, `history`, ...)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a plain directory name: {name!r}")
    path = workspace_state_path(root) / name
    _close(_open_chain(path.relative_to(state_home()).parts, create=True))
    return path


def existing_private_dir(root: Path, name: str) -> Path | None:
    """`private_dir` for readers: None while it does not exist (nothing is created), verified when it does."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a plain directory name: {name!r}")
    fd = _open_chain((*workspace_state_path(root).relative_to(state_home()).parts, name), create=False)
    _close(fd)
    return None if fd is None else workspace_state_path(root) / name


def open_private_dir(root: Path, name: str) -> int:
    """`private_dir`, as a directory descriptor the caller closes: for `*at` calls that must not
    follow anything (`fsutil.write_at`, `os.open(..., dir_fd=)`)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a plain directory name: {name!r}")
    fd = _open_chain((*workspace_state_path(root).relative_to(state_home()).parts, name), create=True)
    assert fd is not None
    return fd


def _close(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _open_chain(parts: tuple[str, ...], create: bool) -> int | None:
    """Walk `parts` below $XDG_STATE_HOME by descriptor, creating (0700) and checking each
    directory; the last one's descriptor, or None when one is missing and `create` is false."""
    home = state_home()
    if create:
        try:
            os.makedirs(home, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise StateError(f"cannot create cast's state directory {home}: {exc.strerror}; set XDG_STATE_HOME") from None
    try:
        fd = os.open(home, _DIR_FLAGS)
    except FileNotFoundError:
        if create:
            raise StateError(f"cannot open cast's state directory {home}: it disappeared; set XDG_STATE_HOME") from None
        return None
    except OSError as exc:
        raise StateError(f"cannot open cast's state directory {home}: {exc.strerror}; set XDG_STATE_HOME") from None
    try:
        _check_home(fd, home)
        shown = home
        for part in parts:
            shown = shown / part
            child = _enter(fd, part, shown, create)
            os.close(fd)
            if child is None:
                return None
            fd = child
            _check_private(fd, shown)
    except BaseException:
        _close(fd)
        raise
    return fd


def _enter(parent: int, name: str, shown: Path, create: bool) -> int | None:
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=parent)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StateError(f"cannot create {shown}: {exc.strerror}") from None
    try:
        return os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except FileNotFoundError:
        if create:
            raise StateError(f"cannot open {shown}: it disappeared while cast created it") from None
        return None
    except OSError as exc:
        try:
            mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        except OSError:
            mode = 0
        if stat.S_ISLNK(mode):
            raise StateError(
                f"{shown} is a symlink; cast keeps its private state only in real directories it created: remove it"
            ) from None
        if mode and not stat.S_ISDIR(mode):
            raise StateError(f"{shown} is not a directory; cast keeps its private state there: move it away") from None
        raise StateError(f"cannot open {shown}: {exc.strerror}") from None


def _check_private(fd: int, shown: Path) -> None:
    info = os.fstat(fd)
    if info.st_uid != os.geteuid():
        raise StateError(
            f"{shown} belongs to another user (uid {info.st_uid}); cast uses only state directories it created for you: remove it"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        raise StateError(
            f"{shown} can be written by other users (mode {mode:o}); anything in it may be planted: remove it, cast recreates it"
        )
    if mode & 0o077:
        os.fchmod(fd, 0o700)  # readable by others only: nobody else could have written it, so keep it, private


def _check_home(fd: int, shown: Path) -> None:
    """$XDG_STATE_HOME may belong to the user or root; if others may write it, only a sticky
    directory (like /tmp) keeps them from renaming cast's directory away and planting another."""
    info = os.fstat(fd)
    if info.st_uid not in (os.geteuid(), 0):
        raise StateError(f"{shown} belongs to another user (uid {info.st_uid}); set XDG_STATE_HOME to a directory of yours")
    if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise StateError(f"{shown} can be written by other users (mode {stat.S_IMODE(info.st_mode):o}); set XDG_STATE_HOME")


_announced: set[str] = set()
_sink: list[Callable[[str], object]] = []


def announce(message: str) -> None:
    """Tell the user something about where cast keeps things, once per process: on stderr, or
    through the sink a front-end set (the REPL prints above its prompt)."""
    if message in _announced:
        return
    _announced.add(message)
    tell(message)


def tell(message: str) -> None:
    """A line for the user from wherever cast is (a model lookup in a worker thread too): the
    front-end's sink, else stderr. Raw stderr under a live REPL prompt would tear the screen."""
    if _sink:
        _sink[-1](message)
    else:
        sys.stderr.write(f"cast: {terminal_safe(message)}\n")


def set_announcer(sink: Callable[[str], object] | None) -> None:
    _sink.clear()
    if sink is not None:
        _sink.append(sink)
