"""The Anthropic Messages API behind cast's `Model` protocol.

Stream API: `client.messages.create(stream=True)`, the raw server-sent events, not the
`messages.stream()` helper. The helper accumulates a `ParsedMessage` snapshot made of SDK models
(with `None`-valued optional fields and parse extras) that would have to be scrubbed before going
back to the API; the raw events let this module build each content block as the plain dict the API
sent, field for field, and apply the deltas itself. Errors surface the same way for both (the
helper wraps the same `Stream`).

What the loop sees, per reply:
- `TextDelta` / `ThinkingDelta` live, as they arrive;
- `ToolUse`, `Usage` and `Stop` only once `message_stop` has arrived. A reply that fails halfway
  therefore never hands the loop a tool call; the loop runs tools after the reply anyway, so
  nothing is lost by waiting.

Faults. The SDK's own retries are off (`max_retries=0`); cast retries so it can cap the wait and
report each retry. Retried as a fresh attempt of the same step: 408/429/500/502/503/504/529 and
any 5xx, connection errors, timeouts (no byte for `model_timeout` seconds: a stalled stream, not
a long reply), a mid-stream `event: error` of a transient type (the SDK raises `APIStatusError`
with the stream's status, 200, and `.type == "overloaded_error"`), and a stream that ends before
`message_stop` (the SDK raises nothing then). Waits are exponential from `backoff_base`, or the
server's `retry-after`/`retry-after-ms`, and never longer than `config.retry_after_cap`.
`config.retries` is the number of attempts per step, the first included. Deltas already streamed
by a failed attempt cannot be taken back: a `Retrying(partial=True)` event says so, the next
attempt streams its reply from the start, and only the final `Stop.content` enters the
transcript. When the attempts are spent, `config.fallback_model` (if set) gets one attempt; then
a `ModelError(retryable=True)` names the failure and the number of attempts.

Request shape: `cast.models.wire` adds what depends on the model (thinking, effort, structured
output, the betas the body uses; never sampling parameters, budget thinking or prefill). A body
that needs a beta goes through `client.beta.messages`. Stop reasons pass through untouched, with
the API's details on `Stop.details`: a `refusal` (its category) is not retried here, and
`pause_turn` / `model_context_window_exceeded` are the loop's to handle. The fallback model is
used only where it can read the current model's thinking blocks, or with `drop_block`
(`fallback_refusal`). A base URL the HTTP client cannot use is a configuration error (exit 2).

Prompt caching (`caching.py`): breakpoints on the system block (or, with no system, on the last
tool that is not `defer_loading`: the API rejects `cache_control` on a deferred tool), on the
anchors where the next aging batch starts, and on the last block of the last two user messages (the
newest end of the transcript, and the previous request's end so its cache entry is read): at most
four, the API's limit. The request is copied, never mutated.

The first-party API goes through `direct.py` (the SDK's wire format and errors on httpx2, without
the SDK's 2-3 s import); Bedrock and Vertex through the SDK. Neither is imported at module level.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from cast.models import clearing, wire
from cast.models.base import ModelError, ModelEvent, Request, Retrying
from cast.models.caching import MAX_BREAKPOINTS, count_marks, mark_messages, mark_tools
from cast.models.catalog import ModelSpec
from cast.models.loading import cut_on, errors_of, preload, require_sdk, transport_errors  # noqa: F401  (preload: re-exported)
from cast.models.providers import BEDROCK_RETRY_TYPES, NO_KEY, Provider  # noqa: F401  (NO_KEY: re-exported)
from cast.models.reply import Reply, Transient
from cast.text import one_line

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
RETRY_TYPES = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}) | BEDROCK_RETRY_TYPES


class AnthropicModel:
    def __init__(
        self,
        model: str,
        config: Any,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        backoff_base: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        spec: ModelSpec | None = None,
        provider: Provider | None = None,
    ):
        self.provider = provider or Provider()  # the platform and how it names models (providers.py)
        if not api_key:
            self.provider.check()
        self.name = model
        self.config = config
        self.api_key = api_key
        self.base_url = base_url
        self.backoff_base = backoff_base
        self.sleep = sleep
        self.spec = spec if spec is not None else wire.spec_for(model)  # capabilities; the catalog may replace it
        self._client: Any = None
        check_base_url(base_url)
        self._lock = threading.Lock()

    # -- the protocol ---------------------------------------------------------------------
    def stream(self, request: Request) -> Iterator[ModelEvent]:
        client = self.client()
        params = self.params(request)
        attempts = max(1, int(self.config.retries))
        failure: Transient | None = None
        for attempt in range(1, attempts + 1):
            state = _Attempt()
            try:
                yield from self._attempt(client, self.name, params, state, request.cancel)
                return
            except Transient as exc:
                if request.cancel is not None and request.cancel.is_set():
                    return  # the user cut the stream (`cut_on`): not a failure to retry
                failure = exc
            if attempt < attempts:
                delay = self.delay(attempt, failure.retry_after)
                yield Retrying(str(failure), attempt + 1, delay, state.streamed, self.name)
                if self._wait(request, delay):
                    return  # interrupted: the loop sees a reply without a Stop and records it so
        assert failure is not None
        summary = f"model {failure.kind}: {failure.detail} (after {attempts} attempts)"
        fallback = getattr(self.config, "fallback_model", "")
        if fallback and fallback != self.name:
            refusal = self.fallback_refusal(request, fallback)
            if refusal:
                raise ModelError(f"{summary}; {refusal}", retryable=True)
            yield Retrying(f"{summary}; trying the fallback model {fallback}", attempts + 1, 0.0, state.streamed, fallback)
            try:
                yield from self._attempt(client, fallback, self.params(request, fallback), _Attempt(), request.cancel)
                return
            except Transient as exc:
                summary += f"; the fallback model {fallback} failed too: {exc}"
        raise ModelError(summary, retryable=True)

    def _wait(self, request: Request, seconds: float) -> bool:
        """Wait before the next attempt; True if the user interrupted meanwhile. The REPL cancels
        from another thread, where no KeyboardInterrupt reaches this sleep."""
        if request.cancel is None:
            self.sleep(seconds)
            return False
        return request.cancel.wait(seconds)

    # -- one attempt ----------------------------------------------------------------------
    def _attempt(
        self, client: Any, model: str, params: dict[str, Any], state: _Attempt, cancel: threading.Event | None = None
    ) -> Iterator[ModelEvent]:
        sdk = errors_of(client)
        betas = wire.betas(params)
        wire_model = self.provider.wire_id(model)
        try:
            if betas:
                raw = client.beta.messages.create(
                    model=wire_model, stream=True, timeout=self.config.model_timeout, betas=betas, **params
                )
            else:
                raw = client.messages.create(model=wire_model, stream=True, timeout=self.config.model_timeout, **params)
        except sdk.APIStatusError as exc:
            raise self._status_failure(exc, model) from None
        except sdk.APIConnectionError as exc:
            raise self._connection_failure(exc, midstream=False) from None
        reply = Reply()
        done = cut_on(cancel, raw)
        try:
            for event in raw:
                for out in reply.feed(event):
                    state.streamed = True
                    yield out
        except sdk.APIStatusError as exc:
            raise self._status_failure(exc, model) from None
        except (sdk.APIConnectionError, *transport_errors()) as exc:
            raise self._connection_failure(exc, midstream=True) from None
        except json.JSONDecodeError as exc:
            raise Transient("stream cut", f"malformed stream event: {exc.msg}") from None
        except Exception:
            if cancel is not None and cancel.is_set():
                return  # cut on purpose: the loop records a reply without a stop as interrupted
            raise
        finally:
            done.set()
            raw.close()
        if not reply.stopped and cancel is not None and cancel.is_set():
            return
        if not reply.stopped:
            raise Transient("stream cut", "the stream ended before message_stop")
        yield from reply.finish()

    def _status_failure(self, exc: Any, model: str) -> Exception:
        status = exc.status_code
        kind = exc.type or ""
        message = one_line(exc.api_message or str(exc.message), 300)
        label = " ".join(str(part) for part in (status if status >= 300 else "", kind) if part)
        if status < 300:  # `event: error` inside a 200 stream: only its type tells what it is
            if kind in RETRY_TYPES:
                return Transient(_kind(status, kind), f"{kind} mid-stream: {message}")
            return ModelError(f"the API ended the reply with an error ({kind or 'unknown'}): {message}")
        headers = exc.response.headers
        should_retry = headers.get("x-should-retry")
        retry = status in RETRY_STATUS or status >= 500
        if should_retry in ("true", "false"):
            retry = should_retry == "true"
        if retry:
            return Transient(_kind(status, kind), f"{label}: {message}", _retry_after(headers))
        if status == 401:
            return ModelError(f"authentication failed (401): {self.provider.auth_hint()}", exit_code=2)
        if status == 403:
            return ModelError(f"permission denied (403): {message}; model '{model}': {self.provider.auth_hint()}", exit_code=2)
        if status == 404:
            return ModelError(
                f"not found (404): {message}; check the model id '{model}' (--model, CAST_MODEL, config, or /model in the REPL) and ANTHROPIC_BASE_URL",
                exit_code=2,
            )
        if status == 413:
            return ModelError(f"the request is too large for the API (413): {message}")
        return ModelError(f"the API rejected the request ({label}): {message}")

    def _connection_failure(self, exc: BaseException, midstream: bool) -> Exception:
        name = type(exc).__name__
        if "Timeout" in name:
            return Transient("timed out", f"no data for {self.config.model_timeout:g}s")
        hopeless = None if midstream else _hopeless(exc)
        if hopeless:  # no retry can fix it: said at once, in one line
            return ModelError(f"cannot reach {getattr(self._client, 'base_url', 'the API')}: {hopeless}")
        detail = str(exc) or name
        cause = exc.__cause__ or exc.__context__
        if cause is not None and str(cause) and str(cause) not in detail:
            detail += f" ({cause})"
        if midstream:
            return Transient("stream cut", f"the connection broke mid-stream: {detail}")
        return Transient("unreachable", f"{getattr(self._client, 'base_url', 'the API')}: {detail}")

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        cap = float(self.config.retry_after_cap)
        if retry_after is not None and retry_after >= 0:
            return float(min(retry_after, cap))
        backoff = float(self.backoff_base * 2 ** (attempt - 1) * (1 - 0.25 * random.random()))
        return max(0.0, min(backoff, cap))

    # -- the request ----------------------------------------------------------------------
    def params(self, request: Request, model: str | None = None) -> dict[str, Any]:
        """Keyword arguments for `messages.create` for `model` (default: this one), with cache
        breakpoints, thinking, effort and betas (`cast.models.wire`); `request` is not mutated."""
        used = 0
        params: dict[str, Any] = {"max_tokens": request.max_tokens}
        if request.tools:
            params["tools"], marked = mark_tools(request.tools) if not request.system else (list(request.tools), 0)
            used += marked
        if request.system:
            params["system"] = [{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}]
            used += 1
        spec = self.spec if model in (None, self.name) else wire.spec_for(model)
        messages = request.messages if getattr(spec, "system_messages", True) else wire.as_user_notices(request.messages)
        anchors = tuple(request.messages[i] for i in request.cache_anchors if 0 <= i < len(request.messages))
        params["messages"] = mark_messages(messages, MAX_BREAKPOINTS - used - count_marks(messages), anchors)
        params = wire.shape(request, spec, params)
        if params.get("context_management"):  # server-side clearing in batches, so the cache holds
            params["context_management"] = clearing.hold(params["context_management"], messages)
        return params

    def fallback_refusal(self, request: Request, fallback: str) -> str:
        """Why the fallback model must not take this request ('' if it may). A model that cannot
        read the current model's thinking blocks would have them dropped (its reasoning lost) or,
        under the prefix check, fail; so a history with thinking falls back only to a reader, or
        when the request already asks for `drop_block`."""
        if request.drop_block or not wire.has_thinking(request.messages):
            return ""
        if wire.reads_thinking_of(wire.spec_for(fallback), self.name):
            return ""
        return f"not switching to the fallback model {fallback}: it cannot read {self.name}'s thinking blocks"

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                check_base_url(self.base_url)
                if self.provider.name != "anthropic":
                    require_sdk()  # a missing SDK is a configuration error with its own words
                options: dict[str, Any] = {"max_retries": 0, "timeout": float(self.config.model_timeout)}
                if self.api_key:
                    options["api_key"] = self.api_key
                if self.base_url:
                    options["base_url"] = self.base_url
                self._client = self.provider.client(options)
                quiet_sdk_deprecation()
            return self._client


SDK_DEPRECATION = r"The model '[^']*' is deprecated and will reach end-of-life"


def quiet_sdk_deprecation() -> None:
    """The SDK warns on every request to a model it lists as deprecated (a `DeprecationWarning`,
    shown whenever warnings are on: `PYTHONWARNINGS`, `-X dev`, a test runner). cast has said so
    once already, with the retirement date and what to use instead (`lookup.ensure`), and a
    warning written to the terminal mid-session would land in the middle of the prompt. Exactly
    that warning is silenced; any other the SDK gives still shows."""
    import warnings

    warnings.filterwarnings("ignore", message=SDK_DEPRECATION, category=DeprecationWarning)


def check_base_url(explicit: str | None) -> None:
    """A base URL the HTTP client cannot use is a configuration error (exit 2), found before the
    first request instead of after four failed attempts."""
    from urllib.parse import urlsplit

    value = explicit if explicit is not None else os.environ.get("ANTHROPIC_BASE_URL")
    if not value:
        return
    source = "base URL" if explicit is not None else "ANTHROPIC_BASE_URL"
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelError(
            f"{source} {value!r} is not a usable URL: expected http(s)://host[:port], e.g. https://api.anthropic.com", exit_code=2
        )
    try:
        _ = parts.port
    except ValueError:
        raise ModelError(f"{source} {value!r} has an invalid port", exit_code=2) from None


class _Attempt:
    streamed = False  # whether this attempt has yielded anything yet


def _kind(status: int, error_type: str) -> str:
    if status == 529 or error_type == "overloaded_error":
        return "overloaded"
    if status == 429 or error_type == "rate_limit_error":
        return "rate-limited"
    if status == 408 or error_type == "timeout_error":
        return "timed out"
    return "server error"


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait (`retry-after-ms`, `retry-after` seconds or HTTP date)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            pass
        if name == "retry-after":
            import email.utils

            parsed = email.utils.parsedate_tz(value)
            if parsed is not None:
                return max(0.0, email.utils.mktime_tz(parsed) - time.time())
    return None


def _hopeless(exc: BaseException) -> str:
    """Why a connection can never succeed by retrying (the host name does not resolve, nothing
    listens at the address), from the exception's causes; "" when a retry may help."""
    import socket

    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            break
        if isinstance(seen, socket.gaierror):
            return f"the host name does not resolve ({seen.strerror or seen}); check the address and the network"
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused: nothing listens at that address"
        text = str(seen)
        if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo failed" in text:
            return "the host name does not resolve; check the address and the network"
        if "Connection refused" in text:
            return "connection refused: nothing listens at that address"
        seen = seen.__cause__ or seen.__context__
    return ""
