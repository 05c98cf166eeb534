"""The explore subagent's settings: `explore_model`, `explore_max_steps`, `explore_max_tokens`.

Parsed here, not by `cast.config` (they are `config_tables.OWN_KEYS`), because what a repository's
file may say about them is this module's rule: a project's `explore_model` sends the children's
requests to another model, so it counts only in a trusted workspace, as the project's `model`
does, and a `script:` model never comes from a repository at all. The ceilings may be set by
either file. Precedence as everywhere: defaults < the user's config.toml < the project's <
`CAST_EXPLORE_MODEL`. A bad value is a ConfigError naming the key and the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cast.config import ConfigError, warn_once
from cast.config_tables import raw
from cast.trust import is_trusted

KEYS = ("explore_model", "explore_max_steps", "explore_max_tokens")
ENV_MODEL = "CAST_EXPLORE_MODEL"


@dataclass(frozen=True)
class ExploreSettings:
    """`model` "": the cheapest current model the provider offers; `script:PATH` replays that
    script for each child. `max_tokens` is a child's token ceiling (prompt and output, all calls)."""

    model: str = ""
    max_steps: int = 20
    max_tokens: int = 400_000
    answer_chars: int = 8_000

    @classmethod
    def from_config(cls, config: Any) -> ExploreSettings:
        """From attributes of the same names (a test's stand-in for the files)."""
        default = cls()
        return cls(
            str(getattr(config, "explore_model", "") or "").strip(),
            int(getattr(config, "explore_max_steps", 0) or default.max_steps),
            int(getattr(config, "explore_max_tokens", 0) or default.max_tokens),
        )

    @classmethod
    def load(cls, root: Path | None) -> ExploreSettings:
        settings = cls()
        for scope, path, value in raw(root, "explore_model"):
            if not isinstance(value, str):
                raise ConfigError(f"{path}: bad value for 'explore_model': {value!r} (a model id or script:PATH)")
            ignored = _ignored(scope, root, value.strip())
            if ignored:
                warn_once(f"{path}: ignored explore_model: {ignored}")
                continue
            settings = replace(settings, model=value.strip())
        for key, field in (("explore_max_steps", "max_steps"), ("explore_max_tokens", "max_tokens")):
            for _, path, value in raw(root, key):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ConfigError(f"{path}: bad value for '{key}': {value!r} (a whole number of at least 1)")
                changed: dict[str, Any] = {field: value}
                settings = replace(settings, **changed)
        override = os.environ.get(ENV_MODEL, "").strip()
        return replace(settings, model=override) if override else settings


def _ignored(scope: str, root: Path | None, model: str) -> str:
    """Why a file's explore_model does not count ("" when it does)."""
    if scope != "project" or root is None:
        return ""
    if model.startswith("script:"):
        return "a script: model never comes from a repository's config (set it in your own config.toml)"

    if not is_trusted(root):
        return "a model setting counts only in a workspace you trust (`cast trust`)"
    return ""
