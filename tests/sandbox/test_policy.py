"""The argv and profiles each layer gets, and the off switch."""

from __future__ import annotations

import sys

import pytest

from cast.sandbox.macos import profile
from cast.sandbox.policy import READ_ONLY, Layer, Policy, detect, launcher_spec, workspace_write, wrap


def test_macos_profile_denies_by_default_and_writes_only_where_allowed(tmp_path):
    text = profile(READ_ONLY, "/private/tmp/cast-scratch-1")
    assert text.startswith("(version 1)\n(deny default)\n")
    assert '(allow file-write* (subpath "/private/tmp/cast-scratch-1"))' in text
    assert "network" not in text and "(allow file-read*)" in text
    wide = profile(Policy(('/w/a "quoted" dir',), network=True), None)
    assert '(subpath "/w/a \\"quoted\\" dir")' in wide and "(allow network*)" in wide


def test_off_switch_and_unsandboxed_commands_still_get_the_launcher(sandbox_off):
    assert detect() == Layer("off", detect().detail) and not detect().active
    argv = wrap(["bash", "-c", "true"], READ_ONLY, "/tmp/s")
    assert argv[:3] == [sys.executable, "-I", "-S"] and launcher_spec(argv) == {} and argv[-3:] == ["bash", "-c", "true"]


def test_landlock_spec_names_scratch_workspace_network_reads_and_limits(tmp_path):
    for name in (".git", ".cast", "src"):
        (tmp_path / name).mkdir()
    (tmp_path / "README.md").write_text("x")
    argv = wrap(["true"], workspace_write(tmp_path, network=True), "/tmp/s", Layer("landlock", ""), str(tmp_path))
    spec = launcher_spec(argv)
    rules, root = spec["landlock"], str(tmp_path.resolve())
    assert rules["net"] and rules["write"] == ["/tmp/s", f"{root}/README.md", f"{root}/src"]  # never .git or .cast
    assert rules["files"] == ["/dev/null"] and root in rules["read"] and "/usr" in rules["read"]
    assert not any(path == "/tmp" or path.startswith("/home") for path in rules["read"])
    assert spec["drop_caps"] and spec["rlimits"]["DATA"] == 2048 * 1024 * 1024 and spec["pid_max"] == 513


def test_without_a_layer_plan_mode_says_so_once_and_runs_only_the_strict_subset(sandbox_off, repo, monkeypatch):
    from cast.tools import shell
    from cast.tools.base import ToolContext, run_tool
    from cast.workspace import Workspace

    monkeypatch.setattr(shell, "_NO_LAYER_SAID", [])
    ctx = ToolContext(workspace=Workspace(repo))
    first = run_tool(shell.PLAN_BASH, {"command": "ls"}, ctx)
    second = run_tool(shell.PLAN_BASH, {"command": "ls"}, ctx)
    assert first.text.startswith("exit_code=0\n[") and "strict subset" in first.text.splitlines()[1]
    assert "strict subset" in first.summary and "strict subset" not in second.summary + second.text
    assert "README.md" in second.text
    refused = run_tool(shell.PLAN_BASH, {"command": "git log -1"}, ctx)
    assert not refused.ok and "strict subset" in refused.text


def test_isolation_is_strong_only_with_every_guarantee(sandbox_off):
    from cast.sandbox.policy import Isolation, isolation

    full = Isolation("bubblewrap", True, True, True, True, True, True)
    assert full.strong and full.missing() == []
    for field in ("env_scrubbed", "home_hidden", "unix_sockets_blocked", "network_blocked", "pid_namespace", "limits"):
        weaker = Isolation(**{**full.__dict__, field: False})
        assert not weaker.strong and len(weaker.missing()) == 1
    off = isolation()
    assert off.layer == "off" and not off.strong and off.missing() == ["no kernel sandbox (off)"]


@pytest.mark.parametrize("direct", [True, False], ids=["bwrap alone", "launcher inside"])
def test_both_bubblewrap_paths_hold_the_same_confinement(direct, monkeypatch, tmp_path):
    """Where bubblewrap can apply everything itself, no launcher starts inside; where it cannot,
    the launcher does it. Either way: no capability, the filter, the limits, a pid namespace."""
    from sandboxkit import use_layer

    from cast.sandbox import policy
    from cast.tools.process import run_command

    use_layer(monkeypatch, "bubblewrap")
    if direct and not policy.direct_works():
        pytest.skip("this bubblewrap cannot run a command without the launcher")
    monkeypatch.setattr(policy, "direct_works", lambda: direct)
    argv, handoff = policy.prepare(["true"], READ_ONLY, str(tmp_path))
    assert (handoff is None) is not direct and (sys.executable in argv) is not direct
    if handoff is not None:
        handoff.spawned()
        handoff.close()
    command = "grep -E '^(CapBnd|CapEff|Seccomp):' /proc/self/status; ulimit -d; ulimit -f; echo $$; python3 -c 'import socket; socket.socket(socket.AF_UNIX)'"
    result = run_command(command, tmp_path, 30, sandbox=READ_ONLY)
    lines = result.output.splitlines()
    assert lines[:3] == ["CapEff:\t0000000000000000", "CapBnd:\t0000000000000000", "Seccomp:\t2"], result.output
    assert lines[3:5] == [str(2 * 1024 * 1024), str(1024 * 1024)] and int(lines[5]) < 10  # kB, blocks; a low pid
    assert "PermissionError" in result.output
