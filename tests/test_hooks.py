"""Hooks on their own: the config they come from, one run of a real hook through bash (its stdin,
its exit, its timeout), the gate's rules per event, and which project hooks a run may use."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from cast.config import ConfigError
from cast.hooks import project
from cast.hooks.config import Hook, parse
from cast.hooks.gate import HookGate
from cast.hooks.runner import run
from cast.models.base import ToolUse
from cast.tools.base import Observation


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


def call(name: str, arguments: object) -> ToolUse:
    return ToolUse("toolu_1", name, arguments)


def gate(ws: Path, *hooks: Hook, warnings: list[str] | None = None) -> HookGate:
    sink = warnings if warnings is not None else []
    return HookGate(list(hooks), ws, lambda: "s1", lambda: "execute", sink.append)


def test_a_hook_gets_one_json_object_on_stdin(ws):
    hook = Hook("pre_tool_use", "cat > seen.json; echo out; echo err >&2")
    result = run(hook, {"event": "pre_tool_use", "tool": "bash", "input": {"command": "ls"}}, ws)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "out\n", "err\n")
    assert json.loads((ws / "seen.json").read_text()) == {"event": "pre_tool_use", "tool": "bash", "input": {"command": "ls"}}


def test_a_hook_that_ignores_stdin_or_prints_a_lot_cannot_block_cast(ws):
    big = {"event": "post_tool_use", "observation": "x" * 1_000_000}
    result = run(Hook("post_tool_use", "head -c 200000 /dev/zero | tr '\\0' y"), big, ws)
    assert result.ok and "[truncated:" in result.stdout and len(result.stdout) < 20_000


def test_a_hanging_hook_and_its_children_are_killed_at_its_timeout(ws):
    hook = Hook(
        "pre_tool_use", "(sleep 300; touch late) & echo $! > child; setsid sleep 300 & echo $! > escaped; sleep 300", timeout=5
    )
    result = run(hook, {}, ws)
    assert result.timed_out and result.exit_code is None and "past its timeout of 5s" in result.problem()
    for name in ("child", "escaped"):
        pid = int((ws / name).read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_cancel_stops_a_hook(ws):
    cancel = threading.Event()
    cancel.set()
    result = run(Hook("stop", "sleep 300", timeout=600), {}, ws, cancel)
    assert result.exit_code is None and not result.timed_out


def test_pre_tool_use_exit_2_refuses_with_stderr_and_matches_by_glob(ws):
    blocker = Hook("pre_tool_use", 'grep -q "rm " && { echo "no rm here" >&2; exit 2; }; exit 0', matcher="bash|mcp__*")
    hooks = gate(ws, blocker)
    refused = hooks.before(call("bash", {"command": "rm -rf build"}))
    assert refused is not None and "no rm here" in refused and "project" not in refused
    assert hooks.before(call("bash", {"command": "ls"})) is None
    assert hooks.before(call("mcp__files__delete", {"command": "rm x"})) is not None
    assert hooks.before(call("edit_file", {"command": "rm x"})) is None  # not matched: never run


def test_other_exits_are_warnings_and_the_call_goes_on(ws):
    warnings: list[str] = []
    hooks = gate(ws, Hook("pre_tool_use", "echo broken >&2; exit 1"), warnings=warnings)
    assert hooks.before(call("bash", {})) is None
    assert warnings == ["hook user hooks[0] (pre_tool_use) exited 1: broken"]


def test_post_tool_use_stdout_is_appended(ws):
    hooks = gate(
        ws,
        Hook(
            "post_tool_use", 'python3 -c \'import json,sys; d=json.load(sys.stdin); print(d["tool"], d["ok"], d["observation"])\''
        ),
    )
    assert (
        hooks.after(call("bash", {"command": "ls"}), Observation("exit_code=0"))
        == "[post_tool_use hook user hooks[0]]\nbash True exit_code=0"
    )
    assert gate(ws, Hook("post_tool_use", "exit 0")).after(call("bash", {}), Observation("x")) == ""


def test_a_stop_hook_objects_once_per_task(ws):
    hooks = gate(ws, Hook("stop", "echo 'run the tests first' >&2; exit 2"))
    first = hooks.done("Done.")
    assert first is not None and "run the tests first" in first
    assert hooks.done("Done again.") is None
    assert hooks.turn("next task") is None
    assert hooks.done("Done.") is not None


def test_user_prompt_exit_2_stops_the_prompt(ws):
    hooks = gate(ws, Hook("user_prompt", "grep -q secret && { echo 'no secrets' >&2; exit 2; }; exit 0"))
    refused = hooks.turn("print the secret")
    assert refused is not None and "no secrets" in refused
    assert hooks.turn("hello") is None and hooks.turn(None) is None


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ({"event": "pre_tool_use"}, "'command' must be"),
        ({"event": "before", "command": "x"}, "'event' must be one of"),
        ({"event": "stop", "command": "x", "matcher": "bash"}, "tool events only"),
        ({"event": "stop", "command": "x", "timeout": 0}, "'timeout' must be"),
        ({"event": "stop", "command": "x", "timeout": True}, "'timeout' must be"),
        ({"event": "stop", "command": "x", "when": 1}, "unknown key 'when'"),
        ("x", "must be a table"),
    ],
)
def test_bad_entries_are_errors_naming_the_file_and_entry(value, said):
    with pytest.raises(ConfigError, match=rf"config.toml: hooks\[0\].*{said}"):
        parse([value], "user", Path("config.toml"))


def test_project_hooks_need_trust_then_an_approval_pinned_by_hash(ws):
    mine = Hook("stop", "echo mine", source="user")
    theirs = Hook("pre_tool_use", "./hook.sh", source="project")
    untrusted = project.settle(ws, [mine, theirs], trusted=False, ask=lambda q: True)
    assert untrusted.hooks == [mine] and "trust" in untrusted.notices[0]
    headless = project.settle(ws, [mine, theirs], trusted=True, ask=None)
    assert (
        headless.hooks == [mine]
        and "not approved in this workspace" in headless.notices[0]
        and "cast hooks approve" in headless.notices[0]
    )
    asked: list[project.HookRequest] = []
    approved = project.settle(ws, [mine, theirs], trusted=True, ask=lambda q: asked.append(q) or True)
    assert approved.hooks == [mine, theirs] and asked[0].command == "./hook.sh" and "./hook.sh" in asked[0].question
    assert asked[0].digest == project.digest(theirs) and asked[0].name == "project hooks[0]"
    assert project.settle(ws, [theirs], trusted=True, ask=None).hooks == [theirs]  # pinned: not asked again
    changed = Hook("pre_tool_use", "./hook.sh; curl evil", source="project")
    assert project.settle(ws, [changed], trusted=True, ask=None).hooks == []  # a changed hook asks again
    assert project.settle(ws, [changed], trusted=True, ask=lambda q: False).hooks == []


def test_cast_hooks_lists_approves_and_revokes_a_projects_hooks(repo):
    from conftest import invoke_cast

    from cast.trust import record

    (repo / ".cast").mkdir()
    (repo / ".cast/config.toml").write_text('[[hooks]]\nevent = "pre_tool_use"\nmatcher = "bash"\ncommand = "./guard.sh"\n')
    listed = invoke_cast(repo, "hooks")
    assert listed.stdout.split("\t")[-1].strip() == "never runs: workspace not trusted (cast trust)"
    record(repo, trusted=True)
    assert "not approved: cast hooks approve" in invoke_cast(repo, "hooks").stdout
    approved = invoke_cast(repo, "hooks", "approve")
    assert approved.returncode == 0 and "approved project hooks[0]: pre_tool_use bash: ./guard.sh" in approved.stdout
    assert json.loads(invoke_cast(repo, "hooks", "--json").stdout)["status"] == "runs (approved)"
    (repo / ".cast/config.toml").write_text('[[hooks]]\nevent = "pre_tool_use"\nmatcher = "*"\ncommand = "./guard.sh"\n')
    assert "changed since you approved it" in invoke_cast(repo, "hooks").stdout
    assert invoke_cast(repo, "hooks", "approve", "3").returncode == 2
    assert "revoked project hooks[0]" in invoke_cast(repo, "hooks", "revoke").stdout
    assert "not approved: cast hooks approve" in invoke_cast(repo, "hooks").stdout
    (repo / ".cast/config.toml").write_text('[[hooks]]\nevent = "nope"\ncommand = "x"\n')
    broken = invoke_cast(repo, "hooks")
    assert broken.returncode == 2 and "hooks[0]: 'event' must be one of" in broken.stderr


def test_a_projects_hooks_ask_for_trust_and_are_named_when_ignored(repo):
    from cast.config import load, loosening_keys

    (repo / ".cast").mkdir()
    (repo / ".cast/config.toml").write_text('max_steps = 5\n[[hooks]]\nevent = "stop"\ncommand = "x"\n')
    assert loosening_keys(repo) == ["hooks"]
    assert load(repo).max_steps == 5  # the rest of the file still counts
