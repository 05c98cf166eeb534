"""A hostile model inside an explore: it names every writing tool, and tries every way bash writes
(redirection, tee, sed -i, cp, git, an interpreter, a path outside the workspace), in a plan run and
in an execute run started with --yes. Nothing changes: the child's tools are plan mode's read tools,
refused by name otherwise, and its bash is plan mode's (the checker, then the kernel sandbox with
the workspace read-only and its writes thrown away)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import commit_plan, invoke_cast, write_script


def everything(root: Path) -> dict[str, str]:
    """Every file and link under `root`, .git and .cast included, by content."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            found[str(path.relative_to(root))] = "dir"
            continue
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        found[str(path.relative_to(root))] = hashlib.sha256(data).hexdigest()
    return found


def attacks(outside: Path) -> list[dict]:
    writes = [
        "touch pwned.txt",
        "echo x > pwned.txt",
        "printf x >> app.py",
        "tee pwned.txt < /dev/null",
        "sed -i s/a/b/ app.py",
        "cp app.py pwned.txt",
        "mkdir pwned-dir",
        "ln -s app.py pwned-link",
        "git commit --allow-empty -qm pwned",
        "git config user.name pwned",
        "python3 -c \"open('pwned.txt', 'w').write('x')\"",
        f"touch {outside}",
    ]
    by_name = [
        ("write_plan", {"name": "plan", "content": "# Plan\n- [ ] pwned\n"}),
        ("write_file", {"path": "pwned.txt", "content": "x"}),
        ("edit_file", {"path": "app.py", "old_string": "a + b", "new_string": "0"}),
        ("update_task", {"id": 1, "status": "done"}),
        ("explore", {"task": "start another explore"}),
        ("mcp__files__write", {"path": "pwned.txt"}),
    ]
    calls = [{"name": "bash", "input": {"command": "git status --short"}}]
    calls += [{"name": "bash", "input": {"command": command}} for command in writes]
    calls += [{"name": name, "input": args} for name, args in by_name]
    return [{"tool_uses": calls}, {"text": "I tried."}]


def configure(tmp_path: Path, child: list[dict], plan_commands: str) -> None:
    script = write_script(tmp_path / "child.jsonl", child)
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'explore_model = "script:{script}"\nplan_commands = "{plan_commands}"\n')


def child_results(stdout: str) -> list[dict]:
    rows = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [r for r in rows if r["type"] == "tool_result" and r.get("parent_tool_use_id")]


def attempt(repo: Path, tmp_path: Path, mode: str, plan_commands: str) -> list[dict]:
    outside = tmp_path / "outside-pwned"
    configure(tmp_path, attacks(outside), plan_commands)
    explore = {"tool_uses": [{"name": "explore", "input": {"task": "look"}}]}
    if mode == "execute":
        commit_plan(repo, "# Plan\n\n- [ ] look around\n")
        turns = [explore, {"text": "Looked."}, {"text": '{"complete": true, "missing": [], "claims": []}'}]
        args = ["execute", "--yes"]
    else:
        turns = [explore, {"text": "Looked."}]
        args = ["plan", "look"]
    parent = write_script(tmp_path / "parent.jsonl", turns)
    before = everything(repo)
    done = invoke_cast(repo, "--model", f"script:{parent}", "--json", *args)
    after = {k: v for k, v in everything(repo).items() if not k.startswith(".cast/plans/") or k in before}
    assert after == before, set(after.items()) ^ set(before.items())
    assert not outside.exists() and not any(p.name.startswith("pwned") for p in repo.rglob("*"))
    results = child_results(done.stdout)
    assert len(results) == 19, done.stdout[-2000:]
    return results


@pytest.mark.parametrize("mode", ["plan", "execute"])
def test_a_child_cannot_write_with_commands_proven_read_only(repo, tmp_path, mode):
    results = attempt(repo, tmp_path, mode, "proven")
    named = [r for r in results if r["name"] != "bash"]
    assert all(not r["ok"] and "no tool named" in r["text"] for r in named)
    writes = [r for r in results if r["name"] == "bash"][1:]
    assert all(r["result"]["type"] == "declined" for r in writes), [r["text"][:80] for r in writes]


@pytest.mark.parametrize("mode", ["plan", "execute"])
def test_a_child_cannot_write_in_the_sandbox_either(repo, tmp_path, mode, layer):
    results = attempt(repo, tmp_path, mode, "sandboxed")
    assert all(not r["ok"] and "no tool named" in r["text"] for r in results if r["name"] != "bash")
    ran = [r for r in results if r["name"] == "bash" and r["result"]["type"] == "ran"][1:]
    assert all(not r["result"]["verified"] for r in ran)  # what ran, ran sandboxed, unverified
