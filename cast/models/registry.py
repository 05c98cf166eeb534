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
