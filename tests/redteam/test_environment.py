"""A hostile model asks the shell for cast's secrets: the commands plan mode runs get the
allowlisted environment with or without a kernel layer, so no API key, token or password reaches
what the model is sent, nor the plan it writes (a file the user may commit). End to end through
`cast plan` as a real process, since the environment cast was started with is the subject.

Without a kernel layer the gap that remains is documented in docs/safety.md: a command can still
read cast's own /proc/PID/environ."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cast, write_script

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-planted-1",
    "GH_TOKEN": "ghp-planted-2",
    "DB_PASSWORD": "planted-3",
    "MY_API_KEY": "planted-4",
}
DUMPS = [
    "printenv",
    "env",
    "jq -n env",
    "awk 'BEGIN { for (k in ENVIRON) print k \"=\" ENVIRON[k] }'",
    "echo $ANTHROPIC_API_KEY $GH_TOKEN $DB_PASSWORD $MY_API_KEY",
    "cat /proc/self/environ",
    "grep -a -r planted /proc/self/environ",
]


@pytest.mark.parametrize("layer", ["off", "auto"])
def test_plan_mode_commands_never_see_casts_secrets(repo, tmp_path, layer):
    turns = [{"tool_uses": [{"name": "bash", "input": {"command": c}} for c in DUMPS]}]
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]},
        {"text": "ok"},
    ]
    record = tmp_path / "requests.jsonl"
    done = run_cast(
        repo,
        "--model",
        f"script:{write_script(tmp_path / 's.jsonl', turns)}",
        "plan",
        "x",
        record=record,
        CAST_SANDBOX=layer,
        **SECRETS,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    sent = record.read_text()
    assert sent.count("exit_code=0") >= len(DUMPS), sent[-3000:]  # every dump ran: nothing was simply refused
    assert "PATH=" in sent and "HOME=" in sent  # the environment was shown, without the secrets
    plan = Path(done.stdout.strip().splitlines()[-1]).read_text()
    leaked = [name for name, value in SECRETS.items() if value in sent or value in plan or value in done.stdout]
    assert leaked == [], leaked
