"""A run's MCP servers: started in parallel before the first request, their tools pinned, their
calls made, restarted where the rules say, stopped with the run.

Start-up: every enabled server that may start (`gate`) is started on its own thread with its own
timeout; one that fails or times out is named in one line and the run goes on without it. The
tools each server lists then are the conversation's: each definition is pinned by its digest, and
one that changes or appears later (list_changed, a restart) is not offered in this conversation;
a call to a changed one is refused with an observation saying why. A server that dies under a call
is a failed observation and is restarted once; one started for plan mode is restarted (never
reused) when the run switches to execute, since its sandbox saw the workspace read-only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cast.extensions import BaseExtension
from cast.mcp.client import CallCancelled, CallTimedOut, Connection, ServerError, ServerGone
from cast.mcp.config import Server, plan_patterns_match
from cast.mcp.results import render
from cast.mcp.sandbox import Started, launch
from cast.mcp.tools import McpCall, McpTool, approve, build, check_arguments, digest, removed_by_annotations
from cast.text import clip, terminal_safe
from cast.tools.base import Observation, Tool, ToolContext, ToolError
from cast.tools.results import External, Interrupted

INSTRUCTIONS_LIMIT = 2_000


@dataclass
class Live:
    """One server within a run."""

    server: Server
    mode: str
    status: str = "not started"
    connection: Connection | None = None
    started: Started | None = None
    pinned: dict[str, str] = field(default_factory=dict)  # tool -> digest of its definition at session start
    changed: dict[str, str] = field(default_factory=dict)  # tool -> why a call to it is refused
    restarted: bool = False  # the one restart after dying was used
    instructions: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)


class Servers(BaseExtension):
    """The MCP extension of one run (`cast.extensions.Extension`)."""

    name = "mcp"

    def __init__(
        self, root: Path, servers: list[Server], plan_tools: tuple[str, ...], mode: str, passthrough: Iterable[str] = ()
    ):
        self.root = root
        self.plan_tools = plan_tools
        self.passthrough = tuple(passthrough)
        self.live = {server.name: Live(server, mode) for server in servers}
        self.notices: list[str] = []
        self._tools: list[McpTool] = []

    def start(self) -> None:
        """Start every server in parallel and pin the tools they list."""
        threads = [threading.Thread(target=self._start, args=(live,), daemon=True) for live in self.live.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for live in self.live.values():
            if live.connection is None:
                self.notices.append(f"MCP server {live.server.name} did not start: {live.status}")
                continue
            for definition in live.connection.tools:
                self._offer(live, definition)

    def _start(self, live: Live) -> None:
        try:
            self._connect(live)
            live.status = "running"
            live.instructions = live.connection.instructions if live.connection else ""
        except ServerError as exc:
            live.status = f"failed: {exc}"

    def _connect(self, live: Live) -> None:
        started = launch(live.server, self.root, live.mode, self.passthrough)
        connection = Connection(live.server.name, started.launch)
        try:
            connection.start(live.server.startup_timeout_sec)
        except ServerError:
            started.discard()
            raise
        live.connection, live.started = connection, started

    def _offer(self, live: Live, definition: dict[str, Any]) -> None:
        remote = str(definition.get("name", ""))
        if not live.server.offers(remote):
            return
        plan_ok = plan_patterns_match(self.plan_tools, live.server.name, remote) and not removed_by_annotations(definition)
        built = build(self, live.server.name, definition, plan_ok)
        if isinstance(built, str):
            self.notices.append(f"MCP server {live.server.name}: {built}; not offered")
            return
        live.pinned[remote] = digest(definition)
        self._tools.append(built)

    def tools(self) -> list[Tool[Any]]:
        return list(self._tools)

    def mcp_tools(self) -> list[McpTool]:
        return list(self._tools)

    def prefix(self) -> str:
        """The servers' instructions, capped, marked as theirs: byte-stable for the run."""

        parts = [
            f"## MCP server {name} (its own instructions, not verified by cast)\n"
            + clip(terminal_safe(live.instructions.strip()), INSTRUCTIONS_LIMIT)
            for name, live in self.live.items()
            if live.connection is not None and live.instructions.strip()
        ]
        return "# MCP servers\n" + "\n\n".join(parts) if parts else ""

    def switched(self, mode: Any) -> None:
        """Execute after plan: a stdio server that saw the workspace read-only is restarted."""
        name = getattr(mode, "name", str(mode))
        for live in self.live.values():
            with live.lock:
                if live.mode == name:
                    continue
                live.mode = name
                if live.connection is not None and live.server.transport == "stdio":
                    self._restart(live)

    def _restart(self, live: Live) -> bool:
        self._stop(live)
        try:
            self._connect(live)
        except ServerError as exc:
            live.status = f"failed: {exc}"
            return False
        live.status = "running"
        assert live.connection is not None
        self._compare(live, live.connection.tools)
        return True

    def _compare(self, live: Live, definitions: list[dict[str, Any]]) -> None:
        """Definitions listed after the session started: a changed one is refused from now on."""
        now = {str(d.get("name", "")): d for d in definitions}
        for remote, pin in live.pinned.items():
            definition = now.get(remote)
            if definition is None:
                live.changed[remote] = "the server no longer lists it"
            elif digest(definition) != pin:
                live.changed[remote] = (
                    "its definition changed since this conversation started (name, description, schema or annotations)"
                )

    def call(self, server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Observation:
        live = self.live[server]
        mcp_tool = next(t for t in self._tools if t.server == server and t.remote == tool)
        plan = live.mode == "plan"
        if plan and "plan" not in mcp_tool.admitted:
            raise ToolError(f"{mcp_tool.name} is not offered in plan mode (only your config's plan_tools are)")
        check_arguments(mcp_tool.schema, arguments, mcp_tool.name)
        with live.lock:
            self._refresh(live)
            if why := live.changed.get(tool):
                raise ToolError(f"{mcp_tool.name} is refused: {why}; it is not offered in this conversation")
        approval = "plan_tools" if plan else approve(McpCall(server, tool, arguments), ctx)
        connection = live.connection
        if connection is None:
            raise ToolError(
                f"MCP server {server} is not running ({live.status})", External(server, tool, False, approval, live.status)
            )
        try:
            result = connection.call(tool, arguments, live.server.tool_timeout_sec, ctx.cancel)
        except CallCancelled:
            return Observation(
                "interrupted: the MCP call was cancelled", ok=False, summary="interrupted", result=Interrupted(None, True)
            )
        except CallTimedOut as exc:
            return self._failed(live, tool, approval, f"the MCP call timed out: {exc}")
        except ServerGone as exc:
            return self._failed(live, tool, approval, f"the MCP server died during the call ({exc})" + self._revive(live))
        except ServerError as exc:
            return self._failed(live, tool, approval, f"the MCP call failed: {exc}")
        rendered = render(result, server, plan=plan)
        return Observation(
            rendered.text, ok=rendered.ok, summary=rendered.summary, result=External(server, tool, rendered.ok, approval)
        )

    def _refresh(self, live: Live) -> None:
        """After the server said its tools changed: list them again and compare with the pins."""
        try:
            if live.connection is not None and live.connection.tools_changed():
                self._compare(live, live.connection.relist(live.server.startup_timeout_sec))
        except ServerError:
            pass  # the call itself will say what is wrong with the server

    def _revive(self, live: Live) -> str:
        with live.lock:
            if live.restarted:
                live.status = "stopped: it died again after its one restart"
                self._stop(live)
                return "; it was restarted once already, so it stays stopped"
            live.restarted = True
            if self._restart(live):
                return "; cast restarted it: the call may be retried"
            return f"; restarting it failed: {live.status}"

    def _failed(self, live: Live, tool: str, approval: str, text: str) -> Observation:
        return Observation(
            f"error: {text}", ok=False, summary=text[:200], result=External(live.server.name, tool, False, approval, text)
        )

    def _stop(self, live: Live) -> None:
        if live.connection is not None:
            live.connection.close()
        if live.started is not None:
            live.started.discard()
        live.connection = live.started = None

    def close(self) -> None:
        for live in self.live.values():
            with live.lock:
                self._stop(live)
