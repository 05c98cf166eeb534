"""The direct client's TLS context is built ahead of the first request (in the preload thread), and is
still the one `verify=True` gives: the server is verified against the system's CA bundle, or the one
SSL_CERT_FILE names when it is set, read again when that variable changes."""

from __future__ import annotations

import json
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from cast.models import direct, loading


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def https_server(certificate):
    cert, key = certificate

    class Models(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"data": [], "has_more": False, "first_id": None, "last_id": None}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Models)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_server_the_system_does_not_trust_is_refused(https_server, monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    client = direct.Client(api_key="k", base_url=https_server)
    with pytest.raises(direct.APIConnectionError) as raised:
        client.get("/v1/models")
    assert isinstance(raised.value.__cause__, Exception) and "CERTIFICATE_VERIFY_FAILED" in str(raised.value.__cause__)


def test_ssl_cert_file_is_honoured_even_after_a_context_was_built(https_server, certificate, monkeypatch):
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    direct.tls_context()  # the system's bundle, as a preload would have built it
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    client = direct.Client(api_key="k", base_url=https_server)
    assert client.get("/v1/models").has_more is False


def test_the_preload_builds_the_context_the_client_then_uses(monkeypatch, certificate):
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    built: list[ssl.SSLContext] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        built.append(self)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    monkeypatch.setattr(direct, "_tls", {})
    loading.import_client()
    assert len(built) == 1
    direct.Client(api_key="k", base_url="https://127.0.0.1:9")
    assert len(built) == 1  # the client read no bundle of its own
