"""Which model a `--model` spec names: `script:PATH` replays a recorded script, anything else is
an Anthropic model id, looked up first (`lookup.ensure`): a retired or unknown id stops here with
exit 2, before any work. Cheap to import: the SDK is loaded on the first request, not here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cast.models.base import Model, ModelError

SCRIPT_PREFIX = "script:"


def resolve(spec: str, config: Any) -> Model:
    spec = spec.strip()
    if spec.startswith(SCRIPT_PREFIX):
        path = spec[len(SCRIPT_PREFIX) :]
        if not path:
            raise ModelError("--model script:PATH needs a path to a script file", exit_code=2)
        from cast.models.scripted import ScriptedModel

        return ScriptedModel.from_path(Path(path).expanduser())
    if not spec:
        raise ModelError("no model given: pass --model ID, set CAST_MODEL, or set model in config.toml", exit_code=2)
    from cast.models.anthropic import AnthropicModel
    from cast.models.lookup import ensure

    model_spec = ensure(spec)
    # The spec decides what the provider sends (thinking, effort) and the loop's limits; an id
    # nobody could vouch for (offline, not in the table) keeps the provider's own default.
    return AnthropicModel(spec, config, spec=model_spec if model_spec.source != "assumed" else None)


def check_at_open(options: Any, modes: tuple[str, ...] = ("plan", "execute")) -> int | None:
    """Refuse a model that can't be used before the REPL shows its prompt, with the words and the
    exit code (2) a one-shot run gives, instead of at the first task after the user has typed it.
    Both modes' models are checked: a switch with Shift+Tab must not be what finds out. None when
    the REPL may open (a deprecated model is warned about once, here). No network on the way for
    a model cast knows (`lookup.ensure_known`); a broken config is left to the first run, which
    reports it as before."""
    import sys

    try:
        from cast.config import load
        from cast.workspace import Workspace

        config = load(Workspace.discover(options.cwd).root, model=options.model, max_steps=options.max_steps)
        names = list(dict.fromkeys(config.model_for(mode).strip() for mode in modes))
    except Exception:  # noqa: BLE001 — reported, with its own wording, when a run is built
        return None
    from cast.models.lookup import ensure_known

    for name in names:
        if not name or name.startswith(SCRIPT_PREFIX):
            continue
        try:
            ensure_known(name)
        except ModelError as exc:
            sys.stderr.write(f"cast: {exc}\n")
            sys.stderr.flush()
            return exc.exit_code
    return None
