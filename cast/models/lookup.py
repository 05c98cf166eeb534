"""Ask the Models API what a model is (lifecycle, limits, capabilities) before cast uses it.

Why: a model id in a config file outlives the model. A retired id fails every request with a 404,
and a deprecated one is about to; capabilities (which `thinking` types and efforts a model takes,
its context window) change per model. So a run starts by asking `GET /v1/models/{id}` through the
SDK, keeps the answer a day in the user cache dir (`$XDG_CACHE_HOME/cast/models.json`), and falls
back to the built-in table (`catalog.py`) when the API can't be reached: a run never fails
because the lookup did. Retired and unknown models stop the run with exit 2 before any work;
a deprecated one gets one warning naming its retirement date.

Cheap to import: the SDK is imported only when the API is actually asked.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from cast.fsutil import atomic_write
from cast.models.base import ModelError
from cast.models.catalog import EFFORTS, THINKING_TYPES, ModelSpec, active_ids, builtin, current_ids, remember

CACHE_SECONDS = 24 * 3600
TIMEOUT = 5.0  # seconds for one Models API call; a slow API must not hold a run up for long
DEFAULT_ENDPOINT = "https://api.anthropic.com"
REFRESH_DELAY = 1.0  # seconds after the REPL opens before its background lookup starts

ClientFactory = Callable[[], Any]
_said: set[str] = set()


def _say(message: str) -> None:
    """Once per process: a lookup note or warning is not news the second time."""
    if message not in _said:
        _said.add(message)
        from cast.state import tell  # deferred: keeps cast.state off the REPL's first prompt

        tell(message)  # above the REPL's prompt when one is showing


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cast" / "models.json"


def endpoint() -> str:
    return (os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT).rstrip("/")


def default_client() -> Any | None:
    """A client for the lookup (cast's direct one: the SDK's import would double a first run's
    start-up), or None when there is no key to ask with."""
    if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
        return None
    from cast.models.direct import Client  # deferred: keeps httpx2 off the REPL's first prompt

    return Client(max_retries=0, timeout=TIMEOUT)


# -- the cache ------------------------------------------------------------------------------
def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("endpoint") != endpoint():
        return {}  # answers from another endpoint (a proxy, a test server) are not this one's
    return data


def _write_cache(update: Callable[[dict[str, Any]], None]) -> None:
    data = _read_cache() or {"endpoint": endpoint(), "models": {}}
    update(data)
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data, indent=1, sort_keys=True).encode())
    except OSError:
        pass  # a cache that can't be written only costs a lookup next time


def _fresh(entry: Any, now: float) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("at"), (int, float)) and 0 <= now - entry["at"] < CACHE_SECONDS


def to_json(spec: ModelSpec) -> dict[str, Any]:
    data = asdict(spec)
    for key, value in data.items():
        if isinstance(value, frozenset):
            data[key] = sorted(value)
        elif isinstance(value, date):
            data[key] = value.isoformat()
    data.pop("source", None)
    return data


def from_json(data: dict[str, Any], source: str) -> ModelSpec:
    values = dict(data)
    for key in ("thinking_types", "efforts", "reads_thinking_of"):
        values[key] = frozenset(values.get(key) or ())
    if values.get("retires_at"):
        values["retires_at"] = date.fromisoformat(values["retires_at"])
    return ModelSpec(**values, source=source)


# -- the API --------------------------------------------------------------------------------
def _get(value: Any, *path: str) -> Any:
    """`value.a.b...`, None where any step is missing or null (an answer may leave fields out)."""
    for name in path:
        if value is None:
            return None
        value = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
    return value


def _flag(value: Any, *path: str) -> bool | None:
    """A `{"supported": bool}` capability: True/False when the answer says, None when it doesn't."""
    found = _get(value, *path, "supported")
    return found if isinstance(found, bool) else None


def from_info(info: Any) -> ModelSpec:
    """A `ModelInfo` as a spec. Only what the answer says replaces the built-in table's facts: a
    gateway or proxy in front of the API may answer with fewer fields (no capabilities, a partial
    set, nulls), and what it leaves out stays as the table (or a generic current model) has it.
    What the API never says (thinking binding, cache minimum) always comes from the table."""
    model_id = str(_get(info, "id") or "")
    name = _get(info, "display_name")
    known = builtin(model_id) or ModelSpec(model_id, str(name or model_id))
    lifecycle = _get(info, "lifecycle")
    retires = _get(info, "retires_at")
    if isinstance(retires, str):  # the JSON's RFC 3339 time, where the SDK gave a datetime
        try:
            retires = datetime.fromisoformat(retires)
        except ValueError:
            retires = None
    spec = replace(
        known,
        display_name=str(name or known.display_name),
        lifecycle=lifecycle if lifecycle in ("active", "deprecated", "retired") else known.lifecycle,
        retires_at=retires.date() if hasattr(retires, "date") else known.retires_at,
        source="api",
    )
    window, output = _get(info, "max_input_tokens"), _get(info, "max_tokens")
    if isinstance(window, int) and window > 0:
        spec = replace(spec, max_input_tokens=window)
    if isinstance(output, int) and output > 0:
        spec = replace(spec, max_tokens=output)
    caps = _get(info, "capabilities")
    if caps is None:
        return spec
    thinking = {kind: _flag(caps, "thinking", "types", kind) for kind in THINKING_TYPES}
    if any(flag is not None for flag in thinking.values()):
        spec = replace(spec, thinking_types=frozenset(kind for kind, flag in thinking.items() if flag))
    efforts = {level: _flag(caps, "effort", level) for level in EFFORTS}
    if _flag(caps, "effort") is False:
        spec = replace(spec, efforts=frozenset())
    elif any(flag is not None for flag in efforts.values()):
        spec = replace(spec, efforts=frozenset(level for level, flag in efforts.items() if flag))
    spec = replace(spec, default_effort=spec.default_effort if spec.default_effort in spec.efforts else "")
    structured, managed = _flag(caps, "structured_outputs"), _flag(caps, "context_management")
    if structured is not None:
        spec = replace(spec, structured_outputs=structured)
    if managed is not None:
        spec = replace(spec, context_management=managed)
    return spec


class _Unreachable(Exception):
    pass


def _ask(call: Callable[[Any], Any], client: ClientFactory, model_id: str = "") -> Any:
    """Run one Models API call; None when the API says there is no such model. A 404 that does
    not name the model is a gateway without the Models API (`ANTHROPIC_BASE_URL`): ask later."""
    try:
        sdk_client = client()
        if sdk_client is None:
            raise _Unreachable("no API key")
        return call(sdk_client)
    except _Unreachable:
        raise
    except Exception as exc:  # noqa: BLE001 — the SDK's errors, network errors, odd answers: all mean "ask later"
        if type(exc).__name__ == "NotFoundError":
            if model_id and model_id not in str(getattr(exc, "message", "")):
                raise _Unreachable("the endpoint does not serve the Models API (404)") from None
            return None
        status = getattr(exc, "status_code", None)
        raise _Unreachable(f"HTTP {status}" if status else type(exc).__name__) from None


def lookup(model_id: str, client: ClientFactory = default_client, now: float | None = None) -> ModelSpec | None:
    """The spec for `model_id`: a day-old cached answer, else the API's, else the built-in table
    (with a note). None means the API answered that no such model exists."""
    now = time.time() if now is None else now
    entry = _read_cache().get("models", {}).get(model_id)
    if _fresh(entry, now):
        try:
            return remember(from_json(entry["spec"], "cache"))
        except (TypeError, ValueError, KeyError):
            pass  # written by another version of cast: ask again
    try:
        info = _ask(lambda c: c.models.retrieve(model_id), client, model_id)
    except _Unreachable as why:
        spec = builtin(model_id)
        if str(why) != "no API key":
            fallback = "using cast's built-in model facts" if spec else "cast's table doesn't know it either; going ahead"
            _say(f"note: the Models API could not be asked about {model_id} ({why}); {fallback}")
        return remember(spec) if spec else ModelSpec(model_id, model_id, source="assumed")
    if info is None:
        return None
    spec = from_info(info)
    _write_cache(lambda data: data.setdefault("models", {}).__setitem__(model_id, {"at": now, "spec": to_json(spec)}))
    return remember(spec)


def available(client: ClientFactory = default_client, now: float | None = None) -> list[str]:
    """Ids of the models one can use today (active), newest first as the API lists them; from
    the cache within a day, else the API, else the built-in table."""
    now = time.time() if now is None else now
    entry = _read_cache().get("list")
    if entry is not None and _fresh(entry, now) and isinstance(entry.get("ids"), list):
        return [str(i) for i in entry["ids"]]
    try:
        page = _ask(lambda c: list(c.models.list(limit=100)), client)
    except _Unreachable:
        return active_ids()
    ids = [str(m.id) for m in page or () if getattr(m, "id", None) and getattr(m, "lifecycle", "active") in ("active", None)]
    _write_cache(lambda data: data.__setitem__("list", {"at": now, "ids": ids}))
    return ids or active_ids()


def choices(client: ClientFactory = default_client) -> list[tuple[str, str]]:
    """(id, description) pairs for completing `/model`, without waiting on the network: the list
    the API gave within a day, else the built-in table while a background thread asks the API."""
    entry = _read_cache().get("list")
    if entry is not None and _fresh(entry, time.time()) and isinstance(entry.get("ids"), list):
        ids = [str(i) for i in entry["ids"]]
    else:
        ids = active_ids()
        import threading

        threading.Thread(target=available, args=(client,), name="cast-models-list", daemon=True).start()
    return [(i, (builtin(i) or ModelSpec(i, "")).display_name) for i in ids]


def suggestions(client: ClientFactory = default_client) -> list[str]:
    """What to offer instead of a model that can't be used: today's line-up first."""
    listed = available(client)
    first = [m for m in current_ids() if m in listed] or current_ids()
    return first + [m for m in listed if m not in first][:4]


def ensure(model_id: str, client: ClientFactory = default_client) -> ModelSpec:
    """The spec of a model cast may use, or a `ModelError` (exit 2) saying why not and what to
    use instead. Warns once about a deprecated model."""
    return judge(model_id, lookup(model_id, client), client)


def judge(model_id: str, spec: ModelSpec | None, client: ClientFactory = default_client) -> ModelSpec:
    """What `ensure` says about an answer, wherever it came from: one wording for a refusal at
    the first request and at the REPL's opening."""
    use = "use one of: " + ", ".join(suggestions(client)) + " (--model ID, CAST_MODEL, or model in config.toml)"
    if spec is None:
        raise ModelError(f"unknown model '{model_id}': the Models API does not know it; {use}", exit_code=2)
    if spec.lifecycle == "retired":
        when = f" on {spec.retires_at.isoformat()}" if spec.retires_at else ""
        raise ModelError(f"model '{model_id}' was retired{when} and no longer answers; {use}", exit_code=2)
    if spec.lifecycle == "deprecated":
        when = f"on {spec.retires_at.isoformat()}" if spec.retires_at else "soon"
        _say(f"warning: model {model_id} is deprecated and retires {when}; switch to {current_ids()[0]} or another current model")
    return spec


def _offline() -> None:
    return None  # a client factory that never asks: lookups answer from the cache or the table


def ensure_known(model_id: str, client: ClientFactory = default_client) -> ModelSpec:
    """`ensure` for the REPL's opening, without a network call on the way to the prompt: the
    day's cached answer, else the built-in table, decides at once (suggestions from the cached
    list or the table), and a table answer is refreshed from the API in the background for the
    first request. Only an id neither knows (a typo, a model newer than this cast) is asked
    about now, as `ensure` would at the first request: there is no prompt worth showing for a
    model that may not exist."""
    spec = lookup(model_id, _offline)
    if spec is None or spec.source == "assumed":
        return ensure(model_id, client)
    if spec.source != "cache":
        import threading

        threading.Thread(target=refresh, args=(model_id, client), name="cast-models-refresh", daemon=True).start()
    return judge(model_id, spec, _offline)


def refresh(model_id: str, client: ClientFactory = default_client, delay: float = REFRESH_DELAY) -> None:
    """Ask the API about `model_id` and keep the answer for a day, saying nothing (it runs while
    the user types). Waits `delay` first, so the SDK import doesn't compete with drawing the prompt."""
    if delay:
        time.sleep(delay)
    try:
        info = _ask(lambda c: c.models.retrieve(model_id), client)
    except _Unreachable:
        return
    if info is not None:
        spec = from_info(info)
        _write_cache(lambda data: data.setdefault("models", {}).__setitem__(model_id, {"at": time.time(), "spec": to_json(spec)}))
