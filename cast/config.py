"""Settings, merged in order of precedence: command-line flags > environment > project
`.cast/config.toml` > user `$XDG_CONFIG_HOME/cast/config.toml` > defaults.

Plain data on purpose: everything that is policy (limits, allow rules, effort) is a value here, so changing behaviour never
means changing code. Each source is checked by a typed model before it is merged: a file gets exact types (`yolo = "false"` is
an error naming the key and the file, never `bool("false")`); the environment, where everything is a string, gets parsed
(`CAST_MAX_STEPS=10`). pydantic is imported only when a source has something to check, so a run without config pays nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from cast.config_files import ConfigError as ConfigError  # raised by every reader of config; imported from here
from cast.config_files import config_dir as config_dir
from cast.config_files import config_paths as config_paths
from cast.config_files import read_toml
from cast.config_tables import OWN_KEYS, OWN_LOOSENING
from cast.text import terminal_safe
from cast.trusted import is_trusted, said_before

DEFAULT_MODEL = "claude-sonnet-5-5"
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class Config:
    model: str = DEFAULT_MODEL
    provider: str = "anthropic"  # anthropic (ANTHROPIC_BASE_URL for a gateway), bedrock or vertex (cast/models/providers.py)
    plan_model: str = ""  # empty: use `model`
    execute_model: str = ""
    fallback_model: str = ""
    effort: str = ""  # output_config.effort: low, medium, high, xhigh, max; empty: the model's default
    plan_effort: str = ""  # per-mode override of `effort`
    execute_effort: str = ""
    max_steps: int = 60
    max_tokens: int = 0  # 0: per model and effort (64k at xhigh/max, else 32k; never above the model's max output)
    thinking_budget: int = 0  # no longer sent (today's models reject budget thinking); a set value maps onto effort
    model_timeout: float = 120.0  # seconds per model call
    retries: int = 4
    retry_after_cap: float = 20.0  # seconds; the SDK honours retry-after without a cap
    bash_timeout: float = 120.0
    allow: tuple[str, ...] = ()  # execute-mode bash commands that run without asking (fnmatch patterns)
    sandbox: str = "off"  # approved execute-mode commands: "off" (unconfined) or "workspace-write"
    sandbox_network: bool = False  # with sandbox = "workspace-write": may they use the network?
    plan_commands: str = "sandboxed"  # plan mode: also run unproven commands in the strong sandbox, or "proven" only
    sandbox_env_passthrough: tuple[str, ...] = ()  # variables sandboxed commands may see (names or fnmatch patterns)
    sandbox_limits: dict[str, int] = field(default_factory=dict)  # memory_mb, processes, file_size_mb, cpu_seconds
    # Past this context size old tool results are cleared (by the API) or shrunk (by cast) in
    # batches, all but the last `keep_recent_steps`; chosen with bench/bench_recall.py, which
    # charges the re-reads forgetting causes (docs/context-and-cost.md).
    age_threshold_tokens: int = 40_000
    compact_threshold_tokens: int = 150_000  # summarise the transcript past this
    keep_recent_steps: int = 2
    checkpoints: bool = True  # execute runs snapshot the tree for `cast undo`/`redo`/`diff`; false: off
    # Price overrides, USD per million tokens: input, output, cache read, cache write[, 1h cache write].
    # Today's list prices are built in (cast/agent/cost.py).
    prices: dict[str, tuple[float, ...]] = field(default_factory=dict)

    def model_for(self, mode: str) -> str:
        specific = self.plan_model if mode == "plan" else self.execute_model
        return specific or self.model

    def effort_for(self, mode: str) -> str:
        """The effort to send in `mode` ("" = let the model use its default)."""
        specific = self.plan_effort if mode == "plan" else self.execute_effort
        return specific or self.effort


ENV_KEYS = {"CAST_PROVIDER": "provider", "CAST_MODEL": "model", "CAST_MAX_STEPS": "max_steps", "CAST_EFFORT": "effort"}
_warned: set[str] = set()


def warn_once(message: str, write: Callable[[str], Any] | None = None) -> None:
    """A configuration warning, shown once per process however often the config is loaded."""
    if message in _warned:
        return
    _warned.add(message)

    (write or sys.stderr.write)(f"cast: warning: {terminal_safe(message)}\n")


def load(root: Path | None, *, model: str | None = None, max_steps: int | None = None) -> Config:
    """Defaults < ~/.config/cast < the workspace's .cast/config.toml < CAST_* < the command line.
    Files and the environment are checked against the typed model; the command line's values come
    already parsed (Options), so the REPL can open without loading pydantic. What the workspace's
    file may set is `layers` (below): a key that loosens security counts only if trusted."""
    config = Config()
    for source, values, whole in layers(root):
        if values != whole:
            _check(whole, source)  # every key of the file, counted or not: a typo is an error either way
        config = _merge(config, values, source)
    env = {var: key for var, key in ENV_KEYS.items() if os.environ.get(var)}
    for var, key in env.items():  # each checked on its own, so an error names the variable that was set
        config = _merge(config, {key: os.environ[var]}, f"environment variable {var}", strict=False)
    if max_steps is not None and max_steps < 1:
        raise ConfigError(f"command line: bad value for 'max_steps': {max_steps!r} (must be at least 1)")
    if model or "CAST_MODEL" in env:  # `--model X` / CAST_MODEL=X win over a file's per-mode models too
        config = replace(config, plan_model="", execute_model="")
    return replace(config, model=model or config.model, max_steps=max_steps or config.max_steps)


# What a workspace's .cast/config.toml may set on its own authority. The file comes with the repository (a clone carries
# one), so a key that could loosen security counts only in a workspace the user trusted (cast/trust.py); a value that
# keeps or tightens what the user has always counts. Each rule says whether the repository's value loosens the one it
# would replace (defaults, then the user's config.toml). A key missing from the table loosens (fail closed): a new setting
# gets a rule here when it is added. `script:` models never count from a repository, trusted or not.
Rule = Callable[[Any, Any], bool]


def _never(base: Any, value: Any) -> bool:
    return False


def _changes(base: Any, value: Any) -> bool:
    """Anything but the value already in force: a model, a provider, a URL, a program."""
    return bool(value != base)


def _ranked(*loosest_first: Any) -> Rule:
    """Loosens when it moves down the order (or off it: an unknown value is not trusted)."""

    def loosens(base: Any, value: Any) -> bool:
        if value == base:
            return False
        if value not in loosest_first or base not in loosest_first:
            return True
        return loosest_first.index(value) < loosest_first.index(base)

    return loosens


def _more_rules(base: Any, value: Any) -> bool:
    """An allow list loosens when it allows a pattern the list in force does not."""
    if not isinstance(value, list | tuple) or not isinstance(base, list | tuple):
        return True
    return not set(map(str, value)) <= set(map(str, base))


def _higher_limits(base: Any, value: Any) -> bool:
    """Sandbox limits loosen when one is higher than the one in force (the sandbox's default where
    none is set); lower ones only tighten."""
    from cast.sandbox.limits import Limits  # deferred: keeps cast.sandbox.limits off the REPL's first prompt

    defaults = Limits().__dict__ | (base if isinstance(base, dict) else {})
    return not isinstance(value, dict) or any(int(v) > int(defaults.get(k, 0)) for k, v in value.items())


LOOSENING: dict[str, Rule] = {
    "model": _changes,
    "plan_model": _changes,
    "execute_model": _changes,
    "fallback_model": _changes,
    "provider": _changes,
    "sandbox": _ranked("off", "workspace-write", "read-only"),
    "sandbox_network": _ranked(True, False),
    "allow": _more_rules,
    "sandbox_env_passthrough": _more_rules,  # each name is a secret a sandboxed command may see
    "sandbox_limits": _higher_limits,
    "plan_commands": lambda base, value: value == "sandboxed" and base != "sandboxed",
    "prices": _never,  # shown cost only
    "effort": _never,
    "plan_effort": _never,
    "execute_effort": _never,
    "max_steps": _never,
    "max_tokens": _never,
    "thinking_budget": _never,
    "model_timeout": _never,
    "retries": _never,
    "retry_after_cap": _never,
    "bash_timeout": _never,
    "age_threshold_tokens": _never,
    "compact_threshold_tokens": _never,
    "keep_recent_steps": _never,
    "checkpoints": _ranked(False, True),  # off takes away the user's undo
    **{key: OWN_LOOSENING.get(key, _never) for key in OWN_KEYS},  # parsed and gated by their own modules (cast/config_tables.py)
}
MODEL_KEYS = ("model", "plan_model", "execute_model", "fallback_model")


def _loosens(key: str, base: dict[str, Any], value: Any) -> bool:
    try:
        return LOOSENING.get(key, _changes)(base.get(key), value)
    except Exception:  # noqa: BLE001 — a value no rule can compare is not trusted
        return True


def _is_script(key: str, value: Any) -> bool:
    return key in MODEL_KEYS and isinstance(value, str) and value.strip().startswith("script:")


def _split(root: Path) -> tuple[Path, dict[str, Any], list[str], list[str]] | None:
    """The workspace's config file, its values, its script: model keys and its loosening keys
    (measured against the defaults and the user's config.toml); None without a file."""
    project = root / ".cast" / "config.toml"
    if not project.is_file():
        return None
    whole = read_toml(project, repository=True)
    user = config_dir() / "config.toml"
    base = {f.name: getattr(Config(), f.name) for f in fields(Config)} | (read_toml(user) if user.is_file() else {})
    scripts = sorted(k for k, v in whole.items() if _is_script(k, v))
    # An unknown key is a typo, refused with the known ones by `_check`, not a setting to ignore.
    loose = sorted(k for k, v in whole.items() if (k in base or k in OWN_KEYS) and k not in scripts and _loosens(k, base, v))
    return project, whole, scripts, loose


def loosening_keys(root: Path) -> list[str]:
    """The keys of the workspace's config that count only if it is trusted (script: models aside)."""
    split = _split(root)
    return split[3] if split else []


def layers(root: Path | None) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(source, the values that count, the whole file) for each config file, lowest precedence
    first. Read without pydantic (the REPL's model check uses it before its prompt). Says once,
    on stderr, which keys of the workspace's file were ignored and why."""
    user = config_dir() / "config.toml"
    found: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    if user.is_file():
        values = read_toml(user)
        found.append((str(user), values, values))
    split = _split(root) if root is not None else None
    if root is None or split is None:
        return found
    project, whole, scripts, loose = split
    if loose:
        if is_trusted(root):
            loose = []
        elif not said_before(root, loose):
            warn_once(
                f"{project}: ignored {', '.join(loose)}: settings that loosen security count only in a workspace "
                "you trust (`cast trust`)"
            )
    for key in scripts:
        warn_once(f"{project}: ignored {key}: a script: model never comes from a repository's config (use --model)")
    kept = {k: v for k, v in whole.items() if k not in scripts and k not in loose}
    return [*found, (str(project), kept, whole)]


def _check(values: dict[str, Any], source: str, strict: bool = True) -> Any:
    """`values` checked against the typed model: an unknown key or a wrong type is a ConfigError."""
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(values) - known - set(OWN_KEYS))
    if unknown:
        raise ConfigError(f"{source}: unknown setting '{unknown[0]}' (known: {', '.join(sorted(known | set(OWN_KEYS)))})")
    return _validate({k: v for k, v in values.items() if k not in OWN_KEYS}, source, strict)


def _merge(config: Config, values: dict[str, Any], source: str, *, strict: bool = True) -> Config:
    """`config` with the keys `values` sets, after checking them against the typed model."""
    if not values:
        return config
    checked = _check(values, source, strict)
    changes: dict[str, Any] = {}
    for key in checked.model_fields_set:  # OWN_KEYS are their modules' (cast/config_tables.py)
        value = getattr(checked, key)
        if key in ("allow", "sandbox_env_passthrough"):
            value = tuple(value)
        elif key == "prices":
            bad = next((name for name, rates in value.items() if len(rates) not in (4, 5)), None)
            if bad is not None:
                raise ConfigError(
                    f"{source}: bad value for 'prices.{bad}': give 4 or 5 numbers "
                    "(input, output, cache read, cache write[, 1h cache write])"
                )
            value = {**config.prices, **{name: tuple(rates) for name, rates in value.items()}}
        changes[key] = value
    if "thinking_budget" in changes:
        budget = changes.pop("thinking_budget")
        mapped = _budget_effort(budget)
        warn_once(
            f"{source}: thinking_budget is no longer used (today's models reject budget thinking); "
            + (
                f'using effort = "{mapped}" instead; set effort to silence this'
                if mapped and not (changes.get("effort") or config.effort)
                else "set effort (low, medium, high, xhigh, max) instead"
            )
        )
        if mapped and not (changes.get("effort") or config.effort):
            changes["effort"] = mapped
    return replace(config, **changes)


def _budget_effort(budget: int) -> str:
    """An old thinking budget, read as the effort it most resembles (0: none)."""
    return "" if budget <= 0 else "low" if budget <= 4_096 else "medium" if budget <= 16_384 else "high"


def _validate(values: dict[str, Any], source: str, strict: bool) -> Any:
    from pydantic import ValidationError

    try:
        return _schema().model_validate(values, strict=strict)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "?"
        raise ConfigError(f"{source}: bad value for '{key}': {error['input']!r} ({error['msg'].lower()})") from None


_SCHEMA: Any = None


def _schema() -> Any:
    """The typed model of one config source (every key optional), built on first use."""
    global _SCHEMA
    if _SCHEMA is None:
        from typing import Literal

        from pydantic import BaseModel, ConfigDict, Field, PositiveInt

        Effort = Literal["", "low", "medium", "high", "xhigh", "max"]

        def Positive() -> Any:
            return Field(default=None, gt=0)

        class ConfigSource(BaseModel):
            model_config = ConfigDict(extra="forbid")
            model: str | None = None
            provider: Literal["anthropic", "bedrock", "vertex"] | None = None
            plan_model: str | None = None
            execute_model: str | None = None
            fallback_model: str | None = None
            effort: Effort | None = None
            plan_effort: Effort | None = None
            execute_effort: Effort | None = None
            max_steps: int | None = Positive()
            max_tokens: int | None = Positive()
            thinking_budget: int | None = Field(default=None, ge=0)
            model_timeout: float | None = Positive()
            retries: int | None = Positive()
            retry_after_cap: float | None = Field(default=None, ge=0)
            bash_timeout: float | None = Positive()
            allow: list[str] | None = None
            sandbox: Literal["off", "workspace-write"] | None = None
            sandbox_network: bool | None = None
            plan_commands: Literal["sandboxed", "proven"] | None = None
            sandbox_env_passthrough: list[str] | None = None
            sandbox_limits: dict[Literal["memory_mb", "processes", "file_size_mb", "cpu_seconds"], PositiveInt] | None = None
            age_threshold_tokens: int | None = Positive()
            compact_threshold_tokens: int | None = Positive()
            keep_recent_steps: int | None = Field(default=None, ge=0)
            checkpoints: bool | None = None
            prices: dict[str, list[float]] | None = None

        _SCHEMA = ConfigSource
    return _SCHEMA
