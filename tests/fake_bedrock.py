"""A fake Amazon Bedrock runtime endpoint for Claude, on 127.0.0.1, for driving the SDK's
`AnthropicBedrock` client (and cast through it) without a network.

What it checks, from the platform's documentation:
- the URL is `POST /model/{modelId}/invoke-with-response-stream` (or `/invoke`), the model in the
  path and never in the body (https://docs.aws.amazon.com/bedrock/latest/APIReference/
  API_runtime_InvokeModelWithResponseStream.html; the Anthropic page: "model is passed in the
  URL, not the body"); an id Bedrock doesn't serve is a ValidationException;
- `anthropic_version` is in the body; the ARN-versioned models of the legacy table take only
  `bedrock-2023-05-31` ("The ARN-versioned models in the model table on this page don't support
  2026-10-21 on Bedrock", https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy);
  `stream` is not a body field (the operation streams); betas come as the body's `anthropic_beta`;
- every request is signed with SigV4 for service `bedrock` (`Authorization: AWS4-HMAC-SHA256
  Credential=<key>/<date>/<region>/bedrock/aws4_request, SignedHeaders=..., Signature=...`), and the
  signature is recomputed here with the secret the test gave: a wrong one is a 403, as on AWS
  (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html);
  or a Bedrock API key as `Authorization: Bearer` (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html);
- the reply is an `application/vnd.amazon.eventstream` body: binary frames (prelude with total
  and header lengths and a CRC32, string headers `:event-type: chunk`, `:content-type`,
  `:message-type: event`, a JSON payload `{"bytes": base64(event)}`, a message CRC32), one per
  Messages API stream event (https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html
  for the framing; the Bedrock ResponseStream `chunk` PayloadPart for the payload); a failure
  mid-stream is an exception frame (`:message-type: exception`, `:exception-type:
  throttlingException` and the other ResponseStream error members, a JSON `{"message": ...}`).

What the model says, and every Messages API rule, is tests/fakeapi.py's: the body, with the model
from the path (mapped to the Claude API's id by this file's own table) and the betas from the body,
is handed to a FakeAPI that is scripted as usual (`fake.api.reply(...)`).
"""

from __future__ import annotations

import base64
import json
import re
import struct
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from fakeapi import Failure, FakeAPI, Recorded, Stream
from fakeapi_check import ApiError

LEGACY_VERSION = "bedrock-2023-05-31"
API_VERSION = "2026-10-21"  # what the SDK sends by default
# Bedrock base model ids and the Claude API ids they serve (the legacy page's model table for the
# ARN-versioned ones; the 5.x line in the `anthropic.claude-<name>` form the provider releases list).
BEDROCK_IDS = {
    "anthropic.claude-sonnet-5-5": "claude-sonnet-5-5",
    "anthropic.claude-opus-5-5": "claude-opus-5-5",
    "anthropic.claude-haiku-5-5": "claude-haiku-5-5",
    "anthropic.claude-fable-5-2": "claude-fable-5-2",
    "anthropic.claude-opus-5": "claude-opus-5",
    "anthropic.claude-sonnet-5": "claude-sonnet-5",
    "anthropic.claude-opus-4-8": "claude-opus-4-8",
    "anthropic.claude-opus-4-6-v1": "claude-opus-4-6",
    "anthropic.claude-sonnet-4-6": "claude-sonnet-4-6",
    "anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5",
}
ARN_VERSIONED = {"anthropic.claude-opus-4-6-v1", "anthropic.claude-sonnet-4-6", "anthropic.claude-haiku-4-5-20251001-v1:0"}
PROFILE = re.compile(r"^(?:global|us|us-gov|eu|jp|apac|au)\.")
AUTH = re.compile(
    r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$"
)


class Rejected(Exception):
    def __init__(self, status: int, kind: str, message: str):
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


@dataclass
class Call:
    """One request as the platform saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    status: int = 0
    error: str = ""


@dataclass
class PlatformFake:
    """The HTTP server, the call log and the FakeAPI behind it; subclasses translate."""

    api: FakeAPI = field(default_factory=FakeAPI)
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> PlatformFake:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                fake._serve(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()

    def rejections(self) -> list[Call]:
        return [c for c in self.calls if c.status >= 400]

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("content-length") or 0))
        headers = {k.lower(): v for k, v in handler.headers.items()}
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        call = Call("POST", handler.path, headers, body)
        with self.lock:
            self.calls.append(call)
            try:
                model, inner, betas = self.translate(handler, raw, call)
                record = Recorded("/v1/messages", {"anthropic-beta": ",".join(betas)}, {**inner, "model": model}, raw)
                self.api.requests.append(record)
                answer: Stream | Failure = self.api._answer(record, len(self.api.requests))
            except Rejected as exc:
                call.status, call.error = exc.status, exc.message
                self.send_error_body(handler, exc)
                return
            except ApiError as exc:  # a Messages API rule, as the FakeAPI applies it
                call.status, call.error = exc.status, exc.message
                self.send_error_body(handler, Rejected(exc.status, exc.kind, exc.message))
                return
        if isinstance(answer, Failure) and answer.status == 200:  # a non-streaming reply
            call.status = 200
            self.send_json(handler, answer.body)
            return
        if isinstance(answer, Failure):
            call.status = answer.status
            self.send_error_body(handler, Rejected(answer.status, "ServiceUnavailableException", json.dumps(answer.body)))
            return
        call.status = 200
        self.send_events(handler, answer.events)

    # -- per platform ---------------------------------------------------------------------------
    def translate(self, handler: BaseHTTPRequestHandler, raw: bytes, call: Call) -> tuple[str, dict[str, Any], list[str]]:
        raise NotImplementedError

    def send_error_body(self, handler: BaseHTTPRequestHandler, exc: Rejected) -> None:
        raise NotImplementedError

    def send_events(self, handler: BaseHTTPRequestHandler, events: list[Any]) -> None:
        raise NotImplementedError

    def send_json(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        payload = json.dumps(body).encode()
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message: prelude (total length, headers length, CRC32), string-typed
    headers (type 7), the payload, and the CRC32 of everything before it."""
    encoded = b"".join(
        bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value.encode()
        for name, value in headers.items()
    )
    prelude = struct.pack(">II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


def chunk(event: dict[str, Any]) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode()
    return frame({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)


@dataclass
class FakeBedrock(PlatformFake):
    """`secrets`: access key id -> secret access key the signature is checked against."""

    secrets: dict[str, str] = field(default_factory=dict)
    api_keys: set[str] = field(default_factory=set)
    cuts: list[tuple[int, str, str]] = field(default_factory=list)  # (events sent, exception type, message), next streams first

    def cut_next(self, after: int, kind: str, message: str) -> None:
        """The next stream sends `after` events, then an exception frame of type `kind`."""
        self.cuts.append((after, kind, message))

    def translate(self, handler: BaseHTTPRequestHandler, raw: bytes, call: Call) -> tuple[str, dict[str, Any], list[str]]:
        self._authenticate(handler, raw, call.headers)
        match = re.fullmatch(r"/model/([^/]+)/(invoke-with-response-stream|invoke)", urlsplit(call.path).path)
        if match is None:
            raise Rejected(404, "UnknownOperationException", f"no operation at {call.path}")
        model_id = unquote(match[1])
        base = PROFILE.sub("", model_id)
        if base not in BEDROCK_IDS:
            raise Rejected(400, "ValidationException", "The provided model identifier is invalid.")
        body = dict(call.body)
        for key in ("model", "stream"):
            if key in body:
                raise Rejected(400, "ValidationException", f"Malformed input request: #: extraneous key [{key}] is not permitted")
        version = body.pop("anthropic_version", None)
        allowed = {LEGACY_VERSION} if base in ARN_VERSIONED else {LEGACY_VERSION, API_VERSION}
        if version is None:
            raise Rejected(400, "ValidationException", "Malformed input request: #: required key [anthropic_version] not found")
        if version not in allowed:
            raise Rejected(400, "ValidationException", f"anthropic_version {version} is not supported for {model_id}")
        betas = body.pop("anthropic_beta", None) or []
        return BEDROCK_IDS[base], {**body, "stream": match[2] == "invoke-with-response-stream"}, list(betas)

    def _authenticate(self, handler: BaseHTTPRequestHandler, raw: bytes, headers: dict[str, str]) -> None:
        auth = headers.get("authorization", "")
        if auth.startswith("Bearer ") and auth[7:] in self.api_keys:
            return
        match = AUTH.match(auth)
        if match is None:
            raise Rejected(403, "AccessDeniedException", "Missing Authentication Token")
        key, _, region, service, signed, signature = match.groups()
        if service != "bedrock" or key not in self.secrets:
            raise Rejected(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
        if signature != self._signature(handler, raw, headers, key, region, signed.split(";")):
            raise Rejected(
                403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided."
            )

    def _signature(
        self, handler: BaseHTTPRequestHandler, raw: bytes, headers: dict[str, str], key: str, region: str, signed: list[str]
    ) -> str:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        request = AWSRequest(
            method="POST",
            url=f"http://{headers['host']}{handler.path}",
            data=raw,
            headers={h: headers.get(h, "") for h in signed},
        )
        request.context["timestamp"] = headers.get("x-amz-date", "")
        signer = SigV4Auth(Credentials(key, self.secrets[key], headers.get("x-amz-security-token")), "bedrock", region)
        return signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)

    def send_error_body(self, handler: BaseHTTPRequestHandler, exc: Rejected) -> None:
        payload = json.dumps({"message": exc.message}).encode()
        handler.send_response(exc.status)
        handler.send_header("content-type", "application/json")
        handler.send_header("x-amzn-errortype", f"{exc.kind}:http://internal.amazon.com/coral/com.amazon.bedrock/")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def send_events(self, handler: BaseHTTPRequestHandler, events: list[Any]) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/vnd.amazon.eventstream")
        handler.send_header("x-amzn-bedrock-content-type", "application/json")
        handler.end_headers()
        cut = self.cuts.pop(0) if self.cuts else None
        for _, data in events[: cut[0]] if cut else events:
            handler.wfile.write(chunk(data))
            handler.wfile.flush()
        if cut:
            headers = {":message-type": "exception", ":exception-type": cut[1], ":content-type": "application/json"}
            handler.wfile.write(frame(headers, json.dumps({"message": cut[2]}).encode()))
