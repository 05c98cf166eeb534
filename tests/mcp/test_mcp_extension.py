"""The run's MCP factory (cast/mcp/extension.py): nothing is imported or started without a server,
and a repository's server that only lacks approval is asked about through the request channel."""

from __future__ import annotations

import json
import subprocess
import sys

from mcpkit import STARTUP, server_argv

from cast.config import Config
from cast.extensions import Setup
from cast.mcp.config import discover
from cast.mcp.extension import factory
from cast.mcp.gate import approval_of
from cast.options import Options
from cast.safety.decision import ApprovalAnswer
from cast.trust import record
from cast.workspace import Workspace


def test_a_run_without_servers_imports_no_mcp(repo):
    code = (
        "import sys; from cast.extensions import Setup, start; from cast.config import Config; "
        "from cast.options import Options; from cast.workspace import Workspace; "
        f"start(Setup(Workspace({str(repo)!r}), Config(), Options(), 'plan')); "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_repository_server_is_asked_about_through_the_request_channel(repo):
    argv = server_argv()
    entry = {"command": argv[0], "args": argv[1:], "startup_timeout_sec": STARTUP}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": entry}}))
    record(repo, trusted=True)
    asked = []

    def answer(request):
        asked.append(request)
        return ApprovalAnswer("yes")

    servers = factory(Setup(Workspace(repo), Config(), Options(), "plan", requests=answer))
    try:
        assert servers is not None and "mcp__cloned__echo" in {t.name for t in servers.tools()}
        [request] = asked
        assert "MCP server 'cloned' from" in request.command and "runs: " in request.command
        assert approval_of(discover(repo).servers["cloned"], repo) == "approved"  # pinned: not asked again
    finally:
        if servers is not None:
            servers.close()


def test_a_no_starts_nothing_and_is_not_remembered(repo):
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": {"command": "never-run-me"}}}))
    record(repo, trusted=True)
    setup = Setup(Workspace(repo), Config(), Options(), "plan", requests=lambda request: ApprovalAnswer("no"))
    assert factory(setup) is None
    assert setup.notices == ["MCP server cloned (.mcp.json) not started: it needs your approval (cast mcp approve cloned)"]
    assert approval_of(discover(repo).servers["cloned"], repo) == "not approved"


def test_servers_start_only_once_the_run_has_recorded_the_tree_it_starts_from(repo, monkeypatch):
    """A server may write the work tree as it starts: the starting tree (the report's baseline)
    is recorded first, so what the server writes is the run's doing, never part of the start."""
    from cast.mcp.servers import Servers

    argv = server_argv()
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": {"command": argv[0], "args": argv[1:]}}}))
    record(repo, trusted=True)
    order: list[str] = []
    real_start = Servers.start
    monkeypatch.setattr(Servers, "start", lambda self: (order.append("servers start"), real_start(self))[1])
    setup = Setup(Workspace(repo), Config(), Options(), "plan", lambda request: ApprovalAnswer("yes"))
    setup.before_processes = lambda: order.append("tree recorded")
    servers = factory(setup)
    try:
        assert servers is not None and order == ["tree recorded", "servers start"]
    finally:
        if servers is not None:
            servers.close()


def test_a_run_hands_its_starting_tree_to_the_extensions_it_starts(repo, monkeypatch):
    from cast import extensions
    from cast.models.scripted import ScriptedModel
    from cast.runs import plan_run

    seen: list[Setup] = []
    monkeypatch.setattr(extensions, "start", lambda setup, factories=None: seen.append(setup) or [])
    run = plan_run("a task", Options(cwd=repo), model=ScriptedModel([], name="scripted"))
    try:
        [setup] = seen
        assert setup.before_processes is not None
        assert setup.before_processes() is run.report.settle()  # the very tree the report compares with
    finally:
        run.close()
