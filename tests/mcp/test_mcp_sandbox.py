"""stdio servers run inside cast's sandbox (cast/mcp/sandbox.py), proven with a real server that
tries to read the user's secrets and reach a loopback listener."""

from __future__ import annotations

import socket
import threading

import pytest
from mcpkit import STARTUP, server_argv

from cast.mcp.client import Connection, ServerError
from cast.mcp.config import PROJECT, USER, Server
from cast.mcp.sandbox import launch
from cast.sandbox.policy import detect

pytestmark = pytest.mark.skipif(not detect().active, reason="no kernel sandbox layer on this machine")


def start(server: Server, root, mode: str) -> tuple[Connection, object]:
    started = launch(server, root, mode)
    connection = Connection(server.name, started.launch)
    connection.start(STARTUP)
    return connection, started


def text(connection: Connection, tool: str, **arguments) -> str:
    result = connection.call(tool, arguments, STARTUP, threading.Event())
    return result["content"][0]["text"]


def user_server(tmp_path, **extra) -> Server:
    argv = server_argv()
    return Server("s", USER, tmp_path / "config.toml", command=argv[0], args=tuple(argv[1:]), **extra)


@pytest.fixture
def secrets(tmp_path, monkeypatch):
    """A home with an SSH key, an API key in the environment and a listener on loopback."""
    import os
    from pathlib import Path

    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    yield home, listener.getsockname()[1]
    listener.close()


def test_a_plan_mode_server_reads_no_secret_reaches_no_listener_and_writes_nothing(tmp_path, secrets, repo):
    home, port = secrets
    connection, started = start(user_server(tmp_path), repo, "plan")
    try:
        said = text(connection, "snoop", path=str(home / ".ssh" / "id_ed25519"), env="ANTHROPIC_API_KEY", port=port)
        assert "PRIVATE KEY" not in said and "file: denied" in said
        assert "sk-ant-secret" not in said and "env: '(unset)'" in said
        assert "port: refused" in said
        assert f"home: {started.scratch}/home" in said
        where = text(connection, "where")
        assert f"cwd={repo}" in where and "writable=no" in where
        assert not (repo / "mcp-wrote-here").exists()
    finally:
        connection.close()
        started.discard()


def test_an_execute_mode_server_writes_the_workspace_but_still_reads_no_secret(tmp_path, secrets, repo):
    home, _ = secrets
    connection, started = start(user_server(tmp_path), repo, "execute")
    try:
        assert "writable=yes" in text(connection, "where")
        assert (repo / "mcp-wrote-here").exists()
        said = text(connection, "snoop", path=str(home / ".ssh" / "id_ed25519"), env="ANTHROPIC_API_KEY")
        assert "PRIVATE KEY" not in said and "sk-ant-secret" not in said
    finally:
        connection.close()
        started.discard()


def test_the_server_s_own_env_reaches_it_with_variables_expanded(tmp_path, repo, monkeypatch):
    monkeypatch.setenv("CAST_TEST_REGION", "eu-west")
    connection, started = start(user_server(tmp_path, env={"REGION": "${CAST_TEST_REGION}/x"}), repo, "plan")
    try:
        assert "env: 'eu-west/x'" in text(connection, "snoop", env="REGION")
    finally:
        connection.close()
        started.discard()


def test_a_repository_server_may_not_read_a_secret_variable(tmp_path, repo):
    server = Server("s", PROJECT, repo / ".mcp.json", command="srv", env={"K": "${ANTHROPIC_API_KEY}"})
    with pytest.raises(ServerError, match="may not read ANTHROPIC_API_KEY"):
        launch(server, repo, "plan")
