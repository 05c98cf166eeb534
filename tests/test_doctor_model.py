"""`cast doctor`'s model part: the model, its lifecycle and retirement date, where cast's facts
came from, whether a key is set (never its value), and which config files count."""

from __future__ import annotations

import pytest
from fakeapi import fake_api, model_info  # noqa: F401  (fake_api is a fixture)

from cast.models.diagnose import config_status, key_status, model_status, model_summary


@pytest.fixture(autouse=True)
def fresh_process_memory(monkeypatch):
    from cast.models import catalog
    from cast.models import lookup as lookup_module

    monkeypatch.setattr(lookup_module, "_said", set())
    monkeypatch.setattr(catalog, "_KNOWN", {})


def test_a_current_model_from_the_api(fake_api, tmp_path):
    fake_api.models = {"claude-sonnet-5-5": model_info("claude-sonnet-5-5", thinking=("adaptive", "between_tools"))}
    [(name, ok, detail)] = model_status(tmp_path)
    assert name == "model" and ok
    assert detail.startswith("claude-sonnet-5-5 (claude-sonnet-5-5): active; 1M context, 128k output")
    assert "thinking adaptive, between_tools" in detail and "from the Models API" in detail


def test_a_deprecated_model_offline_names_its_date_and_source(tmp_path, monkeypatch):
    from cast.config import config_dir

    config_dir().mkdir(parents=True)  # the user's: a script: model never comes from a repository's config
    (config_dir() / "config.toml").write_text('model = "claude-opus-4-5"\nexecute_model = "script:x.jsonl"\n')
    rows = model_status(tmp_path)
    assert [r[0] for r in rows] == ["model (plan)", "model (execute)"]
    (_, ok, detail), (_, script_ok, script) = rows
    assert not ok and "deprecated, retires 2027-01-22" in detail and "cast's built-in table" in detail
    assert script_ok and "no lookup" in script
    ok, line = model_summary(tmp_path)
    assert not ok and line.startswith("(plan) claude-opus-4-5") and "; (execute) script:x.jsonl" in line


def test_key_and_config_files(tmp_path, monkeypatch):
    ok, detail = key_status()
    assert not ok and "ANTHROPIC_API_KEY is not set" in detail
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret-value")
    ok, detail = key_status()
    assert ok and "sk-secret" not in detail
    (tmp_path / ".cast").mkdir()
    (tmp_path / ".cast" / "config.toml").write_text("max_steps = true\n")
    ok, detail = config_status(tmp_path)
    assert not ok and str(tmp_path / ".cast" / "config.toml") + " (found)" in detail and "'max_steps'" in detail


def test_cast_doctor_prints_the_model_lines(fake_api, repo):
    import subprocess
    import sys

    from conftest import cast_env

    fake_api.models = {"claude-sonnet-5-5": model_info("claude-sonnet-5-5", thinking=("adaptive", "between_tools"))}
    env = cast_env(ANTHROPIC_BASE_URL=fake_api.url, ANTHROPIC_API_KEY="test-key")
    done = subprocess.run(
        [sys.executable, "-m", "cast", "doctor"], cwd=repo, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    lines = done.stdout.splitlines()
    model = next(line for line in lines if "model: " in line)
    assert "claude-sonnet-5-5" in model and "active" in model and "from the Models API" in model
    assert any("api key: ANTHROPIC_API_KEY is set" in line for line in lines) and "test-key" not in done.stdout
    assert any(line.split()[-1:] and "config: " in line and str(repo / ".cast" / "config.toml") in line for line in lines)
    assert fake_api.requests == []


def test_doctor_names_the_effort_sent_and_why_it_differs(tmp_path):
    from cast.config import config_dir

    config_dir().mkdir(parents=True)
    (config_dir() / "config.toml").write_text('model = "claude-opus-4-6"\neffort = "xhigh"\n')
    [(_, ok, detail)] = model_status(tmp_path)
    assert ok and 'effort high (claude-opus-4-6 does not take effort "xhigh"; using "high")' in detail


def test_doctor_checks_the_model_given_with_model_as_with_cast_model(repo, monkeypatch):
    """`--model` is a common option: `cast --model X doctor` reports on X (offline: the built-in
    table), as `CAST_MODEL=X cast doctor` does, and leaves CAST_MODEL as it found it."""
    import os

    from conftest import invoke_cast

    done = invoke_cast(repo, "--model", "claude-opus-4-5", "doctor")
    model = next(line for line in done.stdout.splitlines() if "model: " in line)
    assert "model: claude-opus-4-5 (" in model and "deprecated" in model, model
    assert "CAST_MODEL" not in os.environ
    monkeypatch.setenv("CAST_MODEL", "claude-opus-4-5")
    assert model in invoke_cast(repo, "doctor").stdout.splitlines()


def test_doctor_json_is_one_check_per_line_with_the_texts_facts(repo):
    import json

    from conftest import invoke_cast

    text = invoke_cast(repo, "doctor")
    for args in (("--json", "doctor"), ("doctor", "--json")):
        done = invoke_cast(repo, *args)
        assert done.returncode == text.returncode == 0
        checks = [json.loads(line) for line in done.stdout.splitlines()]
        assert all(set(c) == {"status", "name", "detail"} and c["status"] in ("ok", "warn") for c in checks)
        assert [f"{c['status']:<4}  {c['name']}: {c['detail']}" for c in checks] == text.stdout.splitlines()
        assert {"sandbox", "model", "api key", "trust"} <= {c["name"] for c in checks}
