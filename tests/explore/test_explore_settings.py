"""explore_model, explore_max_steps and explore_max_tokens: read from the user's and the project's
config.toml, a project's model counting only in a trusted workspace and a script: model never."""

from __future__ import annotations

import os

import pytest

from cast import trust
from cast.config import ConfigError, config_dir, load
from cast.tools.explore_settings import ExploreSettings


def user_config(text: str) -> None:
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text(text)


def project_config(root, text: str) -> None:
    (root / ".cast").mkdir(exist_ok=True)
    (root / ".cast" / "config.toml").write_text(text)


def test_defaults_are_the_cheapest_model_twenty_steps_and_a_ceiling(repo):
    settings = ExploreSettings.load(repo)
    assert settings == ExploreSettings() and settings.model == "" and settings.max_steps == 20 and settings.max_tokens > 0


def test_the_users_file_sets_them_and_the_config_loader_accepts_the_keys(repo):
    user_config('explore_model = "script:/tmp/child.jsonl"\nexplore_max_steps = 5\nexplore_max_tokens = 9000\n')
    load(repo)  # no "unknown setting"
    assert ExploreSettings.load(repo) == ExploreSettings("script:/tmp/child.jsonl", 5, 9000)


def test_a_projects_model_counts_only_when_trusted_and_a_script_never(repo, capsys):
    project_config(repo, 'explore_model = "claude-opus-5-5"\nexplore_max_steps = 3\n')
    assert ExploreSettings.load(repo) == ExploreSettings(max_steps=3)
    assert "ignored explore_model" in capsys.readouterr().err
    trust.record(repo, True)
    assert ExploreSettings.load(repo).model == "claude-opus-5-5"
    project_config(repo, 'explore_model = "script:evil.jsonl"\n')
    assert ExploreSettings.load(repo).model == ""


def test_the_environment_wins(repo, monkeypatch):
    user_config('explore_model = "claude-haiku-5-5"\n')
    monkeypatch.setenv("CAST_EXPLORE_MODEL", "claude-sonnet-5-5")
    assert ExploreSettings.load(repo).model == "claude-sonnet-5-5"


@pytest.mark.parametrize("line", ["explore_max_steps = 0", 'explore_max_tokens = "lots"', "explore_model = 3"])
def test_a_bad_value_names_the_key_and_the_file(repo, line):
    user_config(line + "\n")
    with pytest.raises(ConfigError) as raised:
        ExploreSettings.load(repo)
    assert line.split(" ")[0] in str(raised.value) and os.fspath(config_dir() / "config.toml") in str(raised.value)
