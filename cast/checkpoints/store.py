"""Where the checkpoint store lives, and why its git can be trusted to run nothing.

The store is cast's private state, never the workspace's: a cloned repository can commit
`.cast/checkpoints/git` with a `config` naming a filter program and a `.gitattributes` arming it,
or make `.cast/checkpoints` a symlink into `.git` or elsewhere; a model with a write tool can
write such files too. So the store lives outside the workspace, in a directory cast created for
this user (owner-only, no symlinked component), and whatever sits at `.cast/checkpoints` is
never read or written.

Even there, every open re-checks what makes git run programs, so a store is used only as cast
left it: its `config` and `info/attributes` are cast's own bytes (rewritten if they differ),
no component is a symlink, and there is no `commondir` or `gitdir` redirecting it. The
attributes are what switch filters, textconv, diff and merge drivers off for every path:
`$GIT_DIR/info/attributes` is the one attributes file that takes precedence over the work
tree's `.gitattributes` (`core.attributesFile` does not): `-filter` unsets any filter and `!diff`
`!merge` make any driver a `.gitattributes` names unspecified (git's built-in text diff and merge;
`-diff` would mean binary). With no system or global config
(cast/git.py) and no driver defined in the store's own config, no attribute could name one
anyway. Hooks, fsmonitor and the rest are off through cast's git runner.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from cast.checkpoints.objects import Entries
from cast.fsutil import atomic_write
from cast.state import StateError, private_dir, workspace_state_path

ATTRIBUTES = "* -text -crlf -eol -filter !diff !merge -ident -working-tree-encoding\n"
EXCLUDE = "/.cast/\n.git\n"
CONFIG = """\
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = true
\tautocrlf = false
\tsymlinks = true
\tquotePath = false
\tfsmonitor = false
\tuntrackedCache = true
\thooksPath = /dev/null
\tattributesFile = /dev/null
\texcludesFile = /dev/null
[gc]
\tauto = 0
\tautoDetach = false
[advice]
\taddEmbeddedRepo = false
[diff]
\trenames = false
[status]
\trenames = false
"""
OWN_FILES = {"config": CONFIG, "info/attributes": ATTRIBUTES, "info/exclude": EXCLUDE}
# What would make git read its configuration or objects from somewhere else.
REDIRECTS = ("commondir", "gitdir", "config.worktree")
BORROW = "borrowed-objects"  # the user's object directory, read through an alternate (see shadow.py)


class ShadowError(Exception):
    """The shadow repository could not be created or used; the message says why."""


class Shadow(Protocol):
    """What borrowing and path snapshots need of the shadow repository (shadow.py's Shadow),
    which imports them: where it is, its git, its HEAD and a commit of a tree."""

    root: Path
    dir: Path
    git_dir: Path
    borrowed: str | None
    max_bytes: int
    trees: tuple[str, dict[str, Entries | None]]  # path_snapshot.py's cache of HEAD's trees

    def git(
        self,
        *args: str,
        index: Path | None = None,
        data: bytes | None = None,
        borrow: bool = True,
        exits: tuple[int, ...] = (0,),
        **env: str,
    ) -> bytes: ...

    def head_tree(self) -> str: ...

    def _commit(self, tree: str) -> None: ...


class StoreError(Exception):
    """The checkpoint store is missing, not cast's, or not usable; the message says why.
    `exit_code` 2 when cast's private state itself is unsafe (as every command says it)."""

    exit_code = 1


def store_dir(root: Path) -> Path:
    """The store's directory for the workspace at `root` (computed only: nothing is created)."""

    return workspace_state_path(root) / "checkpoints"


def open_dir(root: Path, directory: Path) -> None:
    """Create the store's directory (or check it): cast's private state for `root`, every
    component a real directory of this user's alone (cast/state.py)."""

    if directory != store_dir(root):  # a store put elsewhere (a bench): checked by `verify` alone
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        return
    try:
        private_dir(root, "checkpoints")
    except StateError as exc:
        error = StoreError(f"checkpoint store: {exc}")
        error.exit_code = exc.exit_code
        raise error from None


def _owned_dir(path: Path, private: bool = True) -> None:
    """`path` is a real directory (not a symlink) of this user that nobody else can write
    (`private=False`: inside one that nobody else can enter, so its mode is git's and umask's)."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise StoreError(f"checkpoint store: {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"checkpoint store: {path} is not a directory (a symlink or a file); remove it")
    if info.st_uid != os.getuid() or (private and info.st_mode & 0o077):
        raise StoreError(f"checkpoint store: {path} is not this user's alone; remove it")


def verify(git_dir: Path) -> None:
    """Use a store only as cast made it: see the module's docstring."""
    _owned_dir(git_dir.parent)
    for sub in ("", "objects", "refs", "info", "objects/info", "objects/pack"):
        if os.path.lexists(git_dir / sub):
            _owned_dir(git_dir / sub, private=False)
    for name in REDIRECTS:
        if os.path.lexists(git_dir / name):
            raise StoreError(f"checkpoint store {git_dir} has a {name} file cast never writes; remove the store")
    for name, text in OWN_FILES.items():
        write_own(git_dir / name, text)


def write_own(path: Path, text: str) -> None:
    """`path` holds exactly `text`: left alone if it does, replaced (never followed) if not."""
    data = text.encode()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            same = os.fstat(fd).st_size == len(data) and os.read(fd, len(data) + 1) == data
        finally:
            os.close(fd)
        if same:
            return
    except OSError:
        pass
    atomic_write(path, data)


def create(git_dir: Path, init: Callable[[Path], None]) -> None:
    """A new bare store: `git init` in a temporary directory, cast's own files written, then
    renamed into place, so a store is either whole or absent."""
    tmp = git_dir.with_name(f"{git_dir.name}.new-{os.getpid()}")
    if os.path.lexists(tmp):
        import shutil

        shutil.rmtree(tmp)
    init(tmp)
    (tmp / "info").mkdir(exist_ok=True)
    for name, text in OWN_FILES.items():
        write_own(tmp / name, text)
    try:
        os.rename(tmp, git_dir)
    except OSError:  # another process made it first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    verify(git_dir)


def planted(root: Path) -> str | None:
    """A one-line notice when the workspace holds a `.cast/checkpoints` cast no longer uses
    (an old store, or something a repository committed): it is never read nor written."""
    path = Path(root) / ".cast" / "checkpoints"
    if os.path.lexists(path):
        return f"ignoring {path}: cast keeps checkpoints in its own state directory, never in the workspace"
    return None
