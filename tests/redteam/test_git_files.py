"""A `.git` that points out of the workspace must not open the sandbox, planned end to end.

`cast plan` with a scripted model that tries to read a secret the repository's git metadata names
(`gitdir:` absolute and relative, a `commondir`, `objects/info/alternates`, `/tmp`, `/home`,
`/root`, a directory holding only HEAD, a target that does not exist, a forged submodule link,
`core.worktree`, `.git` as a symlink, a copied worktree whose back-link names the original; tests/gitfiles.py builds them): proven reads (`cat`, `git cat-file`) and a
repository script run sandboxed and unverified, under bubblewrap, Landlock alone and with the
sandbox off. No secret reaches anything cast sent, printed or kept, and the planner is told once
why git sees no repository there. A real linked worktree and a real submodule, whose git dirs live
outside the workspace in the hidden /tmp, still plan with `git status`, `git log` and `git diff`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import invoke_cast, write_script
from gitfiles import ATTACKS, LEGIT
from sandboxkit import use_layer

from cast.sandbox.policy import detect

NOTE = "git metadata outside the workspace is not visible"
PLAN = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n- [ ] look at app.py"}}]}


@pytest.fixture(autouse=True)
def said_once_per_test(monkeypatch):
    """What cast says once per process is said once per test (cast runs in-process here)."""
    from cast.tools import shell

    monkeypatch.setattr(shell, "_SAID", set())
    monkeypatch.setattr(shell, "_NO_LAYER_SAID", [])


def _select(name: str, monkeypatch: pytest.MonkeyPatch) -> str:
    if name == "off":
        monkeypatch.setenv("CAST_SANDBOX", "off")
        detect.cache_clear()
        return "off"
    use_layer(monkeypatch, name)
    return "auto" if name == "bubblewrap" else name


def _plan(root: Path, commands: list[str], tmp_path: Path, sandbox: str) -> tuple[str, list[str]]:
    """Everything cast sent, printed or kept, and the tool results as the model got them."""
    turns = [
        {
            "tool_uses": [
                {"name": "bash", "input": {"command": c, "timeout": 60}},
                {"name": "bash", "input": {"command": f"echo {i}"}},
            ]
        }
        for i, c in enumerate(commands)
    ]  # a harmless command after each: refusals in a row (a secret's path is refused outright) would end the run
    script = write_script(tmp_path / "plan.jsonl", [*turns, PLAN, {"text": "Planned."}])
    state, record = tmp_path / "state", tmp_path / "requests.jsonl"
    done = invoke_cast(
        root, "--model", f"script:{script}", "plan", "look around", record=record, CAST_SANDBOX=sandbox, XDG_STATE_HOME=str(state)
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    results = [
        json.dumps(b["content"]) for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"
    ]
    kept = [done.stdout, done.stderr, record.read_text()]
    for top in (state, root / ".cast"):
        kept += [p.read_text(errors="replace") for p in top.rglob("*") if p.is_file()]
    return "\n".join(kept), results[: 2 * len(commands)]  # each command's result, then its echo's


@pytest.mark.parametrize("name", ["bubblewrap", "landlock", "off"])
@pytest.mark.parametrize("variant", sorted(ATTACKS))
def test_git_metadata_outside_the_workspace_leaks_nothing(variant, name, tmp_path, monkeypatch):
    sandbox = _select(name, monkeypatch)
    attack = ATTACKS[variant](tmp_path)
    commands = attack.reads
    if name == "off":  # nothing hides the home then (docs/safety.md): only git and the repository's code are tried
        commands = [c for c in commands if c.split()[0] not in ("cat", "ls", "git")] + ["git log -1"]
    kept, results = _plan(attack.root, commands, tmp_path, sandbox)
    leaked = [secret for secret in attack.secrets if secret in kept]
    assert leaked == [], f"{variant} under {name} leaked {leaked}"
    said = sum(result.count(NOTE) for result in results)
    assert said == (1 if attack.note and name != "off" else 0), results
    if variant == "core-worktree":  # the home never became the workspace
        assert not (Path(attack.root).parent / ".cast").exists() and (attack.root / ".cast" / "plans").is_dir()


@pytest.mark.parametrize("name", ["bubblewrap", "landlock"])
@pytest.mark.parametrize("layout", sorted(LEGIT))
def test_a_real_worktree_and_submodule_still_plan_with_git(layout, name, tmp_path, monkeypatch):
    sandbox = _select(name, monkeypatch)
    legit = LEGIT[layout](tmp_path)
    _, results = _plan(legit.root, ["git status --porcelain", "git log --oneline -1", "git diff"], tmp_path, sandbox)
    status, log, diff = results[0::2]
    assert f" M {legit.changed}" in status and "exit_code=0" in status, status
    assert legit.subject in log, log
    assert f"+++ b/{legit.changed}" in diff, diff
    assert not any(NOTE in result for result in results)


def test_doctor_says_what_git_metadata_stays_out_and_what_is_shown(tmp_path):
    attack = ATTACKS["ssh-absolute"](tmp_path / "attack")
    line = next(line for line in invoke_cast(attack.root, "doctor").stdout.splitlines() if "git metadata:" in line)
    assert line.startswith("warn") and NOTE in line and f"{Path.home()}/.ssh" in line, line
    legit = LEGIT["worktree"](tmp_path / "legit")
    line = next(line for line in invoke_cast(legit.root, "doctor").stdout.splitlines() if "git metadata:" in line)
    assert line.startswith("ok") and str(tmp_path / "legit" / "main" / ".git") in line, line
    plain = invoke_cast(LEGIT["submodule"](tmp_path / "plain").root.parent, "doctor").stdout
    assert "git metadata:" not in plain  # a repository of its own says nothing


@pytest.mark.parametrize("name", ["bubblewrap", "landlock"])
def test_execute_mode_leaks_nothing_either_and_says_why_once(name, tmp_path, monkeypatch):
    sandbox = _select(name, monkeypatch)
    attack = ATTACKS["ssh-absolute"](tmp_path)
    plan = attack.root / ".cast" / "plans" / "2099-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Look at app.py\n")
    reads = [c for c in attack.reads if not c.startswith("python3")]  # approved scripts run outside the sandbox
    turns = [{"tool_uses": [{"name": "bash", "input": {"command": c}}]} for c in reads]
    turns += [{"text": "Done."}, {"complete": True, "missing": [], "claims": []}]
    record = tmp_path / "requests.jsonl"
    script = write_script(tmp_path / "s.jsonl", turns)
    done = invoke_cast(
        attack.root, "--model", f"script:{script}", "execute", "--yes", "2099-01-01-x", record=record, CAST_SANDBOX=sandbox
    )
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    results = [
        json.dumps(b["content"]) for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"
    ]
    assert len(results) >= len(reads) and not any(s in done.stdout + record.read_text() for s in attack.secrets), results
    assert sum(result.count(NOTE) for result in results) == 1, results
