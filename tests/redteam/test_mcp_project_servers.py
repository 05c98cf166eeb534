"""A cloned repository's MCP servers, end to end: nothing starts until the workspace is trusted and
the user approved that very server, and a change to what it runs asks again. The runs are
`cast execute`, where a started server may write the workspace: its first act is to append to a
log there, so a missing log proves that no process ran."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import run_cast, write_script

VERDICT = {"text": json.dumps({"complete": True, "missing": [], "claims": []})}
SERVER = str(Path(__file__).parents[1] / "mcp_server.py")


def execute(repo: Path, tmp_path: Path):
    plan = repo / ".cast" / "plans" / "s1" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("---\ntask: Check\nsession: s1\n---\n# Plan: Check\n\n- [ ] Look\n")
    script = write_script(tmp_path / "script.jsonl", [{"text": "done"}, VERDICT])
    done = run_cast(repo, "--model", f"script:{script}", "execute", "s1", timeout=600)
    return done.stdout + done.stderr


def test_an_untrusted_clone_starts_no_server_until_trusted_and_approved(repo, tmp_path):
    log = repo / "server-ran.log"
    server = {"command": sys.executable, "args": [SERVER, "--log", str(log)], "env": {"REGION": "eu"}, "startup_timeout_sec": 300}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": server}}))
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text(
        f'[mcp_servers.fromtoml]\ncommand = "{sys.executable}"\nargs = {json.dumps(server["args"])}\n'
    )
    said = execute(repo, tmp_path)
    assert not log.exists()  # no process ran
    assert "MCP server cloned (.mcp.json) not started: a repository's server: trust this workspace" in said
    assert "MCP server fromtoml (project) not started" in said

    assert run_cast(repo, "trust").returncode == 0
    said = execute(repo, tmp_path)
    assert not log.exists()  # trusted, but not approved: still nothing, and no terminal to ask
    assert "MCP server cloned (.mcp.json) not started: it needs your approval (cast mcp approve cloned)" in said

    approved = run_cast(repo, "mcp", "approve", "cloned")
    assert approved.returncode == 0 and "env: REGION=eu" in approved.stdout
    said = execute(repo, tmp_path)
    assert log.exists() and log.read_text().startswith("started"), said  # approved: it runs, in the sandbox
    listed = [json.loads(line) for line in run_cast(repo, "mcp", "--json", timeout=600).stdout.splitlines()]
    cloned = next(row for row in listed if row["name"] == "cloned")
    assert cloned["approval"] == "approved" and cloned["status"] == "running" and "echo" in cloned["tools"]

    log.unlink()
    server["args"].append("--instructions=changed")
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"cloned": server}}))
    said = execute(repo, tmp_path)
    assert not log.exists()
    assert "it changed since you approved it (cast mcp approve cloned)" in said
