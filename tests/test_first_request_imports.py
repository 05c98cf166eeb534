"""What `cast plan TASK` has not imported when its first request goes out: each of these is only
needed later (rich: when the first words are printed; the self-check, checkpoints, the claims:
in execute mode or when the report is built; a thread pool: for parallel calls; the read tools'
pages and searches, the test runners' table: when a tool runs, the request needing only the
schemas; a snapshot: outside git; the skill tool and the hook runner: with skills or hooks), and
each is time on a loaded machine between the user's Enter and the request."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import cast_env
from fakeapi import FakeAPI, text

NOT_YET = (
    "typer",
    "rich.console",
    "concurrent.futures",
    "cast.checkpoints.journal",
    "cast.agent.selfcheck",
    "cast.agent.claims",
    "cast.tools.pages",
    "cast.tools.search",
    "cast.tools.ripgrep",
    "cast.tools.test_runners",
    "cast.tools.snapshot",
    "cast.tools.skill",
    "cast.hooks.runner",
    "anthropic",
    "prompt_toolkit",
    "tree_sitter",
)

PROBE = """
import json, sys, runpy
import cast.models.direct as direct
out_path = sys.argv[1]
real = direct.Client.stream
def stream(self, *args, **kwargs):
    with open(out_path, "w") as out:
        json.dump(sorted(sys.modules), out)
    return real(self, *args, **kwargs)
direct.Client.stream = stream
sys.argv = ["cast", "plan", "add a div function"]
runpy.run_module("cast", run_name="__main__")
"""


def test_the_first_plan_request_goes_out_before_what_it_does_not_need(repo, tmp_path):
    api = FakeAPI().serve_models().start()
    api.reply(text("Looking."))
    seen = tmp_path / "modules.json"
    env = {
        k: v for k, v in cast_env(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="test-key").items() if not k.startswith("CAST_")
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, str(seen)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        api.stop()
    assert seen.is_file(), done.stderr
    loaded = set(json.loads(seen.read_text()))
    assert "cast.runs" in loaded and "httpx2" in loaded  # the probe saw the request itself
    assert [name for name in NOT_YET if name in loaded] == []
