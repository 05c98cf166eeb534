"""The bubblewrap argv: the whole filesystem read-only, the user's home and the shared temp dirs
replaced by empty read-only tmpfs mounts (what toolchains need bound back read-only), the workspace and
the scratch dir bound in, and private pid, network, ipc and uts namespaces.

Under workspace-write the workspace is writable except its `.git` and `.cast`, bound back
read-only on top, so an approved command cannot plant a hook, git config or cast config that
would run outside the sandbox on the next git command or cast run. Only existing ones can be
covered (a mount point cannot be made without writing to the workspace).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cast.sandbox import visible

if TYPE_CHECKING:
    from cast.sandbox.grant import Policy

PROTECTED = (".git", ".cast")
# The launcher inside keeps these two only until the command starts: to cap the pid namespace
# and make the command's own one below it. The command itself runs with none.
LAUNCHER_CAPS = ("CAP_SYS_ADMIN", "CAP_SETPCAP")


def protected(root: str) -> list[str]:
    """`.git` and `.cast` of a writable workspace, resolved (a symlink's target inside the
    workspace is what must be covered)."""
    found = []
    for name in PROTECTED:
        path = os.path.join(root, name)
        if os.path.lexists(path):
            real = os.path.realpath(path)
            if visible.inside(real, [root]) and os.path.exists(real):
                found.append(real)
    return found


def args(
    policy: Policy,
    scratch: str | None,
    workspace: str | None,
    readable: list[str] | None = None,
    after_proc: list[str] | None = None,
    scratch_size: int | None = None,
) -> list[str]:
    """`after_proc` (direct.Handoff's options) runs the command with no launcher inside: no
    capability is kept for one, and its options land where they must, right after /proc is mounted.
    `scratch_size`: the scratch dir is a private tmpfs of that many bytes (scratch.py),
    not a host dir bound in; it lies in a hidden dir, still writable until the remount below."""
    argv = [
        "--die-with-parent",
        "--new-session",
        "--unshare-user-try",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
    ]
    for cap in LAUNCHER_CAPS if after_proc is None else ():
        argv += ["--cap-add", cap]
    if not policy.network:
        argv.append("--unshare-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *(after_proc or [])]
    seen = visible.view()
    hidden = list(seen.hidden)
    argv += _mounts(seen)
    shown = [workspace, *visible.git_dirs(workspace, seen)] if workspace else []
    for path in shown + (readable or []):
        if visible.inside(path, hidden):
            argv += ["--ro-bind", path, path]
    for path in policy.writable:
        argv += ["--bind", path, path]
        for inner in protected(path):
            argv += ["--ro-bind", inner, inner]
    for path in policy.overlay:
        argv += ["--overlay-src", path, "--tmp-overlay", path]
    if scratch and scratch_size is not None:
        argv += ["--perms", "0700", "--size", str(scratch_size), "--tmpfs", scratch, "--dir", os.path.join(scratch, "home")]
    elif scratch:
        argv += ["--bind", scratch, scratch]
    for path in hidden:  # last, once every mount point inside exists: a write there fails, as elsewhere
        argv += ["--remount-ro", path]
    return argv


_MOUNTS: dict[visible.View, list[str]] = {}


def _mounts(seen: visible.View) -> list[str]:
    """The part of the argv every command shares: the hidden dirs' tmpfs, the secret files'
    /dev/null, the toolchains bound back; built once per View (visible.view() says when that changes)."""
    if seen not in _MOUNTS:
        argv: list[str] = []
        for path in seen.hidden:
            argv += ["--tmpfs", path]
        for path in seen.hidden_files:
            argv += ["--ro-bind", "/dev/null", path]
        for path in seen.rebound:  # -try: a toolchain removed since the View was made is skipped
            argv += ["--ro-bind-try", path, path]
        _MOUNTS.clear()
        _MOUNTS[seen] = argv
    return list(_MOUNTS[seen])
