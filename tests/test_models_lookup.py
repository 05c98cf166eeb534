"""The Models API decides whether a model may be used, and what it can do: the real SDK against
the fake's `GET /v1/models`, a day's cache in the user cache dir, the built-in table offline."""

from __future__ import annotations

import subprocess
import time
from datetime import date

import pytest
from conftest import invoke_cast
from fakeapi import FakeAPI, fake_api, model_info, text  # noqa: F401  (fake_api is a fixture)

from cast.models.base import ModelError
from cast.models.lookup import available, cache_path, ensure, lookup
from cast.runs import Options
from cast.state import workspace_state_path

RETIRED = model_info(
    "claude-sonnet-4-5",
    "retired",
    "2026-11-30T00:00:00Z",
    max_input_tokens=200_000,
    max_tokens=64_000,
    thinking=("enabled", "disabled"),
    efforts=(),
)
DEPRECATED = model_info("claude-opus-4-5", "deprecated", "2027-01-22T00:00:00Z", max_input_tokens=200_000, max_tokens=64_000)
CURRENT = [
    model_info("claude-sonnet-5-5", thinking=("adaptive", "between_tools")),
    model_info("claude-opus-5-5"),
    model_info("claude-haiku-5-5", thinking=("adaptive", "disabled")),
    model_info("claude-fable-5-2"),
]


@pytest.fixture(autouse=True)
def fresh_process_memory(monkeypatch):
    """Each test starts as a new process would: nothing said yet, nothing looked up yet."""
    from cast.models import catalog
    from cast.models import lookup as lookup_module

    monkeypatch.setattr(lookup_module, "_said", set())
    monkeypatch.setattr(catalog, "_KNOWN", {})


def serve(api: FakeAPI, *extra: dict) -> None:
    api.models = {m["id"]: m for m in [*CURRENT, *extra]}


def cast(repo, api: FakeAPI, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`cast ARGS` in-process, pointed at `api` (the refusals checked here need no process of their own)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "test-key", **env}.items():
            patch.setenv(name, value)
        return invoke_cast(repo, *args)


def test_a_retired_model_exits_2_before_any_request(fake_api, repo):
    serve(fake_api, RETIRED)
    done = cast(repo, fake_api, "plan", "--model", "claude-sonnet-4-5", "anything")
    assert done.returncode == 2, done.stderr
    assert "claude-sonnet-4-5" in done.stderr and "retired on 2026-11-30" in done.stderr
    assert "claude-sonnet-5-5" in done.stderr.split("use one of:")[1]
    assert "Traceback" not in done.stderr
    assert fake_api.requests == []  # no /v1/messages
    assert any(p.startswith("/v1/models/claude-sonnet-4-5") for p in fake_api.model_requests)
    assert not (workspace_state_path(repo) / "sessions").exists()  # no session started: nothing was done


def test_a_retired_model_is_refused_offline_too(fake_api, repo):
    # fake_api.models stays None: the Models API can't be asked, the built-in table knows.
    done = cast(repo, fake_api, "plan", "anything", CAST_MODEL="claude-sonnet-4-5-20250929")
    assert done.returncode == 2
    assert "claude-sonnet-4-5-20250929" in done.stderr and "retired" in done.stderr and "claude-sonnet-5-5" in done.stderr
    assert fake_api.requests == []


def test_an_unknown_model_exits_2_and_lists_current_ones(fake_api, repo):
    serve(fake_api)
    done = cast(repo, fake_api, "--model", "claude-sonet-5-5", "plan", "anything")
    assert done.returncode == 2
    assert "unknown model 'claude-sonet-5-5'" in done.stderr
    assert all(m["id"] in done.stderr for m in CURRENT)
    assert fake_api.requests == []


def test_a_deprecated_model_warns_once_with_its_retirement_date(fake_api, repo):
    serve(fake_api, DEPRECATED)
    fake_api.reply(text("Nothing to plan."))
    done = cast(repo, fake_api, "plan", "--model", "claude-opus-4-5", "anything")
    assert done.stderr.count("deprecated") == 1, done.stderr
    assert "claude-opus-4-5 is deprecated and retires on 2027-01-22" in done.stderr
    assert len(fake_api.requests) == 1 and fake_api.requests[0].body["model"] == "claude-opus-4-5"


def test_deprecation_warning_is_said_once_per_process(fake_api, capsys):
    serve(fake_api, DEPRECATED)
    for _ in range(3):
        assert ensure("claude-opus-4-5").retires_at == date(2027, 1, 22)
    assert capsys.readouterr().err.count("deprecated") == 1


def test_the_api_answer_drives_the_spec(fake_api):
    serve(fake_api, model_info("claude-new-6", max_input_tokens=400_000, thinking=("adaptive",), efforts=("low", "high")))
    spec = lookup("claude-new-6")
    assert spec is not None and spec.source == "api"
    assert (spec.max_input_tokens, spec.thinking_types, spec.efforts) == (
        400_000,
        frozenset({"adaptive"}),
        frozenset({"low", "high"}),
    )
    sonnet = lookup("claude-sonnet-5-5")
    assert sonnet is not None and sonnet.supports_thinking("between_tools") and sonnet.default_effort == "high"
    assert "claude-sonnet-5-5" in sonnet.reads_thinking_of  # what the API doesn't say comes from the table


def test_offline_falls_back_to_the_table_and_says_so_once(fake_api, capsys):
    assert fake_api.models is None  # 503 for every Models API call
    first, second = lookup("claude-haiku-5-5"), lookup("claude-haiku-5-5")
    assert first is not None and first.source == "built-in" and first == second
    assert capsys.readouterr().err.count("could not be asked") == 1
    assert not cache_path().exists()  # a fallback is not an answer worth keeping


def test_an_unreachable_api_falls_back_too(monkeypatch, capsys):
    closed = FakeAPI().start()
    url = closed.url
    closed.stop()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    started = time.monotonic()
    spec = lookup("claude-opus-5-5")
    assert spec is not None and spec.source == "built-in" and spec.default_effort == "medium"
    assert time.monotonic() - started < 5
    assert "could not be asked" in capsys.readouterr().err
    assert "claude-sonnet-5-5" in available()


def test_answers_are_cached_for_a_day(fake_api):
    serve(fake_api)
    now = time.time()
    assert lookup("claude-opus-5-5", now=now).source == "api"  # type: ignore[union-attr]
    asked = len(fake_api.model_requests)
    assert cache_path().is_file() and str(cache_path()).startswith(str(cache_path().parents[2]))
    again = lookup("claude-opus-5-5", now=now + 23 * 3600)
    assert again is not None and again.source == "cache" and len(fake_api.model_requests) == asked
    fake_api.models["claude-opus-5-5"] = model_info("claude-opus-5-5", "deprecated", "2027-06-01T00:00:00Z")  # type: ignore[index]
    later = lookup("claude-opus-5-5", now=now + 25 * 3600)
    assert len(fake_api.model_requests) == asked + 1
    assert later is not None and later.source == "api" and later.lifecycle == "deprecated"


def test_the_cache_lives_in_the_user_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_path() == tmp_path / "xdg" / "cast" / "models.json"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_path() == tmp_path / "home" / ".cache" / "cast" / "models.json"


def test_a_cached_answer_from_another_endpoint_is_not_used(fake_api, monkeypatch):
    serve(fake_api)
    lookup("claude-opus-5-5")
    other = FakeAPI().start()
    try:
        other.models = {}
        monkeypatch.setenv("ANTHROPIC_BASE_URL", other.url)
        assert lookup("claude-opus-5-5") is None  # this endpoint says no such model
    finally:
        other.stop()


def test_scripted_models_are_not_looked_up(fake_api, tmp_path):
    from cast.models.registry import resolve

    serve(fake_api)
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "hi"}\n')
    resolve(f"script:{script}", None)
    assert fake_api.model_requests == []


def test_resolve_attaches_the_spec(fake_api):
    from cast.config import Config
    from cast.models.catalog import spec_for
    from cast.models.registry import resolve

    serve(fake_api)
    model = resolve("claude-haiku-5-5", Config())
    assert model.spec is not None and model.spec.source == "api" and model.spec.supports_thinking("disabled")
    assert spec_for(model.name) == model.spec  # the toolbar's window comes from the same answer
    with pytest.raises(ModelError) as refused:
        resolve("claude-sonnet-4-5", Config())
    assert refused.value.exit_code == 2


def test_model_completion_offers_the_listed_models(fake_api):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from cast.repl import commands
    from cast.repl.complete import ReplCompleter

    def complete(text: str) -> list[str]:
        completer = ReplCompleter(commands.names, None, commands.argument_values(None))
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert "claude-sonnet-5-5" in complete("/model claude-s")  # offline: the built-in table
    assert "claude-sonnet-4-5" not in complete("/model claude-s")  # retired models are not offered
    serve(fake_api, model_info("claude-new-6"), RETIRED)
    assert "claude-new-6" in available()  # the list, now cached for a day
    assert complete("/model claude-n") == ["claude-new-6"]


def test_the_toolbar_context_figure_is_out_of_the_models_window(fake_api, repo):
    from cast.repl.state import ReplState
    from cast.repl.toolbar import toolbar_fragments

    serve(fake_api, model_info("claude-small-1", max_input_tokens=200_000))
    lookup("claude-small-1")
    state = ReplState(Options(model="claude-small-1", cwd=repo), "plan")
    text = "".join(t for _, t in toolbar_fragments(state, busy=False, width=120))
    assert "ctx 0/200k" in text


def _partial(model_id: str, **fields: object) -> dict:
    """A Models API answer as a gateway may give it: the id and whatever else it chooses to say."""
    return {"type": "model", "id": model_id, **fields}


@pytest.mark.parametrize(
    "answer",
    [
        _partial("claude-opus-4-8"),  # no capabilities, no lifecycle, no limits
        _partial("claude-opus-4-8", display_name=None, lifecycle=None, max_tokens=None, capabilities=None),
        _partial("claude-opus-4-8", capabilities={"thinking": {"types": {"adaptive": {"supported": True}}}}),
        _partial("claude-opus-4-8", capabilities={"effort": None, "thinking": None, "context_management": {}}),
    ],
)
def test_an_answer_with_fewer_fields_degrades_to_the_table(fake_api, answer):
    fake_api.models = {answer["id"]: answer}
    spec = lookup("claude-opus-4-8")
    assert spec is not None and spec.source == "api" and spec.lifecycle == "active"
    assert spec.max_tokens == 128_000 and spec.tool_changes and spec.context_management
    assert "xhigh" in spec.efforts and spec.supports_thinking("adaptive")
    from dataclasses import replace

    assert ensure("claude-opus-4-8") == replace(spec, source="cache")  # kept for a day; a run may start


def test_what_a_partial_answer_does_say_is_taken(fake_api):
    answer = _partial(
        "claude-opus-4-8",
        max_tokens=64_000,
        capabilities={"effort": {"supported": True, "low": {"supported": True}, "high": {"supported": True}}},
    )
    fake_api.models = {answer["id"]: answer}
    spec = lookup("claude-opus-4-8")
    assert spec is not None and spec.max_tokens == 64_000 and spec.efforts == frozenset({"low", "high"})
    assert spec.thinking_types == frozenset({"adaptive", "disabled"})  # not said: the table's
