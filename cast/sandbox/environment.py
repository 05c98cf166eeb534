"""The environment a sandboxed command sees: an allowlist, not cast's own environment.

cast's process holds the user's API key and whatever else their shell exported (cloud
credentials, tokens, agent sockets). A sandboxed command gets only names known to be harmless,
the variables cast itself sets for the git it runs, and the names the user lists in
`sandbox_env_passthrough`; HOME and the temp dirs point into the command's scratch dir. The anchor
is Codex's `shell_environment_policy` (inherit core, exclude patterns, include_only, set), here as
data: KEEP and KEEP_PATTERNS say what may pass, SECRET_PATTERNS what never passes unless the user
named it exactly, and `sandbox_env` sets the rest.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

KEEP = frozenset(
    {
        *("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "COLUMNS", "LINES"),
        *("NO_COLOR", "CLICOLOR", "SOURCE_DATE_EPOCH", "PAGER", "CAST_REAL_GIT"),
        *("VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PYENV_VERSION", "JAVA_HOME", "GOROOT"),
        *("CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "NODE_PATH", "PYTHONUSERBASE", "VOLTA_HOME", "RBENV_ROOT", "GOPATH"),
        # what cast sets for the git it runs (cast/git.py): pinned repository, overridden config
        *("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT"),
        *("GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "GIT_ATTR_NOSYSTEM", "GIT_NO_LAZY_FETCH"),
        *("GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT", "GIT_PAGER", "GIT_PROTOCOL_FROM_USER", "GIT_ALLOW_PROTOCOL"),
    }
)
KEEP_PATTERNS = ("LC_*",)
CAST_PATTERNS = ("GIT_CONFIG_KEY_*", "GIT_CONFIG_VALUE_*")  # cast's git overrides: names that look secret, are not

# Never passed, even when a KEEP rule or a passthrough pattern matches; only a passthrough entry
# that names the variable exactly lets one through (the user's explicit choice).
SECRET_PATTERNS = (
    *("*KEY*", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*AUTH*", "*SESSION*"),
    *("ANTHROPIC_*", "OPENAI_*", "AWS_*", "GITHUB_*", "GH_*", "GOOGLE_*", "GCLOUD_*", "CLOUDSDK_*"),
    *("AZURE_*", "ARM_*", "DOCKER_*", "KUBECONFIG", "NPM_*", "PYPI_*", "TWINE_*", "HF_*", "HUGGING*"),
    *("SSH_*", "GPG_*", "DBUS_*", "XDG_RUNTIME_DIR", "*_PROXY", "*_proxy", "NETRC", "DATABASE_URL", "*_DSN"),
)

# Set for every sandboxed command; {scratch} is its private scratch dir.
SET = {
    "HOME": "{scratch}/home",
    "TMPDIR": "{scratch}",
    "TMP": "{scratch}",
    "TEMP": "{scratch}",
    "XDG_CACHE_HOME": "{scratch}/home/.cache",
    "XDG_CONFIG_HOME": "{scratch}/home/.config",
    "XDG_DATA_HOME": "{scratch}/home/.local/share",
    "XDG_STATE_HOME": "{scratch}/home/.local/state",
}


@lru_cache(maxsize=32)
def _pattern(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns) or "(?!)")


# Toolchains find themselves through HOME unless told otherwise; HOME is the scratch dir, so each
# is pointed at its real (read-only) place in the user's home when that exists and the variable
# is not set already. cast/sandbox/visible.py keeps these directories readable.
TOOLCHAIN_HOMES = {
    "PYTHONUSERBASE": ".local",  # pip install --user
    "PYENV_ROOT": ".pyenv",
    "RUSTUP_HOME": ".rustup",
    "CARGO_HOME": ".cargo",
    "NVM_DIR": ".nvm",
    "VOLTA_HOME": ".volta",
    "RBENV_ROOT": ".rbenv",
    "GOPATH": "go",
}


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return _pattern(tuple(patterns)).match(name) is not None


def secret(name: str) -> bool:
    return _matches(name.upper(), SECRET_PATTERNS)


def allowed(name: str, passthrough: Sequence[str] = ()) -> bool:
    """Whether `name` may reach a sandboxed command (the answer is kept: a command's environment
    holds the same hundred names every time, most of them cast's git overrides)."""
    return _allowed(name, tuple(passthrough))


@lru_cache(maxsize=4096)
def _allowed(name: str, passthrough: tuple[str, ...]) -> bool:
    if name in passthrough or _matches(name, CAST_PATTERNS):
        return True
    if secret(name):
        return False
    return name in KEEP or _matches(name, KEEP_PATTERNS) or _matches(name, passthrough)


def sandbox_env(env: Mapping[str, str], scratch: str, passthrough: Sequence[str] = (), make_home: bool = True) -> dict[str, str]:
    """`env` reduced to what may pass, with HOME, the temp dirs and XDG dirs inside `scratch`
    (HOME is created empty, unless the sandbox makes it: an in-memory scratch dir)."""
    names = tuple(passthrough)
    kept = {name: value for name, value in env.items() if _allowed(name, names)}
    home = env.get("HOME", "")
    for name, place in TOOLCHAIN_HOMES.items():
        if name not in kept and home and os.path.isdir(os.path.join(home, place)):
            kept[name] = os.path.join(home, place)
    for name, template in SET.items():
        kept[name] = template.format(scratch=scratch)
    if make_home:
        os.makedirs(kept["HOME"], exist_ok=True)
    return kept
