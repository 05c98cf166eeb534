"""A fake Anthropic Messages API that behaves like today's (December 2026) API, for driving the
real SDK without a network.

It speaks the wire protocol the SDK reads: `POST /v1/messages` answered by a `text/event-stream`
in which every event has its `event:` line and its `data:` line. It validates every request the
way the real API does (`fakeapi_check.py`: sampling parameters, thinking types per model, forced
tool choice, prefill, cache breakpoints, `role: "system"` placement, betas without their header,
retired models...) and answers a rejected request with the API's error envelope, without using up
a scripted reply. Accepted requests get the next scripted reply, rendered for that request:

- thinking blocks as the request's `thinking` asks: empty plus a signature under `display:
  "omitted"` (the 5.x default), filled under `"summarized"`; `note(...)` blocks are the progress
  updates the 5.5 models write between tool calls (filled under `between_tools` and `"updates"`
  too, text when thinking is off);
- every thinking block signed against its prefix, and every echoed one checked on the next
  request (`fakeapi_wire.py` defines both), with `drop_block` honoured;
- usage from emulated prompt caching and server-side context editing (`fakeapi_context.py`).

It also serves `POST /v1/messages/count_tokens`, and `GET /v1/models` and `GET /v1/models/{id}`
once a test gives it models (`api.serve_models()`: the whole line-up of `fakeapi_models.py`,
retired models kept as records, as the SDK documents; until then 503, an API that can't be asked).

Scripting, in order:

    api.reply(note("Reading the config."), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    api.reply(text("Can't help with that."), stop_reason="refusal", stop_details=refusal("cyber"))
    api.fail(529, "overloaded_error", "Overloaded", headers={"retry-after": "1"})
    api.push(Stream(events[:4] + [error_event("overloaded_error", "Overloaded")]))   # sent verbatim
    api.push(Stream(turn=Turn([text("cut")]), cut_after=5))                          # rendered, then cut

and read back every request (`api.requests`: path, headers, JSON body, the status it got, the
reply as sent and the context edits applied; `api.rejections()` lists the 4xx answers). An accepted request with nothing scripted gets a 400
naming it, so a test that sends more than it expected fails loudly.

Its facts come from the documentation, never from cast (no `cast` import in any fakeapi*.py;
tests/test_fakeapi_docs.py checks): the rules and their pages are in fakeapi_check.py, the models in
fakeapi_models.py, the wire computations in fakeapi_wire.py / fakeapi_context.py / fakeapi_ttl.py,
the reply shapes in fakeapi_blocks.py. The Models API: https://platform.claude.com/docs/en/api/models
and the SDK's `types/model_info.py` (retired models kept as records, `lifecycle` filter, cursors).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from fakeapi_blocks import (  # noqa: F401  (re-exported: tests script replies with these)
    DEFAULT_MODEL,
    Event,
    adapt,
    error_body,
    error_event,
    message_events,
    note,
    redacted,
    refusal,
    text,
    thinking,
    tool_use,
)
from fakeapi_check import BETA_BINDING, ApiError, bad, validate
from fakeapi_context import apply_edits, compaction_due
from fakeapi_models import FakeModel, find, lineup_infos, list_page, model_info, reads  # noqa: F401  (model_info re-exported)
from fakeapi_wire import PromptCache, canonical, check_thinking_blocks, flatten, sign_turn, without_paths


@dataclass
class Turn:
    """One scripted model turn, rendered for the request it answers."""

    blocks: list[dict[str, Any]]
    stop_reason: str | None = None
    stop_details: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None  # overrides the computed usage, key by key
    output_tokens: int = 17
    chunk: int = 4
    message_id: str = "msg_fake"
    compaction: str = "Summary: the conversation so far, compacted."  # a compaction block's content, when one is due


@dataclass
class Stream:
    """A 200 event stream: `events` sent verbatim, or `turn` rendered for the request. `cut_after`:
    send only that many events, then close the connection (no `message_stop`); with `chunked`,
    the body is chunk-encoded, so the cut is a broken transfer the HTTP client notices. `then`: an
    event sent after the cut (a mid-stream `error`). `stall_after`: go silent for `stall` seconds."""

    events: list[Event] = field(default_factory=list)
    turn: Turn | None = None
    cut_after: int | None = None
    stall_after: int | None = None
    stall: float = 0.0
    chunked: bool = False
    then: Event | None = None


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
    status: int = 0  # what the fake answered
    error: str = ""  # the error message of a 4xx/5xx answer
    reply: list[dict[str, Any]] = field(default_factory=list)  # a rendered turn's blocks, as sent
    applied: list[dict[str, Any]] = field(default_factory=list)  # context edits applied to what the model saw
    usage: dict[str, Any] = field(default_factory=dict)  # the usage the answer reported, output tokens included


class FakeAPI:
    def __init__(self) -> None:
        self.responses: deque[Stream | Failure] = deque()
        self.model_failures: deque[Failure] = deque()  # answers for the next GET /v1/models* requests
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None
        self.cache = PromptCache()
        self.paused: set[str] = set()  # pause_turn replies, which may come back as the last message
        self.max_input_tokens: dict[str, int] = {}  # per-model window overrides, for tests
        # The Models API (`GET /v1/models[/{id}]`): None answers 503, as an API that can't be asked;
        # a dict of id -> ModelInfo JSON (`serve_models()` for the whole line-up, `model_info` for
        # one made up) serves those models and 404s others. Its requests go to `model_requests`.
        self.models: dict[str, dict[str, Any]] | None = None
        self.model_requests: list[str] = []
        self.extra: dict[str, FakeModel] = {}  # models a test made up (`add_model`), answered like the line-up
        # A model that decides from what it sees: called with the prompt's items after context
        # edits (what the model would read) when nothing is scripted; returns the turn to send.
        self.responder: Callable[[list[Any]], Turn] | None = None
        # Conversations answered apart (a parent and the subagents it starts, some at once): `route`
        # names a request's conversation from its body, and each has its own script (`reply_to`).
        self.route: Callable[[dict[str, Any]], str] | None = None
        self.routed: dict[str, deque[Stream | Failure]] = {}

    def add_model(self, model: FakeModel) -> FakeModel:
        """A model beyond the documented line-up (a newer one than the docs know): the Messages API
        answers for it by its facts, and the Models API serves it."""
        self.extra[model.id] = model
        self.models = {**(self.models or {}), model.id: model.info()}
        return model

    # -- scripting ------------------------------------------------------------------------
    def push(self, *responses: Stream | Failure) -> None:
        with self.lock:
            self.responses.extend(responses)

    def reply(self, *blocks: dict[str, Any], **options: Any) -> Turn:
        turn = Turn(list(blocks), **options)
        self.push(Stream(turn=turn))
        return turn

    def reply_to(self, conversation: str, *blocks: dict[str, Any], **options: Any) -> Turn:
        """A turn for the conversation `route` names `conversation`."""
        turn = Turn(list(blocks), **options)
        with self.lock:
            self.routed.setdefault(conversation, deque()).append(Stream(turn=turn))
        return turn

    def fail(self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None) -> None:
        self.push(Failure(status, error_body(error_type, message), headers or {}))

    def serve_models(self) -> FakeAPI:
        """Serve the Models API for the whole line-up (current, legacy, deprecated, retired)."""
        self.models = lineup_infos()
        return self

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.startswith("/v1/messages")]

    def rejections(self) -> list[Recorded]:
        return [r for r in self.requests if 400 <= r.status < 500]

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAPI:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                api._handle(self)

            def do_GET(self) -> None:
                api._handle(self)

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
        url = urlsplit(handler.path)
        record = Recorded(url.path, {k.lower(): v for k, v in handler.headers.items()}, body, raw)
        with self.lock:
            response: Stream | Failure
            if handler.command == "GET":
                self.model_requests.append(handler.path)
                try:
                    response = self._models(url.path.rstrip("/"), parse_qs(url.query))
                except ApiError as exc:
                    response = Failure(exc.status, exc.body())
            else:
                self.requests.append(record)
                try:
                    response = self._answer(record, len(self.requests))
                except ApiError as exc:
                    response = Failure(exc.status, exc.body())
                record.status = 200 if isinstance(response, Stream) else response.status
                if isinstance(response, Failure) and isinstance(response.body, dict):
                    record.error = str((response.body.get("error") or {}).get("message", ""))
        try:
            if isinstance(response, Failure):
                self._send_failure(handler, response)
            else:
                self._send_stream(handler, response)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up on this attempt

    def _models(self, path: str, query: dict[str, list[str]]) -> Failure:
        if self.model_failures:
            return self.model_failures.popleft()
        if self.models is None:
            return Failure(503, error_body("api_error", "fake API: the Models API is not served"))
        if path == "/v1/models":
            return _json(list_page(list(self.models.values()), query))
        name = unquote(path.removeprefix("/v1/models/"))
        if path.startswith("/v1/models/") and name in self.models:
            return _json(self.models[name])
        raise ApiError(404, "not_found_error", f"model: {name}")

    def _answer(self, record: Recorded, number: int) -> Stream | Failure:
        path = record.path
        body = record.body
        betas = {b.strip() for b in record.headers.get("anthropic-beta", "").split(",") if b.strip()}
        if path == "/v1/messages/count_tokens":
            model = validate(body, betas, count_tokens=True, paused=self.paused, extra=self.extra)
            items, _, _ = self._prompt(body, model, betas)
            return _json({"input_tokens": sum(item.tokens for item in items)})
        if path != "/v1/messages":
            raise ApiError(404, "not_found_error", f"Not found: {path}")
        model = validate(body, betas, paused=self.paused, extra=self.extra)
        items, transformations, applied = self._prompt(body, model, betas)
        queue = self.responses if self.route is None else self.routed.get(self.route(body), deque())
        response = queue.popleft() if queue else None  # under self.lock (_handle)
        if response is None and self.responder is not None:
            response = Stream(turn=self.responder(items))
        if response is None:
            raise bad(f"fake API: nothing scripted for request {number}")
        if isinstance(response, Failure) or response.turn is None:
            return response
        return self._render(response, record, model, items, transformations if BETA_BINDING in betas else None, applied)

    def _prompt(
        self, body: dict[str, Any], model: Any, betas: set[str]
    ) -> tuple[list[Any], list[dict[str, Any]], list[dict[str, Any]]]:
        """What the model would see: the request's items less dropped thinking blocks and with
        context edits applied; a 400 for a failed prefix check or a prompt over the window."""
        items = flatten(body)
        transformations, error = check_thinking_blocks(body, items, model, reads, model.binding_enforced)
        if error:
            raise bad(error)
        dropped = {t["path"] for t in transformations if t["type"] == "thinking_dropped"}
        seen, applied = apply_edits(body, without_paths(items, dropped))
        total = sum(item.tokens for item in seen)
        window = self.max_input_tokens.get(model.id, model.max_input_tokens)
        if total > window:
            raise bad(f"prompt is too long: {total} tokens > {window} maximum")
        return seen, transformations, applied

    def _render(
        self,
        stream: Stream,
        record: Recorded,
        model: Any,
        seen: list[Any],
        transformations: list[dict[str, Any]] | None,
        applied: list[dict[str, Any]],
    ) -> Stream | Failure:
        """The scripted turn as this request gets it: a stream, or one JSON message when the
        request did not ask to stream."""
        turn, body = stream.turn, record.body
        assert turn is not None
        scripted = adapt(turn.blocks, body, model)
        compact = compaction_due(body, seen)
        if compact is not None:
            summary = {"type": "compaction", "content": turn.compaction}
            scripted = [summary] if compact.get("pause_after_compaction") else [summary, *scripted]
        blocks = sign_turn(model.id, flatten(body), scripted)
        record.reply, record.applied = blocks, applied
        if (body.get("output_config") or {}).get("format"):
            for block in blocks:
                if block["type"] == "text":
                    try:
                        json.loads(block["text"])
                    except json.JSONDecodeError:
                        raise bad("fake API: output_config.format is set but the scripted text is not JSON") from None
        usage: dict[str, Any] = self.cache.charge(body, seen, model.min_cache).usage()
        usage["output_tokens"] = 1
        usage.update(turn.usage or {})
        record.usage = {**usage, "output_tokens": turn.output_tokens}
        stop_reason = turn.stop_reason
        if compact is not None and compact.get("pause_after_compaction"):
            stop_reason = "compaction"
        if stop_reason is None:
            stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        if stop_reason == "pause_turn":
            self.paused.add(canonical(blocks))
        extra_start = {"input_transformations": transformations} if transformations is not None else None
        extra_delta = {"context_management": {"applied_edits": applied}} if body.get("context_management") else None
        if not body.get("stream"):
            return _json(
                {
                    "id": turn.message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": body["model"],
                    "content": blocks,
                    "stop_reason": stop_reason,
                    "stop_sequence": None,
                    "stop_details": turn.stop_details,
                    "usage": {**usage, "output_tokens": turn.output_tokens},
                    **(extra_start or {}),
                    **(extra_delta or {}),
                }
            )
        events = message_events(
            *blocks,
            stop_reason=stop_reason,
            usage=usage,
            output_tokens=turn.output_tokens,
            chunk=turn.chunk,
            model=body["model"],
            message_id=turn.message_id,
            stop_details=turn.stop_details,
            extra_start=extra_start,
            extra_delta=extra_delta,
        )
        return Stream(events, None, stream.cut_after, stream.stall_after, stream.stall, stream.chunked, stream.then)

    def _send_failure(self, handler: BaseHTTPRequestHandler, failure: Failure) -> None:
        is_json = isinstance(failure.body, (dict, list))
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
        events = list(stream.events)
        if stream.cut_after is not None:
            events = events[: stream.cut_after] + ([stream.then] if stream.then else [])
        elif stream.then:
            events.append(stream.then)
        for number, (name, data) in enumerate(events):
            if stream.stall_after is not None and number == stream.stall_after and self.stopping.wait(stream.stall):
                return
            payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
            if stream.chunked:
                payload = f"{len(payload):x}\r\n".encode() + payload + b"\r\n"
            handler.wfile.write(payload)
            handler.wfile.flush()
        if stream.chunked and stream.cut_after is None:
            handler.wfile.write(b"0\r\n\r\n")


class _Json(Failure):
    """A 200 JSON answer (shares the failure path's plain-body writer)."""


def _json(body: dict[str, Any]) -> Failure:
    return _Json(200, body)


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


@pytest.fixture
def api():
    """A running FakeAPI for tests that talk to it through their own client."""
    server = FakeAPI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def client(api):
    """The real SDK pointed at `api`, with its own retries off (the fake's answers are the subject)."""
    import anthropic

    return anthropic.Anthropic(base_url=api.url, api_key="test-key", max_retries=0)
