"""Where secrets live, and where a command may read when no kernel layer stands behind the checker.

Refused in every mode (under the sandbox most of these reads would fail anyway, but a reason
naming the path beats a confusing "No such file"): the user's credentials beneath their home,
another user's home, the system's password hashes and host keys, container and systemd
credentials, and what other processes hold (``/proc/*/environ``: cast's own environment is
there). Without a kernel layer (the checker's strict mode) a path must also lie where
``read_file`` would read, or in the system's own directories: the workspace, ``/usr``, ``/etc``
and the like, minus those secrets; never the home directory outside the workspace.
"""

from __future__ import annotations

import fnmatch
import os
import pwd
from functools import lru_cache

# Beneath the user's home: credentials, keys, tokens, keychains, cast's own private state.
HOME_SECRETS = (
    *(".ssh", ".aws", ".gnupg", ".netrc", ".kube", ".docker", ".config/gh", ".config/hub", ".config/gcloud"),
    *(".azure", ".password-store", ".git-credentials", ".config/git/credentials", ".npmrc", ".pypirc", ".pgpass"),
    *(".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".vault-token", ".terraform.d"),
    *(".local/share/keyrings", "Library/Keychains", ".authinfo", ".authinfo.gpg", ".my.cnf", ".config/op"),
    *(".local/state/cast", ".config/cast", ".mozilla", ".config/google-chrome", ".config/chromium"),
)
# Everyone's homes; the user's own is confined (strict mode) rather than refused outright.
HOMES = ("/root", "/home/*", "/Users/*", "/var/root")
SYSTEM_SECRETS = (
    *("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh/ssh_host_*key", "/etc/ssl/private"),
    *("/run/secrets", "/run/credentials", "/run/user", "/var/run/secrets", "/Library/Keychains"),
    *("/proc/*/environ", "/proc/*/task/*/environ", "/proc/*/mem", "/proc/*/task/*/mem", "/proc/*/root", "/proc/*/cwd"),
)
# Strict mode: the system's own directories, read by its programs (as the kernel layer's list).
SYSTEM_ROOTS = (
    *("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/gnu", "/snap"),
    *("/dev", "/proc", "/sys", "/var/lib", "/var/cache", "/run/current-system"),
)


def user_homes() -> tuple[str, ...]:
    """The user's home as ``~`` expands it, then as the password database has it."""
    found = [os.path.expanduser("~"), *_password_home(os.getuid())]
    out: list[str] = []
    for home in found:
        if home and home != "/":
            out += [os.path.normpath(home), os.path.realpath(home)]
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=4)
def _password_home(uid: int) -> tuple[str, ...]:
    """The password database's home for `uid`, read once per process (as visible.py's homes): a
    lookup reads /etc/passwd, once for every command checked otherwise. The paths are still
    resolved for each command."""
    try:
        return (pwd.getpwuid(uid).pw_dir,)
    except KeyError:
        return ()


def secret(path: str, homes: tuple[str, ...], root: str, *, beneath: bool = False) -> str | None:
    """Why ``path`` (absolute, normalised) is a secret, or None. With ``beneath``, a directory
    read recursively is refused when a secret lies inside it. The workspace (``root``) is never
    another user's home, even when it lies in one."""
    for home in homes:
        for name in HOME_SECRETS:
            place = os.path.join(home, name)
            if _within(path, place) or (beneath and _within(place, path)):
                return f"{place} holds the user's credentials"
    for pattern in SYSTEM_SECRETS:
        if _matches(path, pattern) or (beneath and _pattern_beneath(pattern, path)):
            return f"{pattern} holds secrets of the system or of other processes"
    if _within(path, root):
        return None
    for pattern in HOMES:
        for place in _homes_matching(pattern, path):
            if not _own(place, homes):
                return f"{place} is another user's home"
        if beneath and _others_beneath(pattern, path, homes):
            return f"{path} holds other users' homes"
    return None


def _own(place: str, homes: tuple[str, ...]) -> bool:
    return any(_within(home, place) or _within(place, home) for home in homes)


def confined(path: str, root: str) -> bool:
    """May a command read ``path`` with no kernel layer? The workspace and the system's own dirs."""
    return _within(path, root) or any(_within(path, top) for top in SYSTEM_ROOTS)


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _matches(path: str, pattern: str) -> bool:
    """``path`` is the place ``pattern`` names (``*`` is one component) or lies beneath it."""
    parts, want = path.split("/"), pattern.split("/")
    return len(parts) >= len(want) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, want))


def _pattern_beneath(pattern: str, path: str) -> bool:
    """Could a place ``pattern`` names lie inside directory ``path``?"""
    parts = [p for p in path.split("/") if p]
    want = [w for w in pattern.split("/") if w]
    return len(parts) < len(want) and all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, want))


def _homes_matching(pattern: str, path: str) -> list[str]:
    want = pattern.split("/")
    parts = path.split("/")
    if len(parts) < len(want) or not all(fnmatch.fnmatchcase(p, w) for p, w in zip(parts, want)):
        return []
    return ["/".join(parts[: len(want)])]


def _others_beneath(pattern: str, path: str, homes: tuple[str, ...]) -> bool:
    """A tree read from ``path`` reaches into a home that is not the user's."""
    if not _pattern_beneath(pattern, path):
        return False
    if "*" not in pattern:
        return not _own(pattern, homes)
    base = os.path.dirname(pattern)
    try:
        names = os.listdir(base)
    except OSError:
        return False
    return any(not _own(os.path.join(base, name), homes) for name in names)
