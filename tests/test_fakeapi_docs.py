"""The fake's facts come from the documentation, not from cast: rules the docs state and cast's
table once disagreed with, each checked through the real SDK, and a guard that the fake never
imports cast's catalog (a fake built from the code's table cannot catch the code's mistakes)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import anthropic
import pytest
from fakeapi import api, client, thinking, tool_use  # noqa: F401  (fixtures)

TESTS = Path(__file__).parent
USER = [{"role": "user", "content": "Plan the change."}]
PREFILL = "This model does not support assistant message prefill. The conversation must end with a user message."


def send(client: anthropic.Anthropic, **body: Any) -> Any:
    body.setdefault("max_tokens", 1024)
    body.setdefault("messages", USER)
    return client.messages.create(**body)


def error_of(client: anthropic.Anthropic, **body: Any) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        send(client, **body)
    return caught.value.body["error"]["message"]  # type: ignore[index]


def test_no_fake_module_imports_cast():
    fakes = sorted(TESTS.glob("fakeapi*.py"))
    assert len(fakes) >= 5
    for path in fakes:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not [n for n in names if n == "cast" or n.startswith("cast.")], f"{path.name} imports {names}"


def test_every_fact_in_the_fake_line_up_cites_its_page():
    source = (TESTS / "fakeapi_models.py").read_text(encoding="utf-8")
    header = source.split('"""')[1]
    for tag in ("[overview]", "[fable5]", "[thinking]", "[effort]", "[errors]", "[forced]", "[caching]", "[sysmsg]", "[binding]"):
        line = next(line for line in header.splitlines() if line.startswith(tag))
        assert "https://platform.claude.com/docs/" in line or "reference §" in line, line
    lineup = source.split("LINEUP: tuple[FakeModel, ...] = (", 1)[1].split("\n)\n", 1)[0]
    entries = lineup.count("_m(")
    assert entries >= 20 and lineup.count("# ") >= 15  # each group of entries says where its facts come from


def test_a_deferred_tool_with_a_cache_breakpoint_is_400(client, api):
    tools = [
        {"name": "read_file", "input_schema": {"type": "object"}},
        {"name": "edit_file", "input_schema": {"type": "object"}, "defer_loading": True, "cache_control": {"type": "ephemeral"}},
    ]
    assert "`defer_loading: true` can't also carry `cache_control`" in error_of(client, model="claude-opus-5", tools=tools)
    tools[1].pop("cache_control")
    tools[0]["cache_control"] = {"type": "ephemeral"}
    api.reply(thinking("x"))
    send(client, model="claude-opus-5", tools=tools)  # the breakpoint on a non-deferred tool is fine


@pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-opus-4-7", "claude-sonnet-5", "claude-fable-5"])
def test_xhigh_is_accepted_where_the_effort_page_lists_it(client, api, model):
    api.reply(thinking("x"))
    send(client, model=model, output_config={"effort": "xhigh"})


def test_xhigh_is_rejected_on_opus_4_6(client):
    assert error_of(client, model="claude-opus-4-6", output_config={"effort": "xhigh"}).endswith("not supported for this model")


@pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-opus-5", "claude-fable-5"])
def test_prefill_is_400_on_opus_4_6_and_later(client, model):
    messages = [*USER, {"role": "assistant", "content": "Sure"}]
    assert error_of(client, model=model, messages=messages) == PREFILL


@pytest.mark.parametrize("model,shown", [("claude-opus-4-8", ""), ("claude-opus-4-7", ""), ("claude-opus-4-6", "reasoning")])
def test_display_defaults_to_omitted_on_opus_4_7_and_4_8(client, api, model, shown):
    api.reply(thinking("reasoning"), tool_use("toolu_1", "read_file", {"path": "a"}))
    reply = send(
        client, model=model, thinking={"type": "adaptive"}, tools=[{"name": "read_file", "input_schema": {"type": "object"}}]
    )
    assert reply.content[0].thinking == shown


@pytest.mark.parametrize("model,minimum", [("claude-opus-4-7", 2048), ("claude-opus-4-6", 4096), ("claude-opus-4-8", 1024)])
def test_cache_minimums_per_the_prompt_caching_page(client, api, model, minimum):
    from fakeapi import text

    def usage_for(words: int) -> Any:
        api.reply(text("ok"))
        system = [{"type": "text", "text": "word " * words, "cache_control": {"type": "ephemeral"}}]
        return send(client, model=model, system=system).usage

    below = usage_for(minimum // 2)
    assert below.cache_creation_input_tokens == 0
    above = usage_for(minimum * 2)
    assert above.cache_creation_input_tokens > 0
