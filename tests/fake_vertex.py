"""A fake Google Vertex AI endpoint for Claude, on 127.0.0.1, for driving the SDK's
`AnthropicVertex` client (and cast through it) without a network; it also plays the OAuth token
endpoint, so Application Default Credentials are exchanged for a token the way google-auth does.

What it checks, from the platform's documentation
(https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai):
- the URL is `POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/
  {model}:streamRawPredict` (`:rawPredict` without streaming): "model is not passed in the
  request body. Instead, it is specified in the Google Cloud endpoint URL"; a model Vertex doesn't
  serve is a 404; the project and region are the ones the test set up;
- `anthropic_version` is passed in the body "(rather than as a header)": the Vertex value
  `vertex-2023-10-16`, or the API version the SDK sends (`2026-10-21`); missing, a 400;
- `Authorization: Bearer <token>` with a token this endpoint issued (a Google access token;
  anything else is a 401 UNAUTHENTICATED, https://cloud.google.com/docs/authentication);
- the reply is the Messages API's server-sent events, as on the Claude API.

The token endpoint (`POST /token`) answers the JWT-bearer grant (RFC 7523) google-auth sends for a
service-account key file (https://developers.google.com/identity/protocols/oauth2/service-account):
`write_credentials(path)` writes one whose `token_uri` points here. (An `authorized_user` file
can't be pointed anywhere: google-auth always sends its refresh to oauth2.googleapis.com.)

What the model says, and every Messages API rule, is tests/fakeapi.py's (`fake.api.reply(...)`).
"""

from __future__ import annotations

import base64
import json
import re
import secrets
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from fake_bedrock import Call, PlatformFake, Rejected

VERSIONS = {"vertex-2023-10-16", "2026-10-21"}
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
# Vertex AI model names and the Claude API ids they serve (`claude-<name>@<date>` for dated
# snapshots, the bare name for later models, as the Vertex page's table lists them).
VERTEX_IDS = {
    "claude-sonnet-5-5": "claude-sonnet-5-5",
    "claude-opus-5-5": "claude-opus-5-5",
    "claude-haiku-5-5": "claude-haiku-5-5",
    "claude-fable-5-2": "claude-fable-5-2",
    "claude-opus-5": "claude-opus-5",
    "claude-sonnet-5": "claude-sonnet-5",
    "claude-opus-4-8": "claude-opus-4-8",
    "claude-opus-4-6": "claude-opus-4-6",
    "claude-haiku-4-5@20251001": "claude-haiku-4-5",
}
ROUTE = re.compile(
    r"/v1/projects/([^/]+)/locations/([^/]+)/publishers/anthropic/models/([^/:]+(?:@\d{8})?):(streamRawPredict|rawPredict)"
)


@dataclass
class FakeVertex(PlatformFake):
    project: str = "cast-test-project"
    region: str = "us-east5"
    account: str = "cast-test@cast-test-project.iam.gserviceaccount.com"
    public_key: Any = None
    tokens: set[str] = field(default_factory=set)
    token_requests: int = 0

    def write_credentials(self, path: Path) -> Path:
        """A service-account key file (what GOOGLE_APPLICATION_CREDENTIALS names) whose token
        exchange goes to this fake: google-auth signs a JWT with the key and posts it to the file's
        `token_uri` (RFC 7523), which this fake verifies with the public half."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key = key.public_key()
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        info = {
            "type": "service_account",
            "project_id": self.project,
            "private_key_id": "cast-test-key",
            "private_key": pem.decode(),
            "client_email": self.account,
            "client_id": "1234567890",
            "token_uri": f"{self.url}/token",
        }
        path.write_text(json.dumps(info))
        return path

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        if urlsplit(handler.path).path == "/token":
            self._token(handler)
        else:
            super()._serve(handler)

    def _token(self, handler: BaseHTTPRequestHandler) -> None:
        form = parse_qs(handler.rfile.read(int(handler.headers.get("content-length") or 0)).decode())
        self.token_requests += 1
        if form.get("grant_type") == [JWT_GRANT] and self._valid(form.get("assertion", [""])[0], handler):
            token = "ya29.fake-" + secrets.token_hex(8)
            self.tokens.add(token)
            payload = json.dumps({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}).encode()
            handler.send_response(200)
        else:
            payload = json.dumps({"error": "invalid_grant", "error_description": "Invalid JWT Signature."}).encode()
            handler.send_response(400)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _valid(self, assertion: str, handler: BaseHTTPRequestHandler) -> bool:
        """An RS256 JWT signed by the key file's key, from its account, with the cloud-platform scope."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        try:
            head, claims, signature = assertion.split(".")
            self.public_key.verify(_unb64(signature), f"{head}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
            data = json.loads(_unb64(claims))
        except (ValueError, InvalidSignature, AttributeError):
            return False
        # the audience is always Google's token endpoint, whatever URI the assertion is posted to
        return (
            data.get("iss") == self.account
            and data.get("aud") == GOOGLE_TOKEN_AUDIENCE
            and CLOUD_PLATFORM in data.get("scope", "")
        )

    def translate(self, handler: BaseHTTPRequestHandler, raw: bytes, call: Call) -> tuple[str, dict[str, Any], list[str]]:
        auth = call.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.tokens:
            raise Rejected(
                401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token."
            )
        match = ROUTE.fullmatch(unquote(urlsplit(call.path).path))
        if match is None:
            raise Rejected(404, "NOT_FOUND", f"The requested URL {call.path} was not found on this server.")
        project, region, model, method = match.groups()
        if (project, region) != (self.project, self.region):
            raise Rejected(404, "NOT_FOUND", f"Project {project} in {region} is not found or not accessible.")
        if model not in VERTEX_IDS:
            raise Rejected(
                404,
                "NOT_FOUND",
                f"Publisher Model `projects/{project}/locations/{region}/publishers/anthropic/models/{model}` not found.",
            )
        body = dict(call.body)
        if "model" in body:
            raise Rejected(400, "invalid_request_error", "model: Extra inputs are not permitted")
        version = body.pop("anthropic_version", None)
        if version not in VERSIONS:
            raise Rejected(
                400, "invalid_request_error", f"anthropic_version: Input should be 'vertex-2023-10-16' (got {version!r})"
            )
        betas = call.headers.get("anthropic-beta", "")
        if method == "streamRawPredict" and not body.get("stream"):
            raise Rejected(400, "invalid_request_error", "streamRawPredict needs stream: true")
        return VERTEX_IDS[model], body, [b for b in betas.split(",") if b]

    def send_error_body(self, handler: BaseHTTPRequestHandler, exc: Rejected) -> None:
        if exc.kind.isupper():  # a Google API error
            body: dict[str, Any] = {"error": {"code": exc.status, "message": exc.message, "status": exc.kind}}
        else:  # Claude's own, passed through
            body = {"type": "error", "error": {"type": exc.kind, "message": exc.message}}
        payload = json.dumps(body).encode()
        handler.send_response(exc.status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def send_events(self, handler: BaseHTTPRequestHandler, events: list[Any]) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.end_headers()
        for name, data in events:
            handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()


def _unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
