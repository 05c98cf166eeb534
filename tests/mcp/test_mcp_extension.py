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
