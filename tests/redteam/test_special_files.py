"""The file tools read files, never what waits or streams: a named pipe in the workspace (one a
build or an approved command left; git cannot commit one) would block read_file, grep or
write_file for ever, and committed symlinks to /dev/zero, /dev/stdin, /proc/self/environ or `/`
lead outside the workspace. End to end through `cast plan` and `cast execute` as real processes
(a hang is what is tested), judged by the run ending in time and by what the model was told."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from conftest import git, run_cast, write_script

LINKS = {"zero": "/dev/zero", "stdin": "/dev/stdin", "fd0": "/proc/self/fd/0", "environ": "/proc/self/environ", "root": "/"}
READS = [
    ("read_file", {"path": "pipe"}),
    ("grep", {"pattern": "x", "path": "pipe"}),
    ("grep", {"pattern": "x"}),
    ("list_files", {}),
    *[("read_file", {"path": name}) for name in LINKS],
    *[("grep", {"pattern": "HOME", "path": name}) for name in LINKS],
    ("read_file", {"path": "root/etc/passwd"}),
    ("read_file", {"path": "/proc/self/environ"}),
]


def _results(record: Path) -> list[dict]:
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    return [b for r in requests[1:] for b in r["messages"][-1]["content"] if b.get("type") == "tool_result"]


def _run(repo: Path, tmp_path: Path, turns: list[dict], *args: str) -> list[dict]:
    record = tmp_path / "requests.jsonl"
    started = time.monotonic()
    try:
        done = run_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", *args, record=record, timeout=40)
    except subprocess.TimeoutExpired:
        raise AssertionError("a file tool hung on a named pipe or a device") from None
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert time.monotonic() - started < 40
    return _results(record)


def test_named_pipes_devices_and_proc_are_refused_not_waited_on(repo, tmp_path):
    for name, target in LINKS.items():
        (repo / name).symlink_to(target)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "links")
    os.mkfifo(repo / "pipe")
    # after each attack a call of the same tool that works: three failures in a row would end the run
    fine = {"read_file": lambda i: {"path": "README.md", "limit": i + 1}, "grep": lambda i: {"pattern": f"demo|x{i}"}}
    turns = [
        {"tool_uses": [{"name": tool, "input": args}, {"name": tool, "input": fine.get(tool, lambda i: {"pattern": f"*{i}"})(i)}]}
        for i, (tool, args) in enumerate(READS)
    ]
    turns += [
        {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]},
        {"text": "ok"},
    ]
    results = _run(repo, tmp_path, turns, "plan", "look")
    assert len(results) == 2 * len(READS) + 1
    results = results[0:-1:2]
    shown = {json.dumps(args): json.dumps(r["content"]) for (_, args), r in zip(READS, results, strict=True)}
    assert "is a named pipe, not a file" in shown['{"path": "pipe"}']
    assert "is a named pipe, not a file" in shown['{"pattern": "x", "path": "pipe"}']
    refused = [(tool, args) for (tool, args), r in zip(READS[4:], results[4:], strict=True) if not r.get("is_error")]
    assert refused == [], refused  # every link and /proc path: outside the workspace
    assert "no matches" in shown['{"pattern": "x"}'] and not results[3].get("is_error")  # the walks skip the pipe


def test_write_file_over_a_named_pipe_is_refused_not_waited_on(repo, tmp_path):
    plan = repo / ".cast" / "plans" / "2099-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] x\n")
    os.mkfifo(repo / "pipe")
    turns = [
        {"tool_uses": [{"name": "write_file", "input": {"path": "pipe", "content": "x\n"}}]},
        {"text": "Done."},
        {"complete": True, "missing": [], "claims": []},
    ]
    [result] = _run(repo, tmp_path, turns, "execute", "--yes", "2099-01-01-x")[:1]
    assert result.get("is_error") and "is a named pipe, not a file" in json.dumps(result["content"]), result
    assert (repo / "pipe").is_fifo()
