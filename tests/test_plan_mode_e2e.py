"""Plan mode's promise, end to end: whatever the model asks for, nothing outside .cast/ changes.

The script plays a hostile model: it calls write tools that plan mode does not have, tries a bash
attack of every class, and aims write_plan outside its directory. The test hashes the whole tree
and the git refs before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_script

ATTACKS = [
    "touch pwned",
    "echo x > pwned",
    "echo x >> README.md",
    "cat README.md | tee pwned",
    "sed -i 's/demo/owned/' README.md",
    "sed -n 'w pwned' README.md",
    "python3 -c \"open('pwned','w')\"",
    "bash -c 'touch pwned'",
    "echo 'touch pwned' | sh",
    "sh <<'EOF'\ntouch pwned\nEOF",
    "eval 'touch pwned'",
    "$(echo touch) pwned",
    "ls $(touch pwned)",
    "ls `touch pwned`",
    "cat <(touch pwned)",
    "git commit --allow-empty -m x",
    "git -c core.pager='touch pwned' log",
    "git log --output=pwned",
    "git branch evil",
    "git tag evil",
    "git stash",
    "find . -name README.md -exec touch pwned ;",
    "find . -delete",
    "sort -o pwned README.md",
    "sort -uopwned README.md",
    "rg --pre=touch x",
    "xargs touch <<< pwned",
    "env touch pwned",
    "timeout 5 touch pwned",
    "A=1 touch pwned",
    "f() { touch pwned; }; f",
    "touch pwned &",
    "/usr/bin/touch pwned",
    "t{o,u}ch pwned",
    "$'\\x74ouch' pwned",
    "awk 'BEGIN { system(\"touch pwned\") }'",
    "awk 'BEGIN { print 1 > \"pwned\" }'",
    "uniq README.md pwned",
    "cp README.md pwned",
    "mv README.md pwned",
    "rm README.md",
    "ln -s README.md pwned",
    "mkdir pwned",
    "chmod 000 README.md",
    "curl -o pwned http://127.0.0.1:9/",
    "[[ 'a[$(touch pwned)]' -eq 0 ]]",
    "xxd README.md pwned",
    "tree -o pwned",
    "date -s '2020-01-01'",
    "git config user.name evil",
    "git remote add evil /tmp/x",
    "git reflog expire --all",
    "pip install left-pad",
]

ESCAPES = ["../x", "/tmp/x", "a/../../x", "../../plans/x", "x/y", ".hidden", "UPPER", "..", ""]


def tree_digest(root: Path) -> dict[str, str]:
    """Every file outside .cast/ (including .git internals: refs, index, objects) by content."""
    digest = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".cast" or path.is_dir():
            continue
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        digest[str(rel)] = hashlib.sha256(data).hexdigest()
    return digest


def run_plan(repo: Path, script: Path, record: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if record:
        env["CAST_SCRIPT_RECORD"] = str(record)
    return subprocess.run(
        [sys.executable, "-m", "cast", "--model", f"script:{script}", "--max-steps", "200", "plan", "Do something"],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_hostile_script_changes_nothing_outside_dot_cast(repo, tmp_path):
    # uncommitted work in the tree, so anything that snapshots it through git (a stash commit,
    # an index refresh) would show up in .git
    (repo / "README.md").write_text("# demo\nan uncommitted edit\n")
    (repo / "untracked.txt").write_text("not added yet\n")
    later = time.time() + 5
    os.utime(repo / "app.py", (later, later))  # stale stat data: a refreshing `git status` rewrites the index
    outside = tmp_path / "x"
    turns = [
        {"tool_uses": [{"name": "bash", "input": {"command": "git diff --stat && git status --short && git diff"}}]},
        {"tool_uses": [{"name": "write_file", "input": {"path": "pwned", "content": "x"}}]},
        {"tool_uses": [{"name": "edit_file", "input": {"path": "README.md", "old_string": "demo", "new_string": "owned"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
    ]
    # each refused call is followed by a distinct successful one: three refusals in a row would
    # (rightly) end the run before every attack had its turn
    turns += [
        {"tool_uses": [{"name": "bash", "input": {"command": attack}}, {"name": "bash", "input": {"command": f"echo {i}"}}]}
        for i, attack in enumerate(ATTACKS)
    ]
    turns += [
        {
            "tool_uses": [
                {"name": "write_plan", "input": {"name": name, "content": "- [ ] x"}},
                {"name": "write_plan", "input": {"name": "plan", "content": f"- [ ] {i}"}},
            ]
        }
        for i, name in enumerate(ESCAPES)
    ]
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n- [ ] safe"}}]},
        {"text": "done"},
    ]
    script = write_script(tmp_path / "hostile.jsonl", turns)
    record = tmp_path / "requests.jsonl"
    # the checker's verdicts, end to end; what the strong sandbox makes of unproven commands is
    # tests/sandbox/test_plan_unverified.py and tests/redteam
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('plan_commands = "proven"\n')
    tmp_x = Path("/tmp/x").exists()
    before = tree_digest(repo)
    done = run_plan(repo, script, record)
    assert done.returncode == 0, done.stderr
    assert tree_digest(repo) == before
    assert not outside.exists() and not (tmp_path / "pwned").exists() and Path("/tmp/x").exists() == tmp_x
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert {tool["name"] for tool in requests[0]["tools"]} == {"read_file", "list_files", "grep", "bash", "write_plan", "explore"}
    results = [block for r in requests[1:] for block in r["messages"][-1]["content"] if block.get("type") == "tool_result"]
    assert results[0]["content"].startswith("exit_code=0") and "README.md" in results[0]["content"]  # git diff saw the edit
    results = results[1:]
    refused = [results[0], results[1], results[2]] + results[3 : 3 + 2 * (len(ATTACKS) + len(ESCAPES)) : 2]
    assert len(refused) == 3 + len(ATTACKS) + len(ESCAPES)
    assert all(block.get("is_error") for block in refused), [b["content"] for b in refused if not b.get("is_error")]
    assert "no tool named 'write_file'" in refused[0]["content"]
    assert all("blocked in plan mode" in b["content"] for b in refused[3 : 3 + len(ATTACKS)])
    plans = list((repo / ".cast" / "plans").glob("*/*.md"))
    assert [p.name for p in plans] == ["plan.md"]


def test_symlinked_plans_directory_is_not_written_through(repo, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (repo / ".cast").mkdir()
    os.symlink(target, repo / ".cast" / "plans")
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "- [ ] x"}}]},
            {"text": "done"},
        ],
    )
    before = tree_digest(repo)
    done = run_plan(repo, script)
    assert done.returncode == 1 and "no plan was written" in done.stderr
    assert list(target.iterdir()) == []
    assert tree_digest(repo) == before


@pytest.mark.parametrize("command", ["git log --oneline", "grep -rn add .", "wc -l $(git ls-files '*.py')"])
def test_read_only_exploration_works(repo, tmp_path, command):
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": command}}]},
            {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "- [ ] x"}}]},
            {"text": "done"},
        ],
    )
    record = tmp_path / "requests.jsonl"
    assert run_plan(repo, script, record).returncode == 0
    result = json.loads(record.read_text().splitlines()[1])["messages"][-1]["content"][0]
    assert result["content"].startswith("exit_code=0") and not result.get("is_error")
