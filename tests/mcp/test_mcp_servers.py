"""A run's servers (cast/mcp/servers.py) against the real test server: what each mode offers,
how a call is approved, checked and answered, and what happens when a server changes or dies."""

from __future__ import annotations

import pytest
from mcpkit import STARTUP, server_argv

from cast.mcp.config import USER, Server
from cast.mcp.servers import Servers
from cast.safety.approval import ApprovalPolicy
from cast.safety.decision import Answers
from cast.tools.base import Sandbox, ToolContext, run_tool
from cast.tools.results import Declined, External
from cast.workspace import Workspace


def server(tmp_path, name="t", **extra) -> Server:
    argv = server_argv()
    keys = {"startup_timeout_sec": STARTUP, **extra}
    return Server(name, USER, tmp_path / "config.toml", command=argv[0], args=tuple(argv[1:]), **keys)


def started(root, servers: list[Server], plan_tools=(), mode="plan") -> Servers:
    running = Servers(root, servers, tuple(plan_tools), mode)
    running.start()
    return running


def tool(servers: Servers, name: str):
    return next(t for t in servers.mcp_tools() if t.name == name)


def call(servers: Servers, name: str, arguments: dict, ctx: ToolContext):
    return run_tool(tool(servers, name), arguments, ctx)


@pytest.fixture(scope="module")
def plan_servers(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    running = started(root, [server(root)], plan_tools=["t/*"])
    yield running
    running.close()


def test_plan_tools_admit_and_annotations_only_remove(plan_servers):
    admitted = {t.remote for t in plan_servers.mcp_tools() if "plan" in t.admitted}
    assert {"echo", "plain", "write_note", "flood"} <= admitted
    assert "delete_all" not in admitted  # readOnlyHint: false
    assert "wipe" not in admitted  # destructiveHint: true, whatever readOnlyHint says


def test_read_only_hint_never_puts_a_tool_in(tmp_path):
    running = started(tmp_path, [server(tmp_path)], plan_tools=["t/plain"])
    try:
        admitted = {t.remote for t in running.mcp_tools() if "plan" in t.admitted}
        assert admitted == {"plain"}  # echo and write_note declare readOnlyHint: true, and are not named
        refused = call(running, "mcp__t__echo", {"text": "x"}, ToolContext(Workspace(tmp_path)))
        assert not refused.ok and "not offered in plan mode" in refused.text
    finally:
        running.close()


def test_names_schemas_and_the_prefix(plan_servers):
    echo = tool(plan_servers, "mcp__t__echo")
    spec = echo.spec()
    assert spec["input_schema"]["required"] == ["text"] and spec["description"].startswith("[MCP server t] Echo")
    assert "Test server: echo things back." in plan_servers.prefix()


def test_plan_mode_results_are_external_and_unverified(plan_servers, tmp_path):
    done = call(plan_servers, "mcp__t__echo", {"text": "hello"}, ToolContext(Workspace(tmp_path)))
    assert done.ok and done.text.startswith("[external, unverified: from MCP server t")
    assert done.text.endswith("hello") and isinstance(done.result, External) and done.result.approval == "plan_tools"


def test_arguments_are_checked_against_the_schema_before_the_call(plan_servers, tmp_path):
    target = tmp_path / "note"
    done = call(plan_servers, "mcp__t__write_note", {"path": str(target), "text": 5}, ToolContext(Workspace(tmp_path)))
    assert not done.ok and "invalid arguments for mcp__t__write_note: text: 5 is not of type 'string'" in done.text
    assert not target.exists()


def test_hostile_output_is_made_visible_and_a_flood_is_capped(plan_servers, tmp_path):
    ctx = ToolContext(Workspace(tmp_path))
    shown = call(plan_servers, "mcp__t__hostile_text", {}, ctx).text
    assert "\x1b" not in shown and "\x07" not in shown and "^[]52;c;ZXZpbA==^G" in shown and "^[[2J" in shown
    flood = call(plan_servers, "mcp__t__flood", {"size": 200_000}, ctx).text
    assert "[truncated: showed 30000 of 200000 chars]" in flood and len(flood) < 31_000


def test_is_error_and_images(plan_servers, tmp_path):
    ctx = ToolContext(Workspace(tmp_path))
    failed = call(plan_servers, "mcp__t__fail", {}, ctx)
    assert not failed.ok and isinstance(failed.result, External) and not failed.result.ok
    picture = call(plan_servers, "mcp__t__picture", {}, ctx).text
    assert "a picture:" in picture and "[image: image/png," in picture and "iVBOR" not in picture


def execute_ctx(root, reply=None, yes=False, allow=()) -> tuple[ToolContext, list]:
    asked: list = []

    def answer(request):
        asked.append(request)
        return reply or "no"

    approver = Answers(answer) if reply is not None else None
    policy = ApprovalPolicy(allow=tuple(allow), yes=yes, approver=approver, workspace_root=str(root))
    return ToolContext(Workspace(root), sandbox=Sandbox(approval=policy)), asked


@pytest.fixture(scope="module")
def execute_servers(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    running = started(root, [server(root, tool_timeout_sec=5)], mode="execute")
    yield running
    running.close()


def test_an_execute_call_asks_showing_server_tool_and_arguments(execute_servers, tmp_path):
    ctx, asked = execute_ctx(tmp_path, reply="no")
    done = call(execute_servers, "mcp__t__echo", {"text": "secret plan"}, ctx)
    assert not done.ok and isinstance(done.result, Declined) and "declined" in done.text
    [request] = asked
    assert "mcp__t__echo" in request.command and "MCP server t, tool echo" in request.command
    assert '"text": "secret plan"' in request.command and request.always_label == "mcp__t__echo …"
    ctx, asked = execute_ctx(tmp_path, reply="always")
    assert call(execute_servers, "mcp__t__echo", {"text": "a"}, ctx).ok
    assert call(execute_servers, "mcp__t__echo", {"text": "b"}, ctx).ok and len(asked) == 1  # "always" covers it


def test_allow_patterns_and_yes_run_it_and_headless_refuses(execute_servers, tmp_path):
    ctx, _ = execute_ctx(tmp_path, allow=["mcp__t__*"])
    assert call(execute_servers, "mcp__t__echo", {"text": "x"}, ctx).result.approval == "allowed by config"
    ctx, _ = execute_ctx(tmp_path, allow=["mcp__other__*"], yes=True)
    assert call(execute_servers, "mcp__t__echo", {"text": "x"}, ctx).result.approval == "--yes"
    ctx, _ = execute_ctx(tmp_path)
    refused = call(execute_servers, "mcp__t__echo", {"text": "x"}, ctx)
    assert not refused.ok and 'allow = ["mcp__t__echo"]' in refused.text


def test_a_hanging_call_is_a_failed_observation(execute_servers, tmp_path):
    ctx, _ = execute_ctx(tmp_path, yes=True)
    done = call(execute_servers, "mcp__t__slow", {"seconds": 600}, ctx)
    assert not done.ok and "timed out" in done.text
    assert call(execute_servers, "mcp__t__echo", {"text": "alive"}, ctx).text.endswith("alive")


def test_a_cancelled_call_is_interrupted(execute_servers, tmp_path):
    ctx, _ = execute_ctx(tmp_path, yes=True)
    ctx.cancel.set()
    done = call(execute_servers, "mcp__t__slow", {"seconds": 600}, ctx)
    assert not done.ok and done.summary == "interrupted"


def test_a_definition_that_changes_after_list_changed_is_refused(tmp_path):
    running = started(tmp_path, [server(tmp_path)], mode="execute")
    try:
        ctx, _ = execute_ctx(tmp_path, yes=True)
        assert call(running, "mcp__t__rename", {}, ctx).text.endswith("renamed")
        again = call(running, "mcp__t__rename", {}, ctx)
        assert not again.ok and "its definition changed since this conversation started" in again.text
        assert "IGNORE ALL PREVIOUS" not in again.text and "IGNORE" not in tool(running, "mcp__t__rename").description
        assert call(running, "mcp__t__echo", {"text": "others still work"}, ctx).ok
    finally:
        running.close()


def test_a_server_that_dies_mid_call_is_restarted_once(tmp_path):
    running = started(tmp_path, [server(tmp_path)], mode="execute")
    try:
        ctx, _ = execute_ctx(tmp_path, yes=True)
        died = call(running, "mcp__t__crash", {}, ctx)
        assert not died.ok and "died during the call" in died.text and "cast restarted it" in died.text
        assert call(running, "mcp__t__echo", {"text": "back"}, ctx).text.endswith("back")
        again = call(running, "mcp__t__crash", {}, ctx)
        assert not again.ok and "restarted once already, so it stays stopped" in again.text
        gone = call(running, "mcp__t__echo", {"text": "x"}, ctx)
        assert not gone.ok and "not running" in gone.text
    finally:
        running.close()


def test_a_plan_mode_server_is_restarted_for_execute(tmp_path):
    running = started(tmp_path, [server(tmp_path)], plan_tools=["t/where"], mode="plan")
    try:
        plan = call(running, "mcp__t__where", {}, ToolContext(Workspace(tmp_path))).text
        assert "writable=no" in plan
        first = running.live["t"].connection
        running.switched("execute")
        assert running.live["t"].connection is not first
        ctx, _ = execute_ctx(tmp_path, yes=True)
        assert "writable=yes" in call(running, "mcp__t__where", {}, ctx).text
    finally:
        running.close()


def test_a_server_that_hangs_at_start_is_named_and_the_others_start(tmp_path):
    argv = server_argv("--startup-hang")
    hung = Server("h", USER, tmp_path / "c", command=argv[0], args=tuple(argv[1:]), startup_timeout_sec=2)
    running = started(tmp_path, [hung, server(tmp_path)], plan_tools=["t/*"])
    try:
        assert running.notices == ["MCP server h did not start: failed: did not start within 2 s"]
        assert {t.server for t in running.mcp_tools()} == {"t"}
    finally:
        running.close()


def test_an_http_server_from_the_user_s_config_with_a_bearer_token(tmp_path, monkeypatch):
    from mcpkit import http_server

    with http_server(tmp_path) as url:
        web = Server("web", USER, tmp_path / "c", url=url, bearer_token_env_var="CAST_TEST_TOKEN", startup_timeout_sec=STARTUP)
        missing = started(tmp_path, [web], mode="execute")
        assert missing.notices == ["MCP server web did not start: failed: CAST_TEST_TOKEN is not set (bearer_token_env_var)"]
        monkeypatch.setenv("CAST_TEST_TOKEN", "t0ken")
        running = started(tmp_path, [web], mode="execute")
        try:
            ctx, _ = execute_ctx(tmp_path, yes=True)
            assert call(running, "mcp__web__echo", {"text": "over http"}, ctx).text.endswith("over http")
        finally:
            running.close()
