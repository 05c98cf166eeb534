"""One MCP server's live session, driven from cast's threads.

The `mcp` SDK is async (anyio); cast's loop is threads. Every connection of a process shares one
event loop on a daemon thread (`_Loop`); a connection's own task enters the SDK's `Client` context
and holds it until `close`, because anyio scopes must be left by the task that entered them, and
calls are sent from other tasks on the same loop. A caller waits in its own thread, polling its
cancel event and its deadline, so Ctrl+C and a hung server both end the wait on time (the call's
task is cancelled, which the SDK turns into `notifications/cancelled`).

Nothing the server says reaches a terminal from here: its stderr goes to a private temp file (its
last line is quoted, made visible, when it fails to start) and the SDK's own logging is silenced.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, field
from typing import Any

from cast.text import one_line, terminal_safe
from cast.version import VERSION

POLL = 0.05  # seconds between looks at the cancel event while a call runs
CLOSE_WAIT = 8.0  # at most this long for a server to be stopped (the SDK's own bounded shutdown is ~6 s)
STDERR_TAIL = 300


class ServerError(Exception):
    """The server failed (did not start, lost its connection, answered with a protocol error)."""


class ServerGone(ServerError):
    """The connection ended under a call: the server died or closed it."""


class CallTimedOut(ServerError):
    pass


class CallCancelled(ServerError):
    pass


@dataclass
class Launch:
    """What to start or reach: a stdio command line (already wrapped in the sandbox) or an HTTP url."""

    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)


class _Loop:
    """The process's one event loop for MCP, on a daemon thread started on first use."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="cast-mcp", daemon=True)
        self.thread.start()

    def submit(self, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


_shared: _Loop | None = None
_lock = threading.Lock()


def shared_loop() -> _Loop:
    global _shared
    with _lock:
        if _shared is None:
            quiet = logging.getLogger("mcp")  # its warnings quote what servers send: never to the terminal
            quiet.addHandler(logging.NullHandler())
            quiet.propagate = False
            _shared = _Loop()
        return _shared


class Connection:
    """A started server: its tools (as JSON), its instructions, and calls until `close`."""

    def __init__(self, name: str, launch: Launch):
        self.name = name
        self.launch = launch
        self.tools: list[dict[str, Any]] = []
        self.instructions = ""
        self._loop = shared_loop()
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._subscription: Any = None  # the 2026-07-28 `subscriptions/listen` stream of tool changes
        self._changed = False  # a legacy `notifications/tools/list_changed` arrived
        self._owner: concurrent.futures.Future[Any] | None = None
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace", prefix="cast-mcp-")
        self.gone = False

    def start(self, timeout: float) -> None:
        """Connect and list the tools, within `timeout` seconds; a ServerError says why not."""
        ready: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._owner = self._loop.submit(self._own(ready))
        try:
            ready.result(timeout)
        except concurrent.futures.TimeoutError:
            self.close()
            raise ServerError(f"did not start within {timeout:g} s{self._said()}") from None
        except Exception as exc:  # noqa: BLE001 — whatever the SDK or the process raised, named in one line
            self.close()
            raise ServerError(f"{_reason(exc)}{self._said()}") from None

    async def _own(self, ready: concurrent.futures.Future[Any]) -> None:
        from mcp import Client

        self._stop = asyncio.Event()
        try:
            async with Client(self._target(), message_handler=self._message, cache=None, client_info=_info()) as client:
                self.tools = await _list_tools(client)
                self.instructions = client.session.instructions or ""
                async with _listening(client) as self._subscription:
                    self._client = client
                    ready.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ServerError("cancelled"))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            self.gone = True

    def _target(self) -> Any:
        if self.launch.url:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=self.launch.headers)
            return streamable_http_client(self.launch.url, http_client=http)
        from mcp.client.stdio import stdio_client

        return _StdioTransport(stdio_client, self.launch, self._stderr)

    async def _message(self, message: Any) -> None:
        if getattr(message, "method", "") == "notifications/tools/list_changed":
            self._changed = True

    def tools_changed(self) -> bool:
        """Whether the server said its tools changed since the last look (and forget that it did).
        Events are queued in receive order, so one sent before a call's answer is seen here after it."""

        async def drained() -> bool:
            route = getattr(self._subscription, "_route", None)
            pending = getattr(route, "_pending", None)
            changed, self._changed = self._changed or bool(pending), False
            if pending:
                pending.clear()
            return changed

        if self._client is None:
            return False
        return bool(self._wait(self._loop.submit(drained()), 30, threading.Event()))

    def relist(self, timeout: float) -> list[dict[str, Any]]:
        """The server's tools now (after list_changed, or to compare with the pinned ones)."""
        client = self._live()
        tools: list[dict[str, Any]] = self._wait(self._loop.submit(_list_tools(client)), timeout, threading.Event())
        return tools

    def call(self, tool: str, arguments: dict[str, Any], timeout: float, cancel: threading.Event) -> dict[str, Any]:
        """`tools/call`, its result as JSON; ServerGone, CallTimedOut, CallCancelled or ServerError."""
        client = self._live()

        async def send() -> dict[str, Any]:
            result = await client.call_tool(tool, arguments)
            return dict(result.model_dump(mode="json", by_alias=True, exclude_none=True))

        result: dict[str, Any] = self._wait(self._loop.submit(send()), timeout, cancel)
        return result

    def _live(self) -> Any:
        client = self._client
        if client is None or self.gone:
            raise ServerGone("the server is not running")
        return client

    def _wait(self, future: concurrent.futures.Future[Any], timeout: float, cancel: threading.Event) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return future.result(POLL)
            except concurrent.futures.TimeoutError:
                if cancel.is_set():
                    future.cancel()
                    raise CallCancelled("interrupted") from None
                if time.monotonic() >= deadline:
                    future.cancel()
                    raise CallTimedOut(f"no answer within {timeout:g} s") from None
            except concurrent.futures.CancelledError:
                raise CallCancelled("interrupted") from None
            except Exception as exc:  # noqa: BLE001 — the SDK's errors, said in one line
                if self.gone or _closed(exc):
                    self.gone = True
                    raise ServerGone(f"the server's connection ended ({_reason(exc)}){self._said()}") from None
                raise ServerError(_reason(exc)) from None

    def close(self) -> None:
        """Stop the server (stdio: the SDK closes stdin, then terminates its process group)."""
        stop, owner = self._stop, self._owner
        if stop is not None:
            self._loop.loop.call_soon_threadsafe(stop.set)
        if owner is not None:
            try:
                owner.result(CLOSE_WAIT)
            except concurrent.futures.TimeoutError:
                owner.cancel()
            except BaseException:  # noqa: BLE001 — it failed on its way out: it is out
                pass
        self.gone = True
        self._stderr.close()

    def _said(self) -> str:
        """The last line the server wrote to stderr, made visible, for a failure's one line."""

        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [line for line in self._stderr.read()[-20_000:].splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return f"; it said: {terminal_safe(one_line(lines[-1], STDERR_TAIL))}" if lines else ""


class _StdioTransport:
    """The SDK's stdio transport for an argv cast built, its stderr to a private file."""

    def __init__(self, stdio_client: Any, launch: Launch, errlog: Any):
        from mcp.client.stdio import StdioServerParameters

        params = StdioServerParameters(command=launch.argv[0], args=launch.argv[1:], env=launch.env, cwd=launch.cwd or None)
        self._context = stdio_client(params, errlog=errlog)

    async def __aenter__(self) -> Any:
        return await self._context.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._context.__aexit__(*exc)


@contextlib.asynccontextmanager
async def _listening(client: Any) -> AsyncIterator[Any]:
    """A `subscriptions/listen` stream for tool changes where the server offers one (2026-07-28),
    else None (a legacy server sends `notifications/tools/list_changed` on the session)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    tools = getattr(client.session.server_capabilities, "tools", None)
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or not getattr(tools, "list_changed", False):
        yield None
        return
    try:
        subscription = client.listen(tools_list_changed=True)
        entered = await subscription.__aenter__()
    except Exception:  # noqa: BLE001 — no stream: changes are then seen at a restart only
        yield None
        return
    try:
        yield entered
    finally:
        with contextlib.suppress(Exception):
            await subscription.__aexit__(None, None, None)


async def _list_tools(client: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):  # a paginator that never ends cannot hang start-up
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        tools += [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _info() -> Any:
    from mcp.types import Implementation

    return Implementation(name="cast", version=VERSION)


def _closed(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError

    code = getattr(exc, "code", None) if isinstance(exc, MCPError) else None
    return code == -32000 or isinstance(exc, (EOFError, BrokenPipeError, ConnectionError)) or "closed" in str(exc).lower()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return _reason(exc.exceptions[0])
    text = str(exc) or type(exc).__name__
    return terminal_safe(one_line(text, 300))
