"""`/mcp` in the REPL: the servers configured here, with source and approval, never started by listing."""

from __future__ import annotations

import json

from replkit import harness  # noqa: F401  (a fixture)


def test_mcp_lists_servers_with_source_and_approval(harness, repo, tmp_path):
    log = tmp_path / "ran.log"
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": {"command": "srv", "args": ["--log", str(log)]}}}))
    h = harness()
    h.send("/mcp\r")
    h.wait_text("not approved")
    h.wait_idle()
    said = h.out.text()
    assert "cloned" in said and ".mcp.json" in said and "trust this workspace" in said
    assert not log.exists()
