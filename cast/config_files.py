"""Where cast's config files are (the user's under $XDG_CONFIG_HOME/cast, a workspace's
.cast/config.toml) and how one is read: TOML, a repository's file as data (no symlink, at most
1 MB), any failure a ConfigError naming the file. Below config.py, trusted.py and config_tables.py,
which all read these files."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from cast.fsutil import read_settings  # a repository's file: no symlink, at most 1 MB


class ConfigError(Exception):
    pass


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cast"


def config_paths(root: Path | None) -> list[Path]:
    """The files `load` reads, lowest precedence first (they need not exist)."""
    return [config_dir() / "config.toml"] + ([root / ".cast" / "config.toml"] if root else [])


def read_toml(path: Path, repository: bool = False) -> dict[str, Any]:
    try:
        return tomllib.loads(read_settings(path, repository))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
