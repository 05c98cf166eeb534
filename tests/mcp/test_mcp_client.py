"""The client against real servers built with the SDK's server side (cast/mcp/client.py)."""

from __future__ import annotations

import threading

import pytest
from mcpkit import STARTUP, http_server, server_argv

from cast.mcp.client import CallCancelled, CallTimedOut, Connection, Launch, ServerError, ServerGone


@pytest.fixture(scope="module")
def stdio():
    connection = Connection("t", Launch(argv=server_argv()))
    connection.start(STARTUP)
    yield connection
    connection.close()


def call(connection, tool, arguments=None, timeout=STARTUP, cancel=None):
    return connection.call(tool, arguments or {}, timeout, cancel or threading.Event())


def test_tools_and_instructions_arrive_at_start(stdio):
    names = {tool["name"] for tool in stdio.tools}
    assert {"echo", "write_note", "slow", "crash"} <= names
    echo = next(tool for tool in stdio.tools if tool["name"] == "echo")
    assert echo["annotations"] == {"readOnlyHint": True} and echo["inputSchema"]["required"] == ["text"]
    assert stdio.instructions == "Test server: echo things back."


def test_a_call_returns_the_result_as_json(stdio):
    result = call(stdio, "echo", {"text": "hi"})
    assert result["content"] == [{"type": "text", "text": "hi"}] and result["isError"] is False
    assert call(stdio, "fail")["isError"] is True


def test_a_hanging_call_times_out_and_the_server_still_answers(stdio):
    with pytest.raises(CallTimedOut, match="no answer within 0.5 s"):
        call(stdio, "slow", {"seconds": 600}, timeout=0.5)
    assert call(stdio, "echo", {"text": "after"})["content"][0]["text"] == "after"


def test_a_cancelled_call_ends_at_once(stdio):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(CallCancelled):
        call(stdio, "slow", {"seconds": 600}, cancel=cancel)
    assert call(stdio, "echo", {"text": "still here"})["content"][0]["text"] == "still here"


def test_a_server_that_dies_mid_call_is_gone_not_a_crash():
    connection = Connection("d", Launch(argv=server_argv()))
    connection.start(STARTUP)
    try:
        with pytest.raises(ServerGone, match="connection ended"):
            call(connection, "crash")
        with pytest.raises(ServerGone):
            call(connection, "echo", {"text": "x"})
    finally:
        connection.close()


def test_a_server_that_hangs_at_start_is_named_within_its_timeout():
    connection = Connection("h", Launch(argv=server_argv("--startup-hang")))
    with pytest.raises(ServerError, match="did not start within 2 s"):
        connection.start(2)
    assert connection.gone


def test_a_command_that_does_not_exist_is_one_line(tmp_path):
    with pytest.raises(ServerError) as failed:
        Connection("x", Launch(argv=[str(tmp_path / "no-such-server")])).start(STARTUP)
    assert "\n" not in str(failed.value) and "no-such-server" in str(failed.value)


def test_streamable_http_on_loopback(tmp_path):
    with http_server(tmp_path) as url:
        connection = Connection("web", Launch(url=url))
        connection.start(STARTUP)
        try:
            assert "echo" in {tool["name"] for tool in connection.tools}
            assert call(connection, "echo", {"text": "over http"})["content"][0]["text"] == "over http"
        finally:
            connection.close()
