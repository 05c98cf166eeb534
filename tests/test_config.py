"""Config is parsed by a typed model: a wrong type is an error naming the key and the file,
the environment is parsed, flags win, and an old `thinking_budget` is mapped with a warning."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import cast_env

from cast.config import Config, ConfigError, config_dir, load


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    import cast.config

    monkeypatch.setattr(cast.config, "_warned", set())


def project(root, text: str):
    (root / ".cast").mkdir(exist_ok=True)
    path = root / ".cast" / "config.toml"
    path.write_text(text)
    return path


def test_a_string_where_a_bool_or_number_belongs_is_refused(tmp_path):
    path = project(tmp_path, 'max_steps = "60"\n')
    with pytest.raises(ConfigError) as refused:
        load(tmp_path)
    assert str(path) in str(refused.value) and "'max_steps'" in str(refused.value) and "'60'" in str(refused.value)
    project(tmp_path, 'allow = "pytest"\n')
    with pytest.raises(ConfigError, match="'allow'"):
        load(tmp_path)
    project(tmp_path, 'effort = "extreme"\n')
    with pytest.raises(ConfigError, match="'effort'.*'extreme'"):
        load(tmp_path)
    project(tmp_path, '[prices]\n"m" = [1.0, "two", 0.1, 1.25]\n')
    with pytest.raises(ConfigError, match="'prices.m.1'"):
        load(tmp_path)


def test_the_cli_reports_a_bad_value_with_exit_2(repo):
    path = project(repo, "retries = 2.5\n")
    done = subprocess.run(
        [sys.executable, "-m", "cast", "--model", "script:none.jsonl", "plan", "x"],
        cwd=repo,
        env=cast_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert str(path) in done.stderr and "'retries'" in done.stderr and "Traceback" not in done.stderr


def test_precedence_flags_over_env_over_project_over_user(tmp_path, monkeypatch):
    config_dir().mkdir(parents=True)
    (config_dir() / "config.toml").write_text('model = "claude-opus-5-5"\neffort = "low"\nmax_steps = 5\n')
    project(tmp_path, 'effort = "medium"\nexecute_effort = "xhigh"\n')
    config = load(tmp_path)
    assert (config.model, config.effort, config.max_steps) == ("claude-opus-5-5", "medium", 5)
    assert config.effort_for("plan") == "medium" and config.effort_for("execute") == "xhigh"
    monkeypatch.setenv("CAST_MAX_STEPS", "7")
    monkeypatch.setenv("CAST_EFFORT", "high")
    config = load(tmp_path)
    assert (config.max_steps, config.effort) == (7, "high")
    assert load(tmp_path, max_steps=9, model="claude-haiku-5-5").max_steps == 9
    monkeypatch.setenv("CAST_MAX_STEPS", "seven")
    with pytest.raises(ConfigError, match="^environment variable CAST_MAX_STEPS: bad value for 'max_steps': 'seven'"):
        load(tmp_path)


def test_defaults_send_the_models_own_effort():
    assert Config().effort_for("plan") == "" and Config().effort_for("execute") == ""
    assert Config().model == "claude-sonnet-5-5"


def test_thinking_budget_maps_onto_effort_with_one_warning(tmp_path, capsys):
    path = project(tmp_path, "thinking_budget = 8000\n")
    first, second = load(tmp_path), load(tmp_path)
    assert first.effort == "medium" == second.effort and first.thinking_budget == 0  # never sent as budget thinking
    err = capsys.readouterr().err
    assert err.count("thinking_budget is no longer used") == 1 and str(path) in err and len(err.strip().splitlines()) == 1
    project(tmp_path, 'thinking_budget = 30000\neffort = "low"\n')
    assert load(tmp_path).effort == "low"  # an explicit effort wins
    assert "thinking_budget" in capsys.readouterr().err


def test_a_misspelt_key_in_an_untrusted_workspace_is_a_typo_not_a_loosening(tmp_path, capsys):
    """`maxsteps` is not a setting that loosens security: it is no setting at all. The error says so
    with the known keys; no warning first calls it a loosening key that `cast trust` would count."""
    from cast.config import loosening_keys

    path = project(tmp_path, "maxsteps = 3\n")
    with pytest.raises(ConfigError, match=f"{path}: unknown setting 'maxsteps' \\(known: .*max_steps"):
        load(tmp_path)
    assert "ignored" not in capsys.readouterr().err
    assert loosening_keys(tmp_path) == []  # `cast doctor`'s trust line does not name it either


def test_model_from_the_command_line_or_cast_model_wins_over_the_per_mode_models(repo, tmp_path, monkeypatch):
    """`plan_model` / `execute_model` in a config override `model`, but not what the user asked
    for on this command: `cast --model script:demo.jsonl plan ...` plans with the script (before,
    it planned with plan_model and then asked for an API key, or for --model script:PATH)."""
    from conftest import invoke_cast, write_script

    config_dir().mkdir(parents=True)
    (config_dir() / "config.toml").write_text('plan_model = "claude-opus-5"\nexecute_model = "claude-haiku-5-5"\n')
    config = load(repo)
    assert (config.model_for("plan"), config.model_for("execute")) == ("claude-opus-5", "claude-haiku-5-5")
    config = load(repo, model="claude-sonnet-5-5")
    assert (config.model_for("plan"), config.model_for("execute")) == ("claude-sonnet-5-5", "claude-sonnet-5-5")
    monkeypatch.setenv("CAST_MODEL", "claude-fable-5-2")
    assert {load(repo).model_for(mode) for mode in ("plan", "execute")} == {"claude-fable-5-2"}
    monkeypatch.delenv("CAST_MODEL")
    plan = {"name": "plan", "content": "# Plan\n\n- [ ] one\n"}
    script = write_script(tmp_path / "plan.jsonl", [{"tool_uses": [{"name": "write_plan", "input": plan}]}, {"text": "Done."}])
    done = invoke_cast(repo, "--model", f"script:{script}", "plan", "x")
    assert done.returncode == 0 and "ANTHROPIC_API_KEY" not in done.stderr, done.stderr
