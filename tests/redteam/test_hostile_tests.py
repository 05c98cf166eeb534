"""A repository whose tests attack the machine, planned end to end: `cast plan "fix the failing
test"` with a scripted model that runs the suite with `python3 -m unittest` and with
`python3 -m pytest`, under each kernel layer this machine has and with the sandbox off.

Where the strong sandbox holds them, the tests run and the planner gets their real output, the
honest failure included; elsewhere both commands are refused, saying why. Either way nothing else
happens: the tree, .git and $HOME hash the same, nothing lands in /tmp or /var/tmp, no secret
(planted in $HOME or set in cast's environment) is in anything cast sent or kept, no listener is
reached and no process is left (tests/hostile_suite.py has the attacks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cast, write_script
from hostile_suite import HostileTests, build
from sandboxkit import Listener, no_stray, running_in, use_layer

from cast.sandbox.policy import detect, isolation

COMMANDS = ("python3 -m unittest", "python3 -m pytest -q -p no:cacheprovider")
TURNS = [{"tool_uses": [{"name": "bash", "input": {"command": command, "timeout": 60}}]} for command in COMMANDS] + [
    {
        "tool_uses": [
            {"name": "write_plan", "input": {"name": "plan", "content": "# Plan: fix add\n- [ ] return a + b in calc.py"}}
        ]
    },
    {"text": "Planned."},
]


def _select(name: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The CAST_SANDBOX value for `name` (skipping a layer this kernel lacks); detect() now answers for it."""
    if name == "off":
        monkeypatch.setenv("CAST_SANDBOX", "off")
        detect.cache_clear()
        return "off"
    use_layer(monkeypatch, name)
    return "auto" if name == "bubblewrap" else name


def _everything_cast_kept(suite: HostileTests, state: Path, done, record: Path) -> str:  # type: ignore[no-untyped-def]
    kept = [done.stdout, done.stderr, record.read_text()]
    for top in (state, suite.root / ".cast"):
        kept += [p.read_text(errors="replace") for p in top.rglob("*") if p.is_file()]
    return "\n".join(kept)


@pytest.mark.parametrize("name", ["bubblewrap", "landlock", "off"])
def test_hostile_tests_planned_end_to_end(name, tmp_path, monkeypatch):
    sandbox = _select(name, monkeypatch)
    found = isolation()
    listener = Listener()
    suite = build(tmp_path, listener.port, allocate=found.limits)
    try:
        before = suite.state()
        state, record = tmp_path / "state", tmp_path / "requests.jsonl"
        script = write_script(tmp_path / "plan.jsonl", TURNS)
        env = {**suite.env(), "CAST_SANDBOX": sandbox, "XDG_STATE_HOME": str(state), "XDG_CACHE_HOME": str(tmp_path / "cache")}
        done = run_cast(
            suite.root, "--model", f"script:{script}", "plan", "fix the failing test", record=record, timeout=180, **env
        )
        assert done.returncode == 0, done.stderr[-2000:]

        assert suite.state() == before and suite.strays() == []
        assert suite.leaked(_everything_cast_kept(suite, state, done, record)) == []
        assert suite.reached() == [] and not listener.connected()
        assert no_stray(suite.marker) and not running_in(suite.root)

        requests = [json.loads(line) for line in record.read_text().splitlines()]
        results = [b for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"]
        outputs = [json.dumps(b["content"]) for b in results[: len(COMMANDS)]]
        assert len(outputs) == len(COMMANDS) and Path(done.stdout.strip().splitlines()[-1]).is_file()
        if found.strong:
            for output in outputs:
                assert "sandboxed, unverified" in output and "-1 != 5" in output and "hostile report" in output, output[-2000:]
        else:
            why = "only in the strong sandbox, and here " + found.layer  # said once: with the first refusal
            assert all(b.get("is_error") and "command blocked in plan mode" in json.dumps(b["content"]) for b in results[:2])
            assert why in outputs[0] and "; ".join(found.missing()) in outputs[0] and why not in outputs[1], outputs
    finally:
        suite.close()
        listener.sock.close()
    if name == "bubblewrap" and not found.strong:
        pytest.xfail(
            f"bubblewrap here lacks guarantees the strong sandbox needs ({'; '.join(found.missing())}): plan refused the tests"
        )
