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
import sys
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


def hidden() -> list[str]:
    return _outermost(homes() + _existing(SHARED_TEMP) + _existing([p for p in SYSTEM_SECRETS if os.path.isdir(p)]))


def hidden_files() -> list[str]:
    return sorted({os.path.realpath(p) for p in SYSTEM_SECRETS if os.path.isfile(p)})


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


def _reachable(home: str, path: str) -> tuple[str, ...]:
    package = str(Path(__file__).resolve().parents[2])
    paths = [package, sys.prefix, sys.base_prefix, sys.exec_prefix]
    for entry in path.split(os.pathsep):
        if os.path.isabs(entry):
            paths += [entry, _venv_root(entry) or ""]
    for found in _homes(home):
        paths += [os.path.join(found, name) for name in HOME_TOOLCHAINS]
    return tuple(_outermost(_existing(paths)))


def git_dirs(root: str) -> list[str]:
    """Where the workspace's repository really lives when `.git` is a file, so git inside the
    sandbox can read it: only what git's own back-link ties to this workspace (cast/gitdir.py),
    and never a hidden location itself or a directory holding one (a common dir that is `$HOME`
    or `/tmp` would show all of it)."""
    return list(_git_view(os.path.realpath(root))[0])


def git_unseen(root: str) -> str | None:
    """The one sentence the planner and `cast doctor` give when git metadata the repository names
    outside the workspace stays out of the sandbox; None when there is none."""
    unseen = _git_view(os.path.realpath(root))[1]
    if not unseen:
        return None
    return f"git metadata outside the workspace is not visible: {'; '.join(unseen)}"


def _git_view(root: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from cast.gitdir import locate

    found = locate(root)
    covered = [*hidden(), *homes()]
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
    return _outermost(_existing(list(SYSTEM_ROOTS) + reachable() + extra))
