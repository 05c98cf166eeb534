"""What `cast doctor` says about the model side: which model, whether it can be used and until
when, where cast's facts about it came from, whether a key is set, and which config files count.

Why separate from the checks' runner: these answers come from the same lookup a run uses, so the
doctor and a run never disagree about a model.
"""

from __future__ import annotations

import os
from pathlib import Path

from cast.config import ConfigError, config_paths, load
from cast.models.base import ModelError
from cast.models.lookup import lookup
from cast.models.providers import Provider
from cast.text import tokens
from cast.workspace import Workspace

SOURCES = {
    "api": "the Models API",
    "cache": "the Models API (cached today)",
    "built-in": "cast's built-in table",
    "assumed": "nowhere: not in cast's table and the Models API could not be asked",
}


def model_status(root: Path | None) -> list[tuple[str, bool, str]]:
    """One (name, ok, detail) per distinct model the config selects (plan and execute may differ)."""

    try:
        config = load(root)
        provider = Provider.from_config(config)
    except (ConfigError, ModelError) as exc:
        return [("model", False, f"config error: {exc}")]
    rows: list[tuple[str, bool, str]] = []
    seen: set[str] = set()
    for mode in ("plan", "execute"):
        model_id = config.model_for(mode)
        if model_id in seen:
            continue
        seen.add(model_id)
        name = "model" if config.model_for("plan") == config.model_for("execute") else f"model ({mode})"
        if model_id.startswith("script:"):
            rows.append((name, True, f"{model_id} (a scripted model: no lookup)"))
            continue
        spec = lookup(provider.model_id(model_id), provider.lookup_client())
        if spec is None:
            rows.append((name, False, f"{model_id} unknown: the Models API does not know it"))
            continue
        when = (
            f", retires {spec.retires_at.isoformat()}"
            if spec.retires_at and spec.lifecycle == "deprecated"
            else (f", retired {spec.retires_at.isoformat()}" if spec.retires_at else "")
        )
        wanted = config.effort_for(mode)
        effort = spec.effort_or_default(wanted) or spec.default_effort or "model default"
        if spec.effort_note(wanted):
            effort += f" ({spec.effort_note(wanted)})"
        detail = (
            f"{model_id} ({spec.display_name}): {spec.lifecycle}{when}; {tokens(spec.max_input_tokens)} context, "
            f"{tokens(spec.max_tokens)} output; thinking {', '.join(sorted(spec.thinking_types)) or 'none'}; "
            f"effort {effort}; facts from {SOURCES.get(spec.source, spec.source)}"
        )
        rows.append((name, spec.lifecycle == "active", detail))
    return rows


def provider_status(root: Path | None) -> tuple[bool, str]:
    """The platform requests go to, where, and whether what it needs is there (extra, region,
    credentials), with the id each of the config's models has on it."""

    try:
        config = load(root)
        provider = Provider.from_config(config)
    except (ConfigError, ModelError) as exc:
        return False, str(exc)
    ids = []
    for model in dict.fromkeys(config.model_for(mode) for mode in ("plan", "execute")):
        if not model.startswith("script:") and provider.name != "anthropic":
            ours = provider.model_id(model)
            ids.append(f"{model} is {provider.wire_id(ours)}")
    detail = f"{provider.name}: {provider.describe()}" + (f"; {', '.join(ids)} there" if ids else "")
    if provider.name != "anthropic":
        detail += "; model facts from cast's built-in table (the platform has no Models API for the SDK)"
    try:
        if provider.name != "anthropic":  # the key has its own line
            provider.check()
    except ModelError as exc:
        return False, f"{detail}; {exc}"
    return True, detail


def key_status(root: Path | None = None) -> tuple[bool, str]:
    provider = _provider_name(root)
    if provider in ("bedrock", "vertex"):
        return True, f"not used: provider {provider} authenticates with the platform's own credentials"
    base = os.environ.get("ANTHROPIC_BASE_URL")
    where = f"; ANTHROPIC_BASE_URL={base}" if base else ""
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        if os.environ.get(var):
            return True, f"{var} is set{where}"
    return False, f"ANTHROPIC_API_KEY is not set: export it (or use --model script:PATH offline){where}"


def _provider_name(root: Path | None) -> str:
    try:
        return load(root).provider
    except ConfigError:
        return os.environ.get("CAST_PROVIDER", "")


def config_status(root: Path | None) -> tuple[bool, str]:
    files = [f"{path} ({'found' if path.is_file() else 'none'})" for path in config_paths(root)]
    try:
        load(root)
    except ConfigError as exc:
        return False, f"{'; '.join(files)}; error: {exc}"
    return True, "; ".join(files)


def workspace_root() -> Path | None:
    try:
        return Workspace.discover().root
    except OSError:
        return None


def model_summary(root: Path | None) -> tuple[bool, str]:
    """`model_status` as one doctor line: both modes' models when they differ."""
    rows = model_status(root)
    if len(rows) == 1:
        return rows[0][1], rows[0][2]
    return all(ok for _, ok, _ in rows), "; ".join(f"{name.removeprefix('model ')} {detail}" for name, ok, detail in rows)
