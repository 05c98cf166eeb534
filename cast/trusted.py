"""The record of which workspaces the user trusts to loosen cast's security settings through their
own `.cast/config.toml` (trust.py asks and says what it means; config.py reads this record).

The answer lives in the user's config dir, where no repository (and no command under
workspace-write) can write, keyed by the workspace's real path, so a symlink to a trusted directory
is trusted and a directory moved into its place after a `--revoke` is not. A "no" is remembered
too: the question is asked once, not at every run.
"""

from __future__ import annotations

import json
import os
import tomllib
from datetime import date
from pathlib import Path

from cast.config_files import ConfigError, config_dir
from cast.fsutil import atomic_write
from cast.state import private_dir

TRUSTED = "trusted"
UNTRUSTED = "untrusted"
HEADER = (
    "# Workspaces whose .cast/config.toml may loosen cast's security settings (sandbox, allow, models),\n"
    "# keyed by real path. Written by `cast trust`, `cast trust --revoke` and the question cast asks once.\n"
)


def store() -> Path:
    return config_dir() / "trusted.toml"


def key(root: Path) -> str:
    return os.path.realpath(root)


def _read() -> dict[str, dict[str, str]]:
    path = store()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    table = data.get("workspaces", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'workspaces' must be a table")
    return {name: entry for name, entry in table.items() if isinstance(entry, dict)}


def decision(root: Path) -> str | None:
    """ "trusted", "untrusted" (the user said no), or None (never asked)."""
    entry = _read().get(key(root))
    status = entry.get("status") if entry else None
    return status if status in (TRUSTED, UNTRUSTED) else None


def is_trusted(root: Path) -> bool:
    return decision(root) == TRUSTED


def record(root: Path, trusted: bool) -> Path:
    """Remember the user's answer for `root`; returns the file it went to."""

    entries = _read()
    entries[key(root)] = {"status": TRUSTED if trusted else UNTRUSTED, "since": date.today().isoformat()}
    lines = [HEADER, "[workspaces]\n"]
    for name, entry in sorted(entries.items()):
        fields = ", ".join(f"{field} = {json.dumps(str(value))}" for field, value in sorted(entry.items()))
        lines.append(f"{json.dumps(name)} = {{ {fields} }}\n")  # a JSON string is a TOML basic string
    path = store()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(lines).encode("utf-8"))
    return path


def said_before(root: Path, keys: list[str]) -> bool:
    """Whether the warning that these keys are ignored was shown here already: it is said once
    for each set of keys (kept in cast's private state), not again on every command after."""

    said = ",".join(sorted(keys))
    try:
        marker = private_dir(root, "notices") / "ignored-config"
        try:
            if marker.read_text(encoding="utf-8") == said:
                return True
        except FileNotFoundError:
            pass
        atomic_write(marker, said.encode("utf-8"))
    except (OSError, ValueError):
        return False  # nowhere to remember it: say it
    return False
