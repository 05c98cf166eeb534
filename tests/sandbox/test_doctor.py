"""`cast doctor` and /help name the layer that holds plan-mode commands."""

from __future__ import annotations

import os
import subprocess
import sys

from cast.doctor import sandbox_check
from cast.sandbox.policy import Layer, detect


def _doctor(env_extra: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "cast", "doctor"],
        env={**os.environ, **env_extra},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_doctor_names_the_layer_and_says_plainly_when_there_is_none():
    detect.cache_clear()
    layer = detect()
    line = next(line for line in _doctor({}).splitlines() if "sandbox:" in line)
    named = f"sandbox: {layer.name} ({layer.binary}): " if layer.binary else f"sandbox: {layer.name}: "
    assert line.startswith("ok" if layer.active else "warn") and line.split(None, 1)[1].startswith(named), line
    off = next(line for line in _doctor({"CAST_SANDBOX": "off"}).splitlines() if "sandbox:" in line)
    assert off.startswith("warn") and "strict subset" in off


def test_doctor_names_the_layer_once(monkeypatch):
    for layer, detail in (
        (Layer("bubblewrap", "read-only mounts", "/opt/bwrap"), "bubblewrap (/opt/bwrap): read-only mounts"),
        (Layer("landlock", "read-only filesystem"), "landlock: read-only filesystem"),
        (Layer("none", "commands run unconfined"), "none: commands run unconfined"),
    ):
        monkeypatch.setattr("cast.sandbox.policy.detect", lambda layer=layer: layer)
        assert sandbox_check().detail == detail


def test_check_command_answers_as_plan_mode_does_without_a_layer():
    def verdict(extra: dict[str, str]) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "cast", "check-command", "git log -1"],
            env={**os.environ, **extra},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        return done.stdout

    assert "strict subset" in verdict({"CAST_SANDBOX": "off"})
    detect.cache_clear()
    if detect().active:
        assert verdict({}).startswith("allowed")


def test_doctor_lists_what_the_sandbox_hides_and_blocks_one_line_each(layer, repo, monkeypatch):
    from cast.doctor import render, run_checks

    monkeypatch.chdir(repo)
    text = render(run_checks())
    named = {line.split(":")[0].split(maxsplit=1)[1]: line for line in text.splitlines()}
    for name in ("environment", "home", "unix sockets", "network", "limits", "plan commands"):
        assert named[name].startswith("ok"), text
    assert "512 processes" in named["limits"] and "hidden" in named["home"]
    assert named["processes"].startswith("ok" if layer == "bubblewrap" else "warn")
    assert ("unverified ones run sandboxed" in named["plan commands"]) == (layer == "bubblewrap")


def test_doctor_says_nothing_is_hidden_without_a_layer(sandbox_off, repo, monkeypatch):
    from cast.doctor import render, run_checks

    monkeypatch.chdir(repo)
    text = render(run_checks())
    assert "warn  isolation: nothing is hidden or blocked" in text and "environment:" not in text
