"""Loading the API client: the first-party API's direct client (`direct.py`, httpx2) or the SDK
(Bedrock, Vertex), imported only on the path that needs it, and ahead of the first request in a
background thread (`preload`) while cast does its other start-up work. Which error types a client
raises depends on which it is (`errors_of`)."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

from cast.models.base import ModelError

_preload_lock = threading.Lock()
_preload_thread: threading.Thread | None = None


def preload() -> None:
    """Import the HTTP client in a daemon thread, so the first request does not pay for it."""
    global _preload_thread
    with _preload_lock:
        if _preload_thread is None:
            _preload_thread = threading.Thread(target=_quiet_import, name="cast-preload-anthropic", daemon=True)
            _preload_thread.start()


def _quiet_import() -> None:
    try:
        import_client()
    except Exception:  # the import on the request path reports it
        pass


def import_client() -> None:
    """httpcore2 imports trio whenever it is installed, for async code under trio that cast never
    runs; on a loaded machine that import is about a third of the client's. It is kept out while
    httpcore2 loads (its trio support is then off, as without trio installed), and importable again
    afterwards by anything else."""
    import sys

    keep_out = "trio" not in sys.modules
    if keep_out:
        sys.modules["trio"] = None  # type: ignore[assignment]  # `import trio` raises ImportError
    try:
        import httpcore2  # noqa: F401  (httpx2 imports its transport on the first client)

        from cast.models.direct import tls_context  # deferred: what the preload thread is for
    finally:
        if keep_out and sys.modules.get("trio", 0) is None:
            del sys.modules["trio"]
    tls_context()


def require_sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise ModelError(f"the anthropic package is not installed ({exc}): pip install anthropic", exit_code=2) from None
    return anthropic


def errors_of(client: Any) -> Any:
    """The module whose error types `client` raises: the direct client's own, or the SDK's."""
    from cast.models import direct  # deferred: keeps httpx2 off the model registry's import

    return direct if isinstance(client, direct.Client) else require_sdk()


def transport_errors() -> tuple[type[BaseException], ...]:
    """Errors of the HTTP library raised while reading a stream (the SDK does not wrap those)."""
    import httpx2  # what the SDK and the direct client are built on

    return (httpx2.TransportError,)


def cut_on(cancel: threading.Event | None, raw: Any) -> threading.Event:
    """Until the returned event is set, a cancel (Esc, Ctrl+C, leaving the REPL) shuts the stream's
    socket down, so a read blocked on a silent stream returns at once rather than when the read
    timeout ends it: closing the response alone does not wake a read blocked in another thread."""
    done = threading.Event()
    if cancel is None:
        return done

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(0.1):
                network = getattr(getattr(raw, "response", None), "extensions", {}).get("network_stream")
                sock = network.get_extra_info("socket") if network is not None and not done.is_set() else None
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                return

    threading.Thread(target=watch, name="cast-stream-cut", daemon=True).start()
    return done
