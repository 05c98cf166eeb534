"""The Messages API's streaming call spoken directly over httpx2, the HTTP library the anthropic SDK
itself uses, for the first-party API (Bedrock and Vertex keep the SDK's own clients).

Why: `import anthropic` builds some two thousand pydantic types and takes 2.1-2.7 s on a 2-core
machine, longer than everything else cast does before its first request put together, and cast
uses one call of it. `import httpx2` takes about a tenth of that. This module is that one call,
with the same wire format and the same failures as the SDK's `messages.create(stream=True)`:

- the request: `POST {base_url}/v1/messages` (`?beta=true` with an `anthropic-beta` header for
  `beta.messages`), the SDK's headers (`anthropic-version`, `Authorization: Bearer` for an API key
  or `ANTHROPIC_AUTH_TOKEN`, `x-stainless-retry-count: 0`: this client never retries by itself),
  the same environment (`ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL`);
- the reply: server-sent events decoded as the SDK's `SSEDecoder` does; `ping` and unnamed events
  skipped; `event: error` raised as `APIStatusError` with the stream's status (200);
- the failures: `APIStatusError` (`status_code`, `type`, `api_message`, `message`, `response`)
  for an HTTP error, `APITimeoutError` / `APIConnectionError` (with the HTTP library's error as
  the cause) when no response came, and the HTTP library's own errors mid-stream, as the SDK.

Events are the JSON objects the API sent with attribute access (`event.delta.text`), which is all
`reply.Reply` reads; `tests/test_direct_client.py` checks the headers and the version against the SDK.
"""

from __future__ import annotations

import json
import os
import platform
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import httpx2

from cast.version import VERSION

API_VERSION = "2026-10-21"  # the SDK's ANTHROPIC_API_VERSION for the anthropic>=2.14 cast is written against
DEFAULT_BASE_URL = "https://api.anthropic.com"


class APIError(Exception):
    def __init__(self, message: str, request: httpx2.Request | None, body: object | None = None):
        super().__init__(message)
        self.message = message
        self.request = request
        self.body = body


class APIStatusError(APIError):
    def __init__(self, message: str, *, response: httpx2.Response, body: object | None):
        super().__init__(message, response.request, body)
        self.response = response
        self.status_code = response.status_code
        self.request_id = response.headers.get("request-id")
        error = body.get("error") if isinstance(body, dict) else None
        self.api_message = error.get("message") if isinstance(error, dict) else None
        self.type = error.get("type") if isinstance(error, dict) else None


class NotFoundError(APIStatusError):
    """404, by the SDK's name for it (the Models API lookup tells "no such model" by it)."""


class APIConnectionError(APIError):
    def __init__(self, *, message: str = "Connection error.", request: httpx2.Request):
        super().__init__(message, request)


class APITimeoutError(APIConnectionError):
    def __init__(self, request: httpx2.Request):
        super().__init__(
            message="Request timed out or interrupted. This could be due to a network timeout, dropped connection, "
            "or request cancellation. See https://docs.anthropic.com/en/api/errors#long-requests for more details.",
            request=request,
        )


class Event(dict[str, Any]):
    """A JSON object from the stream, its keys readable as attributes (nested objects too)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return _view(self[name])
        except KeyError:
            raise AttributeError(name) from None


def _view(value: Any) -> Any:
    if isinstance(value, dict) and not isinstance(value, Event):
        return Event(value)
    if isinstance(value, list):
        return [_view(item) for item in value]
    return value


_tls_lock = threading.Lock()
_tls: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def tls_context() -> ssl.SSLContext:
    """The context httpx2 would build for `verify=True` (the system's CA bundle, or SSL_CERT_FILE /
    SSL_CERT_DIR), built once per value of those variables. Reading the bundle is most of a
    client's construction and runs with the GIL released, so the preload thread builds it
    (models/loading.py) while the main thread goes on; a client made meanwhile waits for it."""
    import httpcore2  # here, not at the top: loading.import_client imports it with trio kept out

    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _tls_lock:
        if key not in _tls:
            _tls[key] = httpcore2.default_ssl_context()
        return _tls[key]


class Client:
    """`Anthropic(api_key=, base_url=, timeout=, max_retries=0)` for `messages.create(stream=True)`."""

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None, timeout: float = 600.0, max_retries: int = 0):
        self.api_key = api_key or os.environ.get("ANTHROPIC_API_KEY") or None
        self.auth_token = os.environ.get("ANTHROPIC_AUTH_TOKEN") or None
        base = base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        url = httpx2.URL(base)  # a path gets a trailing slash, as the SDK gives it one
        self.base_url = url if url.raw_path.endswith(b"/") else url.copy_with(raw_path=url.raw_path + b"/")
        self.timeout = timeout
        self.http = httpx2.Client(timeout=timeout, follow_redirects=True, verify=tls_context())
        self.messages = _Messages(self, beta=False)
        self.beta = _Beta(self)
        self.models = _Models(self)

    def headers(self) -> dict[str, str]:
        headers = {
            "accept": "application/json",
            "content-type": "application/json",
            "user-agent": f"cast/{VERSION} (Python {platform.python_version()})",
            "anthropic-version": API_VERSION,
            "x-stainless-retry-count": "0",
        }
        token = self.api_key or self.auth_token  # the SDK's order: an API key wins over a token
        if token:
            headers["authorization"] = f"Bearer {token}"
        return headers

    def get(self, path: str, params: dict[str, Any] | None = None) -> Event:
        """One JSON answer of a GET (the Models API), with the same errors as a streamed call."""
        headers = {k: v for k, v in self.headers().items() if k != "content-type"}
        request = self.http.build_request("GET", str(self.base_url).rstrip("/") + path, headers=headers, params=params)
        return Event(self._send(request, stream=False).json())

    def stream(self, body: dict[str, Any], betas: list[str] | None, timeout: float | None) -> Stream:
        headers = self.headers()
        if betas:
            headers["anthropic-beta"] = ",".join(betas)
        url = str(self.base_url).rstrip("/") + "/v1/messages" + ("?beta=true" if betas is not None else "")
        content = json.dumps(body, separators=(",", ":")).encode()
        request = self.http.build_request(
            "POST", url, headers=headers, content=content, timeout=httpx2.Timeout(self.timeout if timeout is None else timeout)
        )
        return Stream(self._send(request, stream=True))

    def _send(self, request: httpx2.Request, stream: bool) -> httpx2.Response:
        """Send, with the SDK's errors: a timeout, any other failure to connect, an HTTP error status."""
        try:
            response = self.http.send(request, stream=stream)
        except httpx2.TimeoutException as exc:
            raise APITimeoutError(request) from exc
        except Exception as exc:
            raise APIConnectionError(request=request) from exc
        if response.status_code >= 400:
            raise _status_error(response)
        return response

    def close(self) -> None:
        self.http.close()


class _Messages:
    def __init__(self, client: Client, beta: bool):
        self.client = client
        self.is_beta = beta

    def create(self, *, stream: bool, timeout: float | None = None, betas: list[str] | None = None, **params: Any) -> Stream:
        if not stream:
            raise ValueError("cast's direct client only streams")
        body = dict(sorted({**params, "stream": True}.items()))  # the SDK's key order: alphabetical
        return self.client.stream(body, (betas or []) if self.is_beta else None, timeout)


class _Beta:
    def __init__(self, client: Client):
        self.messages = _Messages(client, beta=True)


class _Models:
    """The Models API: one model by id, or every model page by page (`after_id`), as the SDK pages it."""

    def __init__(self, client: Client):
        self.client = client

    def retrieve(self, model_id: str) -> Event:
        from urllib.parse import quote

        return self.client.get(f"/v1/models/{quote(model_id, safe='')}")

    def list(self, *, limit: int = 20) -> Iterator[Event]:
        params: dict[str, Any] = {"limit": limit}
        while True:
            page = self.client.get("/v1/models", params)
            yield from (Event(item) for item in page.get("data") or [])
            if not page.get("has_more") or not page.get("last_id"):
                return
            params = {"limit": limit, "after_id": page["last_id"]}


class Stream:
    """The events of one streamed reply; `close()` releases the connection."""

    def __init__(self, response: httpx2.Response):
        self.response = response

    def __iter__(self) -> Iterator[Event]:
        try:
            for name, data in sse(self.response.iter_bytes()):
                if name == "ping" or name is None:
                    continue
                if name == "error":
                    try:
                        body: object = json.loads(data)
                        message = f"{body}"
                    except Exception:
                        body, message = data, data or f"Error code: {self.response.status_code}"
                    raise APIStatusError(message, response=self.response, body=body)
                if data:
                    yield Event(json.loads(data))
        finally:
            self.response.close()

    def close(self) -> None:
        self.response.close()


def sse(chunks: Iterator[bytes]) -> Iterator[tuple[str | None, str]]:
    """(event name, data) per server-sent event, split and decoded as the SDK's `SSEDecoder` does."""
    event: str | None = None
    data: list[str] = []
    for chunk in _events(chunks):
        for raw in chunk.splitlines():
            line = raw.decode("utf-8")
            if not line:
                if event is not None or data:
                    yield event, "\n".join(data)
                event, data = None, []
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)


def _events(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """The byte stream cut after each blank line (one event per piece), as the SDK cuts it."""
    data = b""
    for chunk in chunks:
        for line in chunk.splitlines(keepends=True):
            data += line
            if data.endswith((b"\r\r", b"\n\n", b"\r\n\r\n")):
                yield data
                data = b""
    if data:
        yield data


def _status_error(response: httpx2.Response) -> APIStatusError:
    """The SDK's error for an HTTP error status: the body's JSON (or text) and its words."""
    response.read()
    text = response.text.strip()
    body: object = text
    try:
        body = json.loads(text)
        message = f"Error code: {response.status_code} - {body}"
    except Exception:
        message = text or f"Error code: {response.status_code}"
    response.close()
    kind = NotFoundError if response.status_code == 404 else APIStatusError
    return kind(message, response=response, body=body)
