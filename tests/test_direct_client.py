"""cast's direct Messages client (cast/models/direct.py) against the real SDK: the same request on
the wire, the same events, the same errors with the same fields, for the same answers of the fake
API. Each test sends through both and compares, so a drift in either shows here."""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import date
from typing import Any

import anthropic
import pytest
from anthropic._streaming import SSEDecoder
from fakeapi import FakeAPI, Stream, api, error_event, message_events, text, thinking, tool_use  # noqa: F401  (api: a fixture)

from cast.models import direct
from cast.models.reply import Reply

MODEL = "claude-sonnet-5-5"
USER = [{"role": "user", "content": [{"type": "text", "text": "go"}]}]
HEADERS = ("anthropic-version", "authorization", "anthropic-beta", "content-type", "accept", "x-stainless-retry-count")


def clients(api: FakeAPI) -> list[Any]:
    return [
        anthropic.Anthropic(base_url=api.url, api_key="test-key", max_retries=0),
        direct.Client(base_url=api.url, api_key="test-key", max_retries=0),
    ]


def call(client: Any, betas: list[str] | None = None, **body: Any) -> Any:
    params = {"model": MODEL, "max_tokens": 100, "messages": USER, "stream": True, "timeout": 30.0, **body}
    return client.beta.messages.create(betas=betas, **params) if betas else client.messages.create(**params)


def assembled(stream: Any) -> list[Any]:
    reply = Reply()
    fed = [out for event in stream for out in reply.feed(event)]
    return fed + list(reply.finish())


def test_the_api_version_is_the_sdks():
    from anthropic._constants import ANTHROPIC_API_VERSION

    assert direct.API_VERSION == ANTHROPIC_API_VERSION


@pytest.mark.parametrize("betas", [None, ["context-management-2025-06-27"]], ids=["messages", "beta"])
def test_the_request_on_the_wire_is_the_sdks(api, betas):
    for client in clients(api):
        api.reply(text("hi"))
        list(call(client, betas, system=[{"type": "text", "text": "s"}]))
    sdk, ours = api.requests
    assert ours.path == sdk.path and ours.body == sdk.body and ours.status == sdk.status == 200
    assert {h: ours.headers.get(h) for h in HEADERS} == {h: sdk.headers.get(h) for h in HEADERS}
    assert ours.raw == sdk.raw  # the same bytes: the same key order and separators


def test_an_auth_token_is_sent_as_the_sdk_sends_it(api, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for client in (anthropic.Anthropic(base_url=api.url, max_retries=0), direct.Client(base_url=api.url)):
        api.reply(text("hi"))
        list(call(client))
    assert [r.headers["authorization"] for r in api.requests] == ["Bearer gateway-token"] * 2


def test_the_events_assemble_to_the_same_reply(api):
    blocks = (thinking("hmm", "sig"), text("hello " * 5), tool_use("toolu_1", "read_file", {"path": "a.py"}))
    results = []
    for client in clients(api):
        api.push(Stream(message_events(*blocks, stop_reason="tool_use", chunk=3)))
        results.append(assembled(call(client)))
    assert results[0] == results[1] and len(results[0]) > 5


def error_fields(exc: BaseException) -> tuple:
    kind = next(
        k for k in ("APITimeoutError", "APIConnectionError", "APIStatusError") if any(c.__name__ == k for c in type(exc).__mro__)
    )
    status = getattr(exc, "status_code", None)
    headers = {k: exc.response.headers.get(k) for k in ("retry-after", "x-should-retry")} if status else {}
    return kind, status, getattr(exc, "type", None), getattr(exc, "api_message", None), str(exc), headers


def failure_of(client: Any, stream: bool = False) -> tuple:
    with pytest.raises(Exception) as caught:  # noqa: B017 — which type is what is compared
        list(call(client))
    return error_fields(caught.value)


@pytest.mark.parametrize(
    "status, kind, headers",
    [
        (529, "overloaded_error", {"retry-after": "3"}),
        (400, "invalid_request_error", {}),
        (500, "api_error", {"x-should-retry": "false"}),
    ],
)
def test_an_http_error_is_the_sdks_error(api, status, kind, headers):
    seen = []
    for client in clients(api):
        api.fail(status, kind, "it went wrong", headers=dict(headers))
        seen.append(failure_of(client))
    assert seen[0] == seen[1] and seen[0][:3] == ("APIStatusError", status, kind)


def test_an_error_event_mid_stream_is_the_sdks_error(api):
    seen = []
    for client in clients(api):
        api.push(Stream(message_events(text("half"))[:3] + [error_event("overloaded_error", "Overloaded")]))
        seen.append(failure_of(client))
    assert seen[0] == seen[1] and seen[0][:4] == ("APIStatusError", 200, "overloaded_error", "Overloaded")


def test_a_refused_connection_is_the_sdks_connection_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"  # bound, never listening: refused
        seen = []
        for client in (anthropic.Anthropic(base_url=url, api_key="k", max_retries=0), direct.Client(base_url=url, api_key="k")):
            with pytest.raises(Exception) as caught:  # noqa: B017
                call(client)
            seen.append((error_fields(caught.value), type(caught.value.__cause__).__name__))
    assert seen[0] == seen[1] and seen[0][0][0] == "APIConnectionError"


STREAM = (
    b": a comment\r\nevent: ping\r\ndata: {}\r\n\r\n"
    b'event: message_start\ndata: {"a":\ndata: 1}\n\n'
    b"data: no name\n\n"
    b'event: x\r\rid: 7\nevent: content_block_stop\ndata:{"index": 0}\n\n'
    b"event: tail\ndata: never ended"
)


@pytest.mark.parametrize("size", [1, 2, 5, 7, 64, len(STREAM)])
def test_server_sent_events_are_split_as_the_sdk_splits_them(size):
    chunks = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    sdk = [(e.event, e.data) for e in SSEDecoder().iter_bytes(iter(chunks))]
    assert list(direct.sse(iter(chunks))) == sdk and len(sdk) >= 4


def test_a_first_party_run_never_imports_the_sdk(api):
    api.reply(text("hello"))
    code = (
        "import sys; from cast.config import Config; from cast.models import base as m; "
        "from cast.models.anthropic import AnthropicModel; "
        f"model = AnthropicModel('{MODEL}', Config(retries=1), api_key='k', base_url='{api.url}'); "
        f"stop = list(model.stream(m.Request('s', (), ({USER[0]!r},), 100)))[-1]; "
        "print(stop.content, 'anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "({'type': 'text', 'text': 'hello'},) False", out.stderr


def test_the_models_api_answers_as_the_sdks(api):
    api.serve_models()
    sdk, ours = clients(api)
    listed = [m.to_dict(mode="json") for m in sdk.models.list(limit=2)]
    assert [dict(m) for m in ours.models.list(limit=2)] == listed and len(listed) > 2  # more than one page
    assert dict(ours.models.retrieve(MODEL)) == sdk.models.retrieve(MODEL).to_dict(mode="json")
    missing = []
    for client in (sdk, ours):
        with pytest.raises(Exception) as caught:  # noqa: B017
            client.models.retrieve("claude-nothing-1")
        missing.append((type(caught.value).__name__, *error_fields(caught.value)))
    assert missing[0] == missing[1] and missing[0][:3] == ("NotFoundError", "APIStatusError", 404)


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:9", "http://127.0.0.1:9/", "http://gw.example/proxy", "https://gw.example/proxy/"]
)
def test_the_base_url_reads_as_the_sdks(base):
    """Messages name it ("cannot reach http://127.0.0.1:9: ...")."""
    sdk = anthropic.Anthropic(base_url=base, api_key="k")
    assert str(direct.Client(base_url=base, api_key="k").base_url) == str(sdk.base_url)


def test_the_models_api_answers_make_the_same_specs(api):
    from fakeapi import model_info

    from cast.models.lookup import from_info

    api.serve_models()
    api.models["claude-old-1"] = model_info("claude-old-1", "retired", "2026-11-29T00:00:00Z")
    sdk, ours = clients(api)
    for model_id in api.models:
        assert from_info(ours.models.retrieve(model_id)) == from_info(sdk.models.retrieve(model_id)), model_id
    assert from_info(ours.models.retrieve("claude-old-1")).retires_at == date(2026, 11, 29)
