"""Where a workspace's git metadata lives outside it, believed only on git's own word.

A `.git` file (`gitdir: <path>`), the `commondir` in the directory it names and
`objects/info/alternates` are repository content: a release tarball, an sdist, a zip or a copied
directory can carry any of them, naming `~/.ssh`, `/tmp` or `/home`. So cast follows such a path
out of the workspace only when the other end links back, which repository content cannot forge
(it can only write inside the tree it came in):

- a linked worktree (`git worktree add`): the `.git` file names `<common>/worktrees/<id>`, whose
  `commondir` leads to `<common>` and whose `gitdir` file (written by git, outside the workspace)
  names this workspace's `.git` file;
- a submodule: the `.git` file names a directory beneath `modules/` in the git dir of a
  superproject, an ancestor of the workspace whose `.git` is a directory (or, in turn, a proven
  linked worktree or submodule: git keeps their submodules in their own git dirs).

Every path is resolved first (a symlink counts where it leads), and what is proven must look like
a git directory and must not hold the workspace. Anything else stays where it is: `locate`
reports it as unseen, and callers (the sandbox, the checkpoint store's borrowed objects, the
private index copy) show or take nothing from it. `core.worktree` is never followed at all: cast
pins `GIT_WORK_TREE` (cast/git.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

_MAX_LINK = 4096  # a `.git` file or `commondir` is one short line; more is not git's


@dataclass(frozen=True)
class GitMetadata:
    """`outside`: directories outside the workspace that git needs and git's back-link proves
    (the common dir of a linked worktree, a submodule's git dir). `unseen`: what repository
    content named outside the workspace that is not followed, one phrase each."""

    kind: str  # "none", "directory", "inside", "worktree", "submodule", "unproven"
    outside: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _first_line(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_LINK)
    except OSError:
        return None
    return os.fsdecode(data.splitlines()[0]).strip() if data.strip() else None


def _resolve(base: str, text: str) -> str:
    return os.path.realpath(os.path.join(base, text))


def looks_like_git_dir(path: str) -> bool:
    """git's own test (setup.c is_git_directory), without reading anything it names."""
    return all(
        (
            os.path.isfile(os.path.join(path, "HEAD")),
            os.path.isdir(os.path.join(path, "objects")),
            os.path.isdir(os.path.join(path, "refs")),
        )
    )


def _common_dir(gitdir: str) -> str | None:
    line = _first_line(os.path.join(gitdir, "commondir"))
    return _resolve(gitdir, line) if line else None


def _linked_worktree(root: str, gitdir: str) -> str | None:
    """The common dir when `gitdir` is `<common>/worktrees/<id>` and its back-link names `root/.git`."""
    common = _common_dir(gitdir)
    back = _first_line(os.path.join(gitdir, "gitdir"))
    if common is None or back is None:
        return None
    if os.path.dirname(gitdir) != os.path.join(common, "worktrees") or _resolve(gitdir, back) != os.path.join(root, ".git"):
        return None
    if not looks_like_git_dir(common) or inside(root, common):
        return None
    return common


def _submodule(root: str, gitdir: str) -> bool:
    """`gitdir` lies beneath `modules/` of the git dir of an ancestor of `root` (a superproject):
    one whose `.git` is a directory, or a proven linked worktree or submodule itself (git keeps a
    worktree's submodules in `<common>/worktrees/<id>/modules/`, a submodule's in its own)."""
    if _common_dir(gitdir) is not None or not looks_like_git_dir(gitdir) or inside(root, gitdir):
        return False
    ancestor = os.path.dirname(root)
    while ancestor != os.path.dirname(ancestor):
        base = _own_git_dir(ancestor)
        if base is not None and inside(gitdir, os.path.join(base, "modules")) and not inside(root, base):
            return True
        ancestor = os.path.dirname(ancestor)
    return False


def _own_git_dir(top: str) -> str | None:
    """The git dir of the work tree at `top`, when git's own links prove it (None otherwise)."""
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot) and not os.path.islink(dot):
        return os.path.realpath(dot)
    line = _first_line(dot) if os.path.isfile(dot) else None
    if not line or not line.startswith("gitdir:"):
        return None
    gitdir = _resolve(top, line.partition(":")[2].strip())
    if _linked_worktree(top, gitdir) is not None or _submodule(top, gitdir):
        return gitdir
    return None


def _alternates(objects: str, root: str, allowed: tuple[str, ...]) -> list[str]:
    try:
        with open(os.path.join(objects, "info", "alternates"), "rb") as handle:
            lines = os.fsdecode(handle.read(64 * 1024)).splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        path = _resolve(objects, line)
        if not inside(path, root) and not any(inside(path, a) for a in allowed):
            found.append(f"objects/info/alternates names {path}")
    return found


def locate(root: str) -> GitMetadata:
    """What of the workspace's git metadata lies outside it, and which of that git proves."""
    root = os.path.realpath(root)
    dot = os.path.join(root, ".git")
    if not os.path.lexists(dot):
        return GitMetadata("none")
    real = os.path.realpath(dot)
    if os.path.isdir(dot):
        if not inside(real, root):
            return GitMetadata("unproven", unseen=(f".git is a link to {real}",))
        common = _common_dir(real)
        unseen = [f".git/commondir names {common}"] if common and not inside(common, root) else []
        return GitMetadata("directory", unseen=tuple(unseen + _alternates(os.path.join(real, "objects"), root, ())))
    line = _first_line(dot) if os.path.isfile(dot) else None
    if not line or not line.startswith("gitdir:") or not line.partition(":")[2].strip():
        return GitMetadata("unproven", unseen=(".git is neither a directory nor a `gitdir:` file",))
    gitdir = _resolve(root, line.partition(":")[2].strip())
    common = _common_dir(gitdir)
    if inside(gitdir, root):
        if common is None or inside(common, root):
            objects = os.path.join(common or gitdir, "objects")
            return GitMetadata("inside", unseen=tuple(_alternates(objects, root, ())))
        return GitMetadata("unproven", unseen=(f"the commondir of {gitdir} names {common}, which no git back-link ties here",))
    proven = _linked_worktree(root, gitdir)
    kind = "worktree"
    if proven is None and _submodule(root, gitdir):
        proven, kind = gitdir, "submodule"
    if proven is None:
        return GitMetadata("unproven", unseen=(f".git names {gitdir}, which no git back-link ties to this workspace",))
    dirs = (proven,) if inside(gitdir, proven) else (proven, gitdir)
    return GitMetadata(kind, dirs, tuple(_alternates(os.path.join(proven, "objects"), root, dirs)))


def belongs(root: str, path: str) -> bool:
    """`path` (an index, an object dir git reported) is the workspace's own git metadata: inside
    the workspace or in what `locate` proves. cast copies or borrows nothing else."""
    root, real = os.path.realpath(root), os.path.realpath(path)
    return inside(real, root) or any(inside(real, p) for p in locate(root).outside)
