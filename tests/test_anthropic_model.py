"""AnthropicModel against the real SDK and a fake Messages API: streaming, faults, caching."""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace

import pytest
from fakeapi import (  # noqa: F401  (fake_api is a fixture)
    Failure,
    Stream,
    error_event,
    fake_api,
    message_events,
    redacted,
    text,
    thinking,
    tool_use,
)

from cast.agent.cost import price_for
from cast.config import Config
from cast.models import base as m
from cast.models.anthropic import AnthropicModel
from cast.models.registry import resolve
from cast.models.scripted import ScriptedModel

FAST = Config(retries=3, retry_after_cap=0.05, model_timeout=5.0)
TOOLS = (
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {"name": "grep", "description": "Search.", "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}}},
)


def model(config: Config = FAST, **kwargs) -> AnthropicModel:
    return AnthropicModel("claude-sonnet-5-5", config, backoff_base=0.001, **kwargs)


def request(*messages: dict, system: str = "You are cast.", tools=TOOLS) -> m.Request:
    return m.Request(system, tools, messages or ({"role": "user", "content": [{"type": "text", "text": "go"}]},))


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def marks(body: dict) -> list[str]:
    """Where the cache breakpoints of a request body are, as readable locations."""
    found = [f"tools[{i}]" for i, t in enumerate(body.get("tools", [])) if "cache_control" in t]
    system = body.get("system")
    if isinstance(system, list):
        found += [f"system[{i}]" for i, b in enumerate(system) if "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        if isinstance(message["content"], list):
            found += [f"messages[{i}][{j}]" for j, b in enumerate(message["content"]) if "cache_control" in b]
    return found


class TestStreaming:
    def test_text_and_tool_input_arrive_in_small_chunks(self, fake_api):
        blocks = [text("Let me read the config first."), tool_use("toolu_1", "read_file", {"path": "src/config.py", "limit": 40})]
        fake_api.reply(*blocks, chunk=3)
        events = list(model().stream(request()))
        deltas = of(events, m.TextDelta)
        assert len(deltas) > 5 and "".join(d.text for d in deltas) == "Let me read the config first."
        assert of(events, m.ToolUse) == [m.ToolUse("toolu_1", "read_file", {"path": "src/config.py", "limit": 40})]
        assert [type(e) for e in events[-3:]] == [m.ToolUse, m.Usage, m.Stop]
        assert events[-1] == m.Stop("tool_use", tuple(blocks))
        assert fake_api.requests[0].path == "/v1/messages" and fake_api.requests[0].body["stream"] is True

    def test_two_tool_uses_in_one_turn_in_order(self, fake_api):
        blocks = [
            tool_use("toolu_a", "read_file", {"path": "a.py"}),
            tool_use("toolu_b", "grep", {"pattern": "def \\w+\\(", "glob": "*.py"}),
        ]
        fake_api.reply(*blocks, chunk=2)
        events = list(model().stream(request()))
        assert [(c.id, c.name, c.input) for c in of(events, m.ToolUse)] == [(b["id"], b["name"], b["input"]) for b in blocks]
        assert events[-1].content == tuple(blocks)

    def test_thinking_streams_and_blocks_go_back_unmodified(self, fake_api):
        blocks = [
            thinking("The user wants the config. I should read it before answering."),
            redacted(),
            text("Reading it."),
            tool_use("toolu_1", "read_file", {"path": "config.toml"}),
        ]
        fake_api.reply(*blocks, chunk=5)
        fake_api.reply(text("Done."))
        first = request()
        events = list(model().stream(first))
        assert "".join(e.text for e in of(events, m.ThinkingDelta)) == blocks[0]["thinking"]  # display: summarized
        stop = events[-1]
        sent = fake_api.requests[0].reply
        assert stop.content == tuple(sent)
        assert [b["type"] for b in stop.content] == ["thinking", "redacted_thinking", "text", "tool_use"]
        assert stop.content[0]["signature"].startswith("fk1.") and stop.content[1]["data"].startswith("fk1.")
        # The next request carries the blocks exactly as they came, in order, and passes the
        # fake's signature check (a 400 otherwise).
        follow_up = m.Request(
            first.system,
            first.tools,
            first.messages
            + (
                {"role": "assistant", "content": list(stop.content)},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1"}]},
            ),
        )
        assert list(model().stream(follow_up))[-1].content == (text("Done."),)
        echoed = fake_api.requests[1].body["messages"][1]
        assert echoed == {"role": "assistant", "content": sent}
        for block in sent[:2]:
            assert json.dumps(block, separators=(",", ":")) in fake_api.requests[1].raw.decode()
        body = fake_api.requests[0].body
        assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
        assert not {"temperature", "top_p", "top_k"} & set(body)

    def test_omitted_thinking_comes_back_empty_and_still_goes_back(self, fake_api):
        fake_api.push(Stream(message_events(thinking("", "sig-from-elsewhere"), text("hi"))))
        events = list(model().stream(request()))
        assert events[-1].content[0] == {"type": "thinking", "thinking": "", "signature": "sig-from-elsewhere"}
        assert not of(events, m.ThinkingDelta)

    def test_a_model_without_adaptive_thinking_gets_no_thinking_field(self, fake_api):
        from cast.models.catalog import ModelSpec

        fake_api.reply(text("hi"))
        spec = ModelSpec(
            "claude-haiku-4-5",
            "Haiku 4.5",
            thinking_types=frozenset({"enabled", "disabled"}),
            efforts=frozenset(),
            max_tokens=64_000,
        )
        chat = AnthropicModel("claude-haiku-4-5", replace(FAST, thinking_budget=4096), backoff_base=0.001, spec=spec)
        list(chat.stream(m.Request("s", TOOLS, ({"role": "user", "content": "go"},), max_tokens=100_000, effort="high")))
        body = fake_api.requests[0].body
        assert "thinking" not in body and "output_config" not in body and body["max_tokens"] == 64_000
        assert fake_api.requests[0].status == 200

    def test_usage_maps_input_output_and_cache_counts(self, fake_api):
        fake_api.reply(
            text("ok"),
            usage={"input_tokens": 12, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 450},
            output_tokens=42,
        )
        events = list(model().stream(request()))
        assert of(events, m.Usage) == [m.Usage(input_tokens=12, output_tokens=42, cache_read_tokens=3000, cache_write_tokens=450)]

    def test_usage_says_which_cache_writes_have_the_one_hour_ttl(self, fake_api):
        split = {"ephemeral_5m_input_tokens": 50, "ephemeral_1h_input_tokens": 400}
        fake_api.reply(text("ok"), usage={"input_tokens": 12, "cache_creation_input_tokens": 450, "cache_creation": split})
        (usage,) = of(list(model().stream(request())), m.Usage)
        assert (usage.cache_write_tokens, usage.cache_write_1h_tokens) == (450, 400)
        price = price_for(Config(), "claude-sonnet-5-5")
        assert price(usage) == pytest.approx((12 * 2 + usage.output_tokens * 10 + 50 * 2.5 + 400 * 4) / 1_000_000)

    def test_usage_in_message_delta_overrides_message_start(self, fake_api):
        events = message_events(text("ok"), usage={"input_tokens": 5})
        events[-2][1]["usage"] = {"output_tokens": 9, "input_tokens": 7, "cache_read_input_tokens": 11}
        fake_api.push(Stream(events))
        assert of(list(model().stream(request())), m.Usage) == [m.Usage(7, 9, 11, 0)]

    def test_the_request_is_not_mutated(self, fake_api):
        fake_api.reply(text("ok"))
        messages = (
            {"role": "user", "content": [{"type": "text", "text": "task"}]},
            {"role": "assistant", "content": [tool_use("t1", "read_file", {"path": "a"})]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
        )
        req = request(*messages)
        before = copy.deepcopy(req)
        list(model().stream(req))
        assert req == before
        assert "cache_control" not in json.dumps([req.tools, req.messages])


class TestCaching:
    def test_breakpoints_on_the_system_and_the_last_two_user_messages(self, fake_api):
        """The system block caches the tools before it: no breakpoint of the four is spent on them."""
        fake_api.reply(text("ok"))
        messages = (
            {"role": "user", "content": [{"type": "text", "text": "task"}]},
            {"role": "assistant", "content": [tool_use("t1", "read_file", {"path": "a"})]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
            {"role": "assistant", "content": [tool_use("t2", "grep", {"pattern": "b"})]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "content": "y"},
                    {"type": "text", "text": "[note]"},
                ],
            },
        )
        list(model().stream(request(*messages)))
        body = fake_api.requests[0].body
        assert marks(body) == ["system[0]", "messages[2][0]", "messages[4][1]"]
        assert body["system"] == [{"type": "text", "text": "You are cast.", "cache_control": {"type": "ephemeral"}}]

    def test_never_more_than_four_even_with_marks_already_in_the_transcript(self, fake_api):
        fake_api.reply(text("ok"))
        messages = (
            {"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [text("b")]},
            {"role": "user", "content": [{"type": "text", "text": "c", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [text("d")]},
            {"role": "user", "content": "e"},
        )
        list(model().stream(request(*messages)))
        assert len(marks(fake_api.requests[0].body)) <= 4

    def test_without_tools_or_system_only_the_transcript_is_marked(self, fake_api):
        fake_api.reply(text("ok"))
        list(model().stream(request({"role": "user", "content": "plain string"}, system="", tools=())))
        body = fake_api.requests[0].body
        assert "system" not in body and "tools" not in body
        assert body["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "plain string", "cache_control": {"type": "ephemeral"}}]}
        ]

    def test_prefix_is_byte_identical_across_requests(self, fake_api):
        fake_api.reply(text("one"))
        fake_api.reply(text("two"))
        chat = model()
        list(chat.stream(request({"role": "user", "content": [text("first")]})))
        list(
            chat.stream(
                request(
                    {"role": "user", "content": [text("first")]},
                    {"role": "assistant", "content": [text("one")]},
                    {"role": "user", "content": [text("second")]},
                )
            )
        )
        first, second = (r.body for r in fake_api.requests)
        assert json.dumps(first["system"]) == json.dumps(second["system"])
        assert json.dumps(first["tools"]) == json.dumps(second["tools"])


class TestFaults:
    def test_429_honours_retry_after_but_caps_it(self, fake_api):
        fake_api.fail(429, "rate_limit_error", "Number of requests has exceeded your rate limit", headers={"retry-after": "30"})
        fake_api.reply(text("finally"))
        started = time.monotonic()
        events = list(model().stream(request()))
        assert time.monotonic() - started < 15  # the capped delay, not the 30 s asked for
        retries = of(events, m.Retrying)
        assert len(retries) == 1 and retries[0].delay == pytest.approx(0.05) and retries[0].attempt == 2
        assert "rate-limited" in retries[0].reason and not retries[0].partial
        assert events[-1].content == (text("finally"),)
        assert len(fake_api.requests) == 2
        assert fake_api.requests[0].headers["x-stainless-retry-count"] == "0"  # the SDK itself did not retry

    def test_an_interrupt_ends_the_wait_between_attempts(self, fake_api):
        for _ in range(2):
            fake_api.fail(529, "overloaded_error", "Overloaded", headers={"retry-after": "5"})
        cancel = threading.Event()
        slow = Config(retries=3, retry_after_cap=5.0, model_timeout=5.0)
        req = m.Request("You are cast.", TOOLS, ({"role": "user", "content": [{"type": "text", "text": "go"}]},), cancel=cancel)
        events = []
        for event in model(slow).stream(req):  # Esc while it waits: set as the wait is announced, not on a timer
            events.append(event)
            if isinstance(event, m.Retrying):
                cancel.set()
        assert len(fake_api.requests) == 1 and not of(events, m.Stop)  # waited out, the 5 s would end in a second request
        assert [r.delay for r in of(events, m.Retrying)] == [5.0]

    def test_529_past_the_budget_is_a_clear_overload_error(self, fake_api):
        for _ in range(5):
            fake_api.fail(529, "overloaded_error", "Overloaded")
        events = []
        with pytest.raises(m.ModelError) as caught:
            for event in model().stream(request()):
                events.append(event)
        error = caught.value
        assert len(fake_api.requests) == FAST.retries == 3
        assert "overloaded" in str(error) and "after 3 attempts" in str(error)
        assert error.retryable and error.exit_code == 1
        assert "Traceback" not in str(error) and "\n" not in str(error)
        assert [r.attempt for r in of(events, m.Retrying)] == [2, 3]

    def test_midstream_overloaded_error_is_retried(self, fake_api):
        partial = message_events(text("Half a thought that never"), chunk=4)[:6] + [error_event("overloaded_error", "Overloaded")]
        fake_api.push(Stream(partial))
        fake_api.reply(text("A whole thought."))
        events = list(model().stream(request()))
        retry = of(events, m.Retrying)[0]
        assert retry.partial and "overloaded" in retry.reason
        assert events[-1] == m.Stop("end_turn", (text("A whole thought."),))
        assert len(of(events, m.Usage)) == 1 and len(fake_api.requests) == 2

    def test_midstream_error_that_is_not_transient_is_not_retried(self, fake_api):
        fake_api.push(Stream(message_events(text("x"))[:2] + [error_event("invalid_request_error", "bad thing")]))
        with pytest.raises(m.ModelError, match="bad thing"):
            list(model().stream(request()))
        assert len(fake_api.requests) == 1

    def test_stream_cut_before_message_stop_is_retried(self, fake_api):
        events = message_events(text("Some text"), tool_use("toolu_1", "read_file", {"path": "a.py"}))
        fake_api.push(Stream(events, cut_after=len(events) - 3))  # tool input complete, no message_stop
        fake_api.reply(text("Retried."), tool_use("toolu_2", "read_file", {"path": "b.py"}))
        got = list(model().stream(request()))
        assert [c.id for c in of(got, m.ToolUse)] == ["toolu_2"]  # a failed attempt never hands over a call
        assert "stream cut" in of(got, m.Retrying)[0].reason
        assert len(fake_api.requests) == 2

    def test_a_broken_chunked_transfer_is_retried(self, fake_api):
        fake_api.push(Stream(message_events(text("partial reply")), cut_after=6, chunked=True))
        fake_api.reply(text("whole reply"))
        events = list(model().stream(request()))
        retry = of(events, m.Retrying)[0]
        assert "stream cut" in retry.reason and "mid-stream" in retry.reason and retry.partial
        assert events[-1].content == (text("whole reply"),)

    def test_a_complete_chunked_stream_is_read(self, fake_api):
        fake_api.push(Stream(message_events(text("chunked and whole")), chunked=True))
        assert list(model().stream(request()))[-1].content == (text("chunked and whole"),)

    def test_a_stalled_stream_times_out_and_is_retried(self, fake_api):
        fake_api.push(Stream(message_events(text("slow")), stall_after=3, stall=30.0))
        fake_api.reply(text("fast"))
        started = time.monotonic()
        events = list(model(replace(FAST, model_timeout=0.3)).stream(request()))
        assert time.monotonic() - started < 15  # the 0.3 s read timeout, not the 30 s stall
        assert "timed out" in of(events, m.Retrying)[0].reason
        assert events[-1].content == (text("fast"),)

    def test_a_cancel_cuts_a_silent_stream_at_once(self, fake_api):
        """Esc while the API sends nothing (the model thinking, a stalled connection): the read
        blocked on the socket returns now, not when the read timeout would end it, and the
        interrupted reply is not retried."""
        fake_api.push(Stream(message_events(text("thinking it over")), stall_after=3, stall=30.0))
        cancel = threading.Event()
        threading.Timer(0.5, cancel.set).start()
        started = time.monotonic()
        events = list(model(replace(FAST, model_timeout=20.0)).stream(replace(request(), cancel=cancel)))
        assert time.monotonic() - started < 10  # far below the 20 s read timeout and the 30 s stall
        assert not of(events, m.Retrying) and not of(events, m.Stop) and len(fake_api.requests) == 1

    def test_connection_refused_fails_at_once_in_one_line(self, fake_api, monkeypatch):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
        events: list = []
        with pytest.raises(m.ModelError) as caught:
            events.extend(model().stream(request()))
        said = str(caught.value)
        assert said == f"cannot reach http://127.0.0.1:{port}: connection refused: nothing listens at that address"
        assert not caught.value.retryable and of(events, m.Retrying) == []  # no retry can fix it

    def test_a_host_name_that_does_not_resolve_fails_at_once(self, fake_api, monkeypatch):
        def no_such_host(*args, **kwargs):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

        monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://api.example.invalid")
        events: list = []
        with pytest.raises(m.ModelError, match=r"^cannot reach http://api\.example\.invalid: the host name does not resolve"):
            events.extend(model().stream(request()))
        assert of(events, m.Retrying) == []

    def test_500_then_success(self, fake_api):
        fake_api.push(Failure(502, "<html>bad gateway</html>"))
        fake_api.reply(text("ok"))
        events = list(model().stream(request()))
        assert "server error" in of(events, m.Retrying)[0].reason and events[-1].content == (text("ok"),)

    def test_fallback_model_gets_one_attempt(self, fake_api):
        for _ in range(3):
            fake_api.fail(529, "overloaded_error", "Overloaded")
        fake_api.reply(text("from the fallback"))
        events = list(model(replace(FAST, fallback_model="claude-opus-5-5")).stream(request()))
        assert [r.body["model"] for r in fake_api.requests] == ["claude-sonnet-5-5"] * 3 + ["claude-opus-5-5"]
        assert of(events, m.Retrying)[-1].model == "claude-opus-5-5"
        assert events[-1].content == (text("from the fallback"),)

    def test_fallback_failing_too_is_reported(self, fake_api):
        for _ in range(4):
            fake_api.fail(529, "overloaded_error", "Overloaded")
        with pytest.raises(m.ModelError, match="overloaded.*after 3 attempts.*fallback model claude-opus-5-5 failed"):
            list(model(replace(FAST, fallback_model="claude-opus-5-5")).stream(request()))
        assert len(fake_api.requests) == 4

    def test_401_is_a_configuration_error(self, fake_api):
        fake_api.fail(401, "authentication_error", "invalid x-api-key")
        with pytest.raises(m.ModelError) as caught:
            list(model().stream(request()))
        assert caught.value.exit_code == 2 and "ANTHROPIC_API_KEY" in str(caught.value) and "401" in str(caught.value)
        assert len(fake_api.requests) == 1
        assert fake_api.requests[0].headers.get("authorization") == "Bearer test-key"

    def test_400_carries_the_api_message(self, fake_api):
        fake_api.fail(400, "invalid_request_error", "messages.0.content: Field required")
        with pytest.raises(m.ModelError, match="400 invalid_request_error.*messages.0.content: Field required") as caught:
            list(model().stream(request()))
        assert not caught.value.retryable and len(fake_api.requests) == 1

    def test_404_names_the_model(self, fake_api):
        fake_api.fail(404, "not_found_error", "model: claude-sonnet-5-5")
        with pytest.raises(m.ModelError, match="not found \\(404\\).*'claude-sonnet-5-5'") as caught:
            list(model().stream(request()))
        assert caught.value.exit_code == 2
        assert "/model in the REPL" in str(caught.value)  # where the REPL's user changes it

    def test_403_is_clear(self, fake_api):
        fake_api.fail(403, "permission_error", "Your API key does not have permission")
        with pytest.raises(m.ModelError, match="permission denied \\(403\\)") as caught:
            list(model().stream(request()))
        assert caught.value.exit_code == 2

    def test_missing_key_fails_before_any_request(self, fake_api, monkeypatch):
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        with pytest.raises(m.ModelError) as caught:
            resolve("claude-sonnet-5-5", FAST)
        assert caught.value.exit_code == 2
        assert str(caught.value).startswith("ANTHROPIC_API_KEY is not set") and "script:PATH" in str(caught.value)
        assert fake_api.requests == []


class TestSetup:
    def test_registry_resolves_scripts_and_model_ids(self, fake_api, tmp_path):
        script = tmp_path / "s.jsonl"
        script.write_text('{"text": "hi"}\n')
        assert isinstance(resolve(f"script:{script}", FAST), ScriptedModel)
        chosen = resolve("claude-sonnet-5-5", FAST)
        assert isinstance(chosen, AnthropicModel) and chosen.name == "claude-sonnet-5-5"

    def test_importing_cast_models_does_not_import_the_sdk(self):
        code = "import sys, cast.models.registry, cast.models.anthropic; print('anthropic' in sys.modules)"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "False"

    def test_preload_imports_the_direct_client_in_the_background_and_never_the_sdk(self):
        code = (
            "import sys, cast.models.loading as p; p.preload(); p._preload_thread.join(timeout=30); "
            "print(p._preload_thread.daemon, 'cast.models.direct' in sys.modules, 'anthropic' in sys.modules)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.split() == ["True", "True", "False"]

    def test_the_preloaded_client_leaves_trio_out_and_trio_importable_afterwards(self):
        pytest.importorskip("trio")  # installed here: httpcore2 would import it
        code = (
            "import sys, cast.models.loading as p; p.preload(); p._preload_thread.join(timeout=30); "
            "print('httpcore2' in sys.modules, 'trio' in sys.modules); import trio; print('trio' in sys.modules)"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.split() == ["True", "False", "True"]

    def test_closing_the_stream_midway_is_clean(self, fake_api):
        fake_api.reply(text("a long reply " * 20))
        fake_api.reply(text("next"))
        chat = model()
        stream = chat.stream(request())
        assert isinstance(next(stream), m.TextDelta)
        stream.close()
        assert list(chat.stream(request()))[-1].content == (text("next"),)
