"""The argv and profiles each layer gets, and the off switch."""
from __future__ import annotations

import json
import sys

from cast.sandbox.macos import profile
from cast.sandbox.policy import READ_ONLY, Layer, Policy, detect, workspace_write, wrap


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
    assert argv[:3] == [sys.executable, "-I", "-S"] and json.loads(argv[4]) == {} and argv[-3:] == ["bash", "-c", "true"]


def test_landlock_spec_names_scratch_workspace_and_network(tmp_path):
    argv = wrap(["true"], workspace_write(tmp_path, network=True), "/tmp/s", Layer("landlock", ""))
    spec = json.loads(argv[4])
    assert spec["landlock"] and spec["net"] and spec["write"] == ["/tmp/s", str(tmp_path.resolve())]
    assert spec["drop_caps"] and spec["files"] == ["/dev/null"]
