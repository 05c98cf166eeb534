"""What a sandboxed command may read: the system, the toolchains it runs, the workspace and its
scratch dir; not the user's home or the machine's shared temp dirs.

One table for both Linux layers. Under bubblewrap the HIDDEN dirs become empty tmpfs mounts and
the reachable paths inside them are bound back read-only; under Landlock, which can only allow
reading beneath a path (never carve a hole in an allowed tree), reads are allowed beneath
SYSTEM_ROOTS and the same reachable paths, and nothing else. Either way `~/.ssh`, `~/.aws`,
`~/.config/gh`, `~/.netrc`, `~/.gnupg`, `~/.docker`, `~/.kube` and the rest of the home directory
are out of sight, and so are /tmp and /var/tmp (Kerberos tickets, other programs' sockets and
files).
"""

from __future__ import annotations

import os
import pwd
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# Read by the system's own programs; nothing of the user's lives here.
SYSTEM_ROOTS = (
    *("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/gnu", "/snap"),
    *("/dev", "/proc", "/sys", "/var/lib", "/var/cache", "/run/current-system"),
)
# Directories inside a home dir that hold toolchains, not credentials: shown read-only.
HOME_TOOLCHAINS = (
    *(".pyenv", ".rbenv", ".nvm", ".volta", ".rustup", ".cargo/bin", ".cargo/registry", ".cargo/git"),
    *(".local/bin", ".local/lib", "go/pkg/mod"),
    *(".deno/bin", ".bun/bin", "go/bin", ".sdkman/candidates", ".asdf/installs", ".asdf/shims"),
    *("miniconda3", "anaconda3", "miniforge3", ".elan/toolchains", ".ghcup/bin"),
)
SHARED_TEMP = ("/tmp", "/var/tmp")
# Secrets in system places: container and systemd credentials, per-user runtime dirs (agent
# sockets, keyrings), and root-only files a command run as root could read. Directories become
# empty under bubblewrap and files /dev/null; under Landlock none of them is in SYSTEM_ROOTS but
# the /etc ones, which it cannot carve out of /etc.
SYSTEM_SECRETS = (
    *("/run/secrets", "/run/credentials", "/run/user", "/var/run/secrets"),
    *("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh", "/etc/ssl/private"),
)


def homes() -> list[str]:
    """The user's home dirs: $HOME and the password database's, plus /home and /root."""
    return list(_homes(os.environ.get("HOME", "")))


@lru_cache(maxsize=8)
def _homes(home: str) -> tuple[str, ...]:
    found = [home, "/home", "/root"]
    try:
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    return tuple(_existing(found))


@dataclass(frozen=True)
class View:
    """What every sandboxed command sees, worked out once (`view()`): the dirs hidden behind empty
    tmpfs mounts, the secret files covered with /dev/null, the toolchains bound back, and the
    trees Landlock allows reads beneath (before the command's own workspace is added)."""

    hidden: tuple[str, ...]
    hidden_files: tuple[str, ...]
    rebound: tuple[str, ...]
    roots: tuple[str, ...]


_VIEW: list[tuple[object, View]] = []


def view() -> View:
    """The View, computed again only when something that decides what is hidden changed: $HOME,
    $PATH, the tables above, the homes, or what an lstat finds at a home, a shared temp dir or a
    system secret (one appearing, vanishing or turning into a symlink). Resolving every path (a
    realpath per component, a few milliseconds per command) is what it saves. What is only shown
    is not re-checked per command: a toolchain dir made later in the session is seen by the next
    cast process, and one removed is skipped (bwrap.py binds them with --ro-bind-try; Landlock
    skips a path that is gone)."""
    held = _held()
    if held is not None and "view" in held:
        return held["view"]  # type: ignore[return-value]
    key = _key()
    if _VIEW and _VIEW[0][0] == key:
        found = _VIEW[0][1]
    else:
        found = _view_now()
        _VIEW[:] = [(key, found)]
    if held is not None:
        held["view"] = found
    return found


def _view_now() -> View:
    hidden = tuple(_outermost(homes() + _existing(SHARED_TEMP) + _existing([p for p in SYSTEM_SECRETS if os.path.isdir(p)])))
    files = tuple(sorted({os.path.realpath(p) for p in SYSTEM_SECRETS if os.path.isfile(p)}))
    reachable = _reachable(os.environ.get("HOME", ""), os.environ.get("PATH", ""))
    rebound = tuple(p for p in reachable if inside(p, list(hidden)) and p not in hidden)
    roots = tuple(_outermost(_existing(list(SYSTEM_ROOTS) + list(reachable))))
    return View(hidden, files, rebound, roots)


_LOOK = threading.local()  # parallel read-only calls run their commands on threads of their own


@contextmanager
def one_look() -> Iterator[None]:
    """Inside, view() and the git view are checked once: every part of one command that asks (its
    scratch dir, its mounts, the planner's note about git) gets the answer of the first, so the
    parts agree with each other and the lstats are not repeated for each. The next command looks
    again, as before."""
    if _held() is not None:  # an outer look holds already
        yield
        return
    _LOOK.held = {}
    try:
        yield
    finally:
        _LOOK.held = None


def _held() -> dict[object, object] | None:
    return getattr(_LOOK, "held", None)


def _key() -> tuple[object, ...]:
    home, path = os.environ.get("HOME", ""), os.environ.get("PATH", "")
    found = tuple(homes())
    tables = (SYSTEM_ROOTS, HOME_TOOLCHAINS, SHARED_TEMP, SYSTEM_SECRETS)
    return home, path, found, tables, tuple(_mark(p) for p in _looked(home, found, SHARED_TEMP, SYSTEM_SECRETS))


@lru_cache(maxsize=8)
def _looked(home: str, found: tuple[str, ...], temp: tuple[str, ...], secrets: tuple[str, ...]) -> tuple[str, ...]:
    """The paths whose lstat view() compares for each command (the list itself is kept)."""
    return tuple(sorted({*found, "/home", "/root", home, *temp, *secrets}))


def _mark(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return st.st_mode, st.st_ino, st.st_dev


def hidden() -> list[str]:
    return list(view().hidden)


def hidden_files() -> list[str]:
    return list(view().hidden_files)


def _existing(paths: list[str] | tuple[str, ...]) -> list[str]:
    real = [os.path.realpath(p) for p in paths if p and p != "/" and os.path.isdir(p)]
    return sorted(set(real))


def _outermost(paths: list[str]) -> list[str]:
    return [p for p in paths if not any(p != q and p.startswith(q + "/") for q in paths)]


def _venv_root(entry: str) -> str | None:
    parent = os.path.dirname(entry)
    return parent if os.path.isfile(os.path.join(parent, "pyvenv.cfg")) else None


def reachable() -> list[str]:
    """What a command needs to read wherever it lives: cast itself (the launcher and the git shim),
    the Python running it, the PATH's directories (and a venv's root), and known toolchains."""
    return list(_reachable(os.environ.get("HOME", ""), os.environ.get("PATH", "")))


_PACKAGE = str(Path(__file__).resolve().parents[2])


def _reachable(home: str, path: str) -> tuple[str, ...]:
    paths = [_PACKAGE, sys.prefix, sys.base_prefix, sys.exec_prefix]
    for entry in path.split(os.pathsep):
        if os.path.isabs(entry):
            paths += [entry, _venv_root(entry) or ""]
    for found in _homes(home):
        paths += [os.path.join(found, name) for name in HOME_TOOLCHAINS]
    return tuple(_outermost(_existing(paths)))


def git_dirs(root: str, seen: View | None = None) -> list[str]:
    """Where the workspace's repository really lives when `.git` is a file, so git inside the
    sandbox can read it: only what git's own back-link ties to this workspace (cast/gitdir.py),
    and never a hidden location itself or a directory holding one (a common dir that is `$HOME`
    or `/tmp` would show all of it)."""
    return list(_git_view(os.path.realpath(root), seen)[0])


def git_unseen(root: str) -> str | None:
    """The one sentence the planner and `cast doctor` give when git metadata the repository names
    outside the workspace stays out of the sandbox; None when there is none."""
    unseen = _git_view(os.path.realpath(root))[1]
    if not unseen:
        return None
    return f"git metadata outside the workspace is not visible: {'; '.join(unseen)}"


_GIT_VIEWS: dict[str, tuple[object, tuple[tuple[str, ...], tuple[str, ...]]]] = {}


def _git_view(root: str, seen: View | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Worked out again when the workspace's `.git` (its lstat, and its text when it is a file),
    the View or what was found outside (each dir's lstat) changed; a back-link edited in place
    elsewhere, with all of those the same, is seen by a new process."""
    held = _held()
    if held is None:
        return _git_view_kept(root, seen)
    seen = seen or view()
    kept = held.get(("git", root))
    if isinstance(kept, tuple) and kept[0] is seen:
        return kept[1]  # type: ignore[no-any-return]
    found = _git_view_kept(root, seen)
    held[("git", root)] = (seen, found)
    return found


def _git_view_kept(root: str, seen: View | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    dot = os.path.join(root, ".git")
    covered = (*(seen or view()).hidden, *homes())
    key = (_mark(dot), _text(dot), covered)
    cached = _GIT_VIEWS.get(root)
    if cached is not None and cached[0] == key and all(_is_dir(p) for p in cached[1][0]):
        return cached[1]
    found = _git_view_now(root, list(covered))
    _GIT_VIEWS[root] = (key, found)
    return found


def _text(path: str) -> bytes | None:
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(4096)
    except OSError:
        return None


def _is_dir(path: str) -> bool:
    mark = _mark(path)
    return mark is not None and stat.S_ISDIR(mark[0])


def _git_view_now(root: str, covered: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from cast.gitdir import locate  # deferred: keeps cast.gitdir off the one-shot first request

    found = locate(root)
    shown = tuple(p for p in found.outside if not any(p == h or inside(h, [p]) for h in covered))
    refused = [f"{p} is or holds a hidden location" for p in found.outside if p not in shown]
    return shown, (*found.unseen, *refused)


def inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root + "/") for root in roots)


def rebound(hidden_dirs: list[str]) -> list[str]:
    """The reachable paths that lie in a hidden dir, so bubblewrap binds them back."""
    return [p for p in reachable() if inside(p, hidden_dirs) and p not in hidden_dirs]


def readable(extra: list[str]) -> list[str]:
    """Under Landlock: every tree reads are allowed beneath."""
    return _outermost(sorted({*view().roots, *_existing(extra)}))
