"""Which model a `--model` spec names: `script:PATH` replays a recorded script, anything else is
a Claude model id on the configured provider (`providers.py`: the Anthropic API or a gateway,
Bedrock, Vertex AI), by cast's name or the platform's, looked up first (`lookup.ensure`): a
retired or unknown id stops here with exit 2, before any work. Cheap to import: the SDK is loaded
on the first request, not here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cast.models.base import Model, ModelError
from cast.text import terminal_safe

SCRIPT_PREFIX = "script:"


def resolve(spec: str, config: Any) -> Model:
    spec = spec.strip()
    if spec.startswith(SCRIPT_PREFIX):
        path = spec[len(SCRIPT_PREFIX) :]
        if not path:
            raise ModelError("--model script:PATH needs a path to a script file", exit_code=2)
        from cast.models.scripted import ScriptedModel  # deferred: keeps cast.models.scripted off the REPL's first prompt

        return ScriptedModel.from_path(Path(path).expanduser())
    if not spec:
        raise ModelError("no model given: pass --model ID, set CAST_MODEL, or set model in config.toml", exit_code=2)
    # deferred: keeps cast.models.anthropic (8 modules) off the REPL's first prompt
    from cast.models.anthropic import AnthropicModel
    from cast.models.lookup import ensure  # deferred: keeps cast.models.lookup off the REPL's first prompt
    from cast.models.providers import Provider  # deferred: keeps cast.models.providers off the REPL's first prompt

    provider = Provider.from_config(config)
    name = provider.model_id(spec)  # cast's id; a platform id given is kept for the wire
    model_spec = ensure(name, provider.lookup_client())
    # The spec decides what the provider sends (thinking, effort) and the loop's limits; an id
    # nobody could vouch for (offline, not in the table) keeps the provider's own default.
    return AnthropicModel(name, config, spec=model_spec if model_spec.source != "assumed" else None, provider=provider)


def check_at_open(options: Any, modes: tuple[str, ...] = ("plan", "execute")) -> int | None:
    """Refuse a model that can't be used before the REPL shows its prompt, with the words and the
    exit code (2) a one-shot run gives, instead of at the first task after the user has typed it.
    Both modes' models are checked: a switch with Shift+Tab must not be what finds out. None when
    the REPL may open (a deprecated model is warned about once, here). No network on the way for
    a model cast knows (`lookup.ensure_known`); a broken config is left to the first run, which
    reports it as before."""
    import sys

    names = [name for name in model_names(options, modes) if name and not name.startswith(SCRIPT_PREFIX)]
    if not names:
        return None
    from cast.models.lookup import ensure_known  # deferred: keeps cast.models.lookup off the REPL's first prompt
    from cast.models.providers import PROVIDERS, Provider  # deferred: keeps cast.models.providers off the REPL's first prompt

    chosen = _provider_name(options)
    provider = Provider(chosen if chosen in PROVIDERS else "anthropic")  # a bad name: the first run says so
    for name in names:
        try:
            ensure_known(provider.model_id(name), provider.lookup_client())
        except ModelError as exc:
            sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
            sys.stderr.flush()
            return exc.exit_code
    return None


def model_names(options: Any, modes: tuple[str, ...]) -> list[str]:
    """The model each mode will use, as `Config.model_for` will say once the config is loaded,
    read from the same sources in the same order (flag, `CAST_MODEL`, the project's and the
    user's config.toml) without validating the rest: the full load builds a pydantic schema,
    which would put tens of milliseconds on the way to the prompt. Empty when a file can't be read
    (the full load reports that, in its own words)."""
    import os

    from cast.config import DEFAULT_MODEL  # deferred: keeps cast.config (8 modules) off the model registry's import

    merged = _config_files(options)
    if merged is None:
        return []
    override = getattr(options, "model", None) or os.environ.get("CAST_MODEL")
    model = override or merged.get("model") or DEFAULT_MODEL
    chosen = [model if override else merged.get(f"{mode}_model") or model for mode in modes]  # as load() does
    return list(dict.fromkeys(name.strip() for name in chosen if isinstance(name, str)))


def _provider_name(options: Any) -> str:
    """The provider the config will name (`CAST_PROVIDER`, then the config files), read as cheaply."""
    import os

    value = os.environ.get("CAST_PROVIDER") or (_config_files(options) or {}).get("provider") or "anthropic"
    return str(value).strip().lower()


def _config_files(options: Any) -> dict[str, Any] | None:
    """The config files' values merged (lowest precedence first), unvalidated; None when one can't be read."""
    from cast.config import layers  # deferred: keeps cast.config (8 modules) off the model registry's import
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (23 modules) off the model registry's import

    try:
        files = [values for _, values, _ in layers(Workspace.discover(options.cwd).root)]  # what counts of each
    except Exception:  # noqa: BLE001 — an unreadable file or workspace: the full load reports it
        return None
    merged: dict[str, Any] = {}
    for values in files:
        merged.update(values)
    return merged
