"""The REPL checks its model when it opens: the real `cast` in a pseudo-terminal against the strict
fake Messages and Models API. A retired or unknown model is refused before the prompt, in the words
`cast plan` uses, with exit 2; a deprecated one gets one warning naming its retirement date (not a
second one from the SDK) and the REPL stays open. A model cast knows is decided from the day's
cached answer or the built-in table, without a network call on the way to the prompt."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from apikit import ended, spawn  # noqa: E402
from conftest import cast_env, run_cast  # noqa: E402
from fakeapi import FakeAPI, api, fake_api, model_info, text  # noqa: E402, F401  (fixtures)

from cast.state import workspace_state_path  # noqa: E402


def one_shot(repo, api: FakeAPI, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cast(repo, *args, ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="test-key")


def refusal(output: str) -> str:
    line = next(line for line in output.splitlines() if line.startswith("cast: "))
    return line.split("; use one of:")[0]


def test_a_retired_model_is_refused_before_the_prompt(repo, api):
    api.serve_models()
    term = spawn(repo, api, "--model", "claude-sonnet-4-5")
    assert ended(term) == 2, term.text
    assert "plan ›" not in term.text and "Traceback" not in term.text
    assert "model 'claude-sonnet-4-5' was retired on 2026-11-30 and no longer answers" in term.text
    assert "use one of: claude-sonnet-5-5, claude-opus-5-5, claude-haiku-5-5, claude-fable-5-2" in term.text
    assert api.model_requests == []  # the built-in table decided: no network on the way
    assert api.requests == [] and not (workspace_state_path(repo) / "sessions").exists()
    planned = one_shot(repo, api, "plan", "--model", "claude-sonnet-4-5", "anything")
    assert planned.returncode == 2 and refusal(planned.stderr) == refusal(term.text)


def test_an_unknown_model_is_refused_before_the_prompt(repo, api):
    api.serve_models()
    term = spawn(repo, api, "--model", "claude-sonet-5-5")
    assert ended(term) == 2, term.text
    assert "plan ›" not in term.text
    assert "unknown model 'claude-sonet-5-5': the Models API does not know it; use one of: claude-sonnet-5-5" in term.text
    assert "/v1/models/claude-sonet-5-5" in api.model_requests  # neither the cache nor the table knows it: asked
    assert api.requests == []


def test_a_fresh_cached_answer_decides_without_the_network(repo, api, monkeypatch):
    from cast.models.lookup import lookup

    api.models = {"claude-opus-5-5": model_info("claude-opus-5-5", "retired", "2026-11-29T00:00:00Z")}
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    assert lookup("claude-opus-5-5").lifecycle == "retired"  # type: ignore[union-attr]  # kept for a day
    asked = len(api.model_requests)
    term = spawn(repo, api, "--model", "claude-opus-5-5")  # active in the table; retired says the cache
    assert ended(term) == 2, term.text
    assert "model 'claude-opus-5-5' was retired on 2026-11-29" in term.text
    assert len(api.model_requests) == asked


def test_the_execute_models_config_is_checked_too(repo, api):
    api.serve_models()
    (repo / ".cast").mkdir(exist_ok=True)
    (repo / ".cast" / "config.toml").write_text('execute_model = "claude-sonnet-4-5-20250929"\n')
    from cast.trust import record

    record(repo, trusted=True)  # a model from the workspace's config counts once it is trusted
    term = spawn(repo, api)  # the plan model is the default, active; --model would win over execute_model too
    assert ended(term) == 2, term.text
    assert "model 'claude-sonnet-4-5-20250929' was retired" in term.text and "plan ›" not in term.text


def test_a_deprecated_model_warns_once_and_the_repl_stays_open(repo, api):
    api.serve_models()
    api.reply(text("Hello from Opus 4.5."))
    # Warnings on, as under `-X dev` or a test runner: the SDK's own DeprecationWarning would show.
    term = spawn(repo, api, "--model", "claude-opus-4-5", PYTHONWARNINGS="always::DeprecationWarning")
    term.expect("plan ›")
    term.child.send("say hello\r")
    term.expect("Hello from Opus 4.5.")
    term.expect("plan ›")
    term.child.send("/exit\r")
    assert ended(term) == 0, term.text
    assert term.text.count("is deprecated") == 1, term.text  # (the temporary path holds the word too)
    assert "warning: model claude-opus-4-5 is deprecated and retires on 2027-01-22" in term.text
    assert "DeprecationWarning" not in term.text and "end-of-life" not in term.text
    assert [(r.status, r.body["model"]) for r in api.requests] == [(200, "claude-opus-4-5")]


def test_the_sdks_deprecation_warning_is_silenced_where_cast_makes_its_client(fake_api):
    import anthropic

    from cast.config import Config
    from cast.models import base as m
    from cast.models.anthropic import AnthropicModel

    fake_api.serve_models()
    fake_api.reply(text("direct"))
    fake_api.reply(text("through cast"))
    with warnings.catch_warnings(record=True) as direct:
        warnings.simplefilter("always")
        sdk = anthropic.Anthropic(base_url=fake_api.url, api_key="test-key", max_retries=0)
        sdk.messages.create(model="claude-opus-4-5", max_tokens=100, messages=[{"role": "user", "content": "hi"}])
    assert [str(w.message) for w in direct if issubclass(w.category, DeprecationWarning)], "the SDK warns by itself"
    with warnings.catch_warnings(record=True) as through_cast:
        warnings.simplefilter("always")
        model = AnthropicModel("claude-opus-4-5", Config(retries=1))
        user = ({"role": "user", "content": [{"type": "text", "text": "hi"}]},)
        stop = list(model.stream(m.Request("s", (), user, 100)))[-1]
    assert isinstance(stop, m.Stop) and fake_api.requests[-1].status == 200
    assert [str(w.message) for w in through_cast] == []


@pytest.mark.parametrize(
    "name", ["claude-opus-4-5", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-sonnet-5", "claude-opus-5-5"]
)
def test_notices_reach_a_model_without_system_messages_as_user_text(fake_api, name):
    from cast.config import Config
    from cast.models import base as m
    from cast.models.anthropic import AnthropicModel
    from cast.models.catalog import builtin

    fake_api.reply(text("ok"))
    messages = (
        {"role": "user", "content": [{"type": "text", "text": "plan it"}]},
        {"role": "system", "content": [{"type": "text", "text": "You are in plan mode."}]},
    )
    list(AnthropicModel(name, Config(retries=1)).stream(m.Request("s", (), messages, 100)))
    sent = fake_api.requests[-1]
    assert sent.status == 200, sent.error
    roles = [message["role"] for message in sent.body["messages"]]
    spec = builtin(name)
    assert spec is not None and roles == (["user", "system"] if spec.system_messages else ["user", "user"])
    assert "You are in plan mode." in str(sent.body["messages"][1]["content"])


def test_the_models_are_read_as_the_config_will_say_without_loading_it(repo, monkeypatch):
    from cast.config import load
    from cast.models.registry import model_names
    from cast.runs import Options

    user = Path.home() / ".config" / "cast" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('model = "claude-opus-5-5"\nexecute_model = "claude-haiku-5-5"\n')
    (repo / ".cast").mkdir(exist_ok=True)
    project = repo / ".cast" / "config.toml"
    project.write_text('model = "claude-fable-5-2"\n')
    cases = [
        (Options(cwd=repo), {}),
        (Options(cwd=repo), {"CAST_MODEL": "claude-sonnet-5"}),
        (Options(cwd=repo, model="claude-opus-4-8"), {"CAST_MODEL": "claude-sonnet-5"}),
    ]
    for options, env in cases:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        config = load(repo, model=options.model)
        assert model_names(options, ("plan", "execute")) == list(
            dict.fromkeys([config.model_for("plan"), config.model_for("execute")])
        )
    assert model_names(Options(cwd=repo), ("plan",)) == ["claude-sonnet-5"]  # CAST_MODEL is still set
    project.write_text("model = \n")  # not TOML: the full load reports it when a run is built
    assert model_names(Options(cwd=repo), ("plan",)) == []


def test_the_check_at_open_imports_neither_the_sdk_nor_pydantic(repo):
    probe = (
        "import sys, types; from cast.models.registry import check_at_open; "
        "assert check_at_open(types.SimpleNamespace(model='claude-opus-5-5', cwd=None)) is None; "
        "print(sorted(m for m in ('anthropic', 'pydantic', 'prompt_toolkit') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=repo, env=cast_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
