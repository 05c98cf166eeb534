"""Settings, merged in order of precedence: command-line flags > environment > project
`.cast/config.toml` > user `$XDG_CONFIG_HOME/cast/config.toml` > defaults.

Plain data on purpose: everything that is policy (limits, allow rules, prices) is a value here, so
changing behaviour never means changing code.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "claude-sonnet-5-5"

# USD per million tokens: input, output, cache read, cache write.
DEFAULT_PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-sonnet-4-5": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-sonnet-5-5": (2.0, 10.0, 0.10, 2.50),
}


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    model: str = DEFAULT_MODEL
    plan_model: str = ""  # empty: use `model`
    execute_model: str = ""
    fallback_model: str = ""
    max_steps: int = 60
    max_tokens: int = 8192
    thinking_budget: int = 0  # 0 disables extended thinking
    model_timeout: float = 120.0  # seconds per model call
    retries: int = 4
    retry_after_cap: float = 20.0  # seconds; the SDK honours retry-after without a cap
    bash_timeout: float = 120.0
    allow: tuple[str, ...] = ()  # execute-mode bash commands that run without asking (fnmatch patterns)
    age_threshold_tokens: int = 80_000  # shrink old observations past this context size (bench/bench_cache.py)
    compact_threshold_tokens: int = 150_000  # summarise the transcript past this
    keep_recent_steps: int = 6
    prices: dict[str, tuple[float, float, float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    def model_for(self, mode: str) -> str:
        specific = self.plan_model if mode == "plan" else self.execute_model
        return specific or self.model


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cast"


ENV_KEYS = {"CAST_MODEL": "model", "CAST_MAX_STEPS": "max_steps"}


def load(root: Path | None, **overrides: Any) -> Config:
    config = Config()
    for path in (config_dir() / "config.toml", root / ".cast" / "config.toml" if root else None):
        if path and path.is_file():
            config = _merge(config, _read_toml(path), str(path))
    env = {key: os.environ[var] for var, key in ENV_KEYS.items() if os.environ.get(var)}
    config = _merge(config, env, "environment")
    return _merge(config, {k: v for k, v in overrides.items() if v is not None}, "command line")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc


def _merge(config: Config, values: dict[str, Any], source: str) -> Config:
    known = {f.name: f for f in fields(Config)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown setting '{key}' (known: {', '.join(sorted(known))})")
        default = getattr(Config(), key)
        try:
            if isinstance(default, bool):
                changes[key] = bool(value)
            elif isinstance(default, int):
                changes[key] = int(value)
            elif isinstance(default, float):
                changes[key] = float(value)
            elif isinstance(default, tuple):
                changes[key] = tuple(str(v) for v in value)
            elif isinstance(default, dict):
                changes[key] = {**default, **{k: tuple(float(x) for x in v) for k, v in value.items()}}
            else:
                changes[key] = str(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: bad value for '{key}': {value!r}") from exc
    return replace(config, **changes)
