"""A fake Anthropic Messages API, for driving the real SDK without a network.

It speaks the wire protocol the SDK reads: `POST /v1/messages` answered by a `text/event-stream`
in which every event has its `event:` line and its `data:` line (the SDK skips data without an
event name). Each test scripts the replies it needs, in order:

    api.reply(text("Let me look."), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    api.fail(529, "overloaded_error", "Overloaded", headers={"retry-after": "1"})
    api.push(Stream(events[:4] + [error_event("overloaded_error", "Overloaded")]))

and reads back every request it received (`api.requests`: JSON body and headers). A request with
nothing scripted for it gets a 400, so a test that sends more than it expected fails loudly.
"""
from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Event = tuple[str, dict[str, Any]]


@dataclass
class Stream:
    """A 200 event stream. `cut_after`: send only that many events, then close the connection
    (no `message_stop`); with `chunked`, the body is chunk-encoded, so the cut is a broken
    transfer the HTTP client notices, not a clean end. `stall_after`: go silent for `stall`
    seconds after that many events."""

    events: list[Event]
    cut_after: int | None = None
    stall_after: int | None = None
    stall: float = 0.0
    chunked: bool = False


@dataclass
class Failure:
    """An HTTP error response: `body` is sent as JSON when it is a dict, as text otherwise."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]  # lower-case names
    body: dict[str, Any]
    raw: bytes


# -- content blocks, as the complete block the model "writes" ---------------------------------
def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature}


def redacted(data: str) -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": data}


def tool_use(id: str, name: str, input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def error_event(error_type: str, message: str) -> Event:
    return ("error", {"type": "error", "error": {"type": error_type, "message": message}})


def error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def model_info(id: str, lifecycle: str = "active", retires_at: str | None = None, *, max_input_tokens: int = 1_000_000,
               max_tokens: int = 128_000, thinking: tuple[str, ...] = ("adaptive",),
               efforts: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max")) -> dict[str, Any]:
    """A `ModelInfo` as `GET /v1/models/{id}` returns it."""
    def yes(flag: bool) -> dict[str, bool]:
        return {"supported": flag}

    capabilities = {
        "batch": yes(True), "citations": yes(True), "code_execution": yes(True), "image_input": yes(True),
        "pdf_input": yes(True), "structured_outputs": yes(True),
        "context_management": {"supported": True, "clear_thinking_20251015": yes(True), "clear_tool_uses_20250919": yes(True),
                               "compact_20260112": yes(True)},
        "effort": {"supported": bool(efforts), **{e: yes(e in efforts) for e in ("low", "medium", "high", "xhigh", "max")}},
        "server_tools": {"supported": True},
        "thinking": {"supported": True, "types": {t: yes(t in thinking) for t in ("adaptive", "between_tools", "disabled", "enabled")}},
    }
    return {"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z", "lifecycle": lifecycle,
            "deprecated_at": "2026-06-01T00:00:00Z" if lifecycle != "active" else None, "retires_at": retires_at,
            "max_input_tokens": max_input_tokens, "max_tokens": max_tokens, "capabilities": capabilities}


def _chunks(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(0, len(value), size)] or [""]


def message_events(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    usage: dict[str, int] | None = None,
    output_tokens: int = 17,
    chunk: int = 4,
    model: str = "claude-test",
    message_id: str = "msg_fake",
) -> list[Event]:
    """The SSE events of one reply made of `blocks`, each streamed in chunks of `chunk` chars."""
    start_usage = {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    start_usage.update(usage or {})
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    message = {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": start_usage,
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": message}), ("ping", {"type": "ping"})]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            start, deltas = {"type": "text", "text": ""}, [{"type": "text_delta", "text": c} for c in _chunks(block["text"], chunk)]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"], chunk)]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": ""}]  # the API's first chunk is empty
            deltas += [{"type": "input_json_delta", "partial_json": c} for c in _chunks(json.dumps(block["input"]), chunk)]
        else:  # redacted_thinking and anything else: complete in its start event
            start, deltas = block, []
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {
        "type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": output_tokens},
    }))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class FakeAPI:
    def __init__(self) -> None:
        self.responses: deque[Stream | Failure] = deque()
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None
        # The Models API (`GET /v1/models[/{id}]`): None answers 503, as an API that can't be asked;
        # a dict of id -> ModelInfo JSON (see `model_info`) serves those models and 404s others.
        self.models: dict[str, dict[str, Any]] | None = None
        self.model_requests: list[str] = []  # paths of Models API requests, apart from `requests`

    # -- scripting ------------------------------------------------------------------------
    def push(self, *responses: Stream | Failure) -> None:
        with self.lock:
            self.responses.extend(responses)

    def reply(self, *blocks: dict[str, Any], **options: Any) -> list[Event]:
        events = message_events(*blocks, **options)
        self.push(Stream(events))
        return events

    def fail(self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> None:
        self.push(Failure(status, error_body(error_type, message), headers or {}))

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests]

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeAPI":
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                api._handle(self)

            def do_GET(self) -> None:
                api._handle_models(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self.server:
            self.server.shutdown()
            self.server.server_close()
        if self.thread:
            self.thread.join(timeout=5)

    # -- serving --------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        with self.lock:
            self.requests.append(Recorded(handler.path, {k.lower(): v for k, v in handler.headers.items()}, body, raw))
            number = len(self.requests)
            response = self.responses.popleft() if self.responses else None
        if response is None:
            response = Failure(400, error_body("invalid_request_error", f"fake API: nothing scripted for request {number}"))
        try:
            if isinstance(response, Failure):
                self._send_failure(handler, response)
            else:
                self._send_stream(handler, response)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on this attempt

    def _handle_models(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?")[0].rstrip("/")
        with self.lock:
            self.model_requests.append(handler.path)
            models = None if self.models is None else dict(self.models)
        if models is None or not path.startswith("/v1/models"):
            self._send_failure(handler, Failure(503, error_body("api_error", "fake API: the Models API is not served")))
            return
        if path == "/v1/models":
            data = list(models.values())
            body: Any = {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None,
                         "last_id": data[-1]["id"] if data else None}
        elif path.removeprefix("/v1/models/") in models:
            body = models[path.removeprefix("/v1/models/")]
        else:
            self._send_failure(handler, Failure(404, error_body("not_found_error", f"model: {path.removeprefix('/v1/models/')}")))
            return
        payload = json.dumps(body).encode()
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _send_failure(self, handler: BaseHTTPRequestHandler, failure: Failure) -> None:
        is_json = isinstance(failure.body, dict)
        payload = (json.dumps(failure.body) if is_json else str(failure.body)).encode()
        handler.send_response(failure.status)
        handler.send_header("content-type", "application/json" if is_json else "text/plain")
        handler.send_header("content-length", str(len(payload)))
        for name, value in failure.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)

    def _send_stream(self, handler: BaseHTTPRequestHandler, stream: Stream) -> None:
        # HTTP/1.0 without content-length: the body ends when the connection closes, so a cut
        # stream looks to the client exactly like a clean end without `message_stop`.
        if stream.chunked:
            handler.protocol_version = "HTTP/1.1"
            handler.close_connection = True
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("cache-control", "no-cache")
        if stream.chunked:
            handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        handler.wfile.flush()
        for number, (name, data) in enumerate(stream.events):
            if stream.cut_after is not None and number >= stream.cut_after:
                return  # a chunked body is left without its terminating chunk
            if stream.stall_after is not None and number == stream.stall_after:
                if self.stopping.wait(stream.stall):
                    return
            payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
            if stream.chunked:
                payload = f"{len(payload):x}\r\n".encode() + payload + b"\r\n"
            handler.wfile.write(payload)
            handler.wfile.flush()
        if stream.chunked:
            handler.wfile.write(b"0\r\n\r\n")


@pytest.fixture
def fake_api(monkeypatch):
    """A running FakeAPI, with the SDK pointed at it through the environment."""
    api = FakeAPI().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    try:
        yield api
    finally:
        api.stop()
