"""Every current model of the December 2026 API reference, end to end through cast's own run
machinery (`cast.runs`, `cast.run.Run`) and the real SDK against the strict fake, in-process:

plan (explore, write the plan) → Shift+Tab to execute and back within the same conversation →
execute the plan in its own run (past a small aging threshold, so the API's context editing clears
old tool results) with the self-check → resume that session and one more turn.

The fake rejects what today's API rejects (thinking types, efforts, betas, system-message placement,
tool changes, a cache breakpoint on a deferred tool, prefill, the prefix check on signed thinking
blocks), from the docs and never from cast's catalog. So "no request rejected" is the claim, for
every model, with efforts set that some models do not take (cast lowers them and says so once)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git
from fakeapi import FakeAPI, fake_api, note, text, thinking, tool_use  # noqa: F401  (fake_api is a fixture)
from prefixcheck import _strip, assert_append_only

from cast import runs
from cast.agent import events as ev
from cast.options import Options

# The reference's line-up (§1) and the legacy models it names, plus the deprecated Opus 4.5 (still served).
MODELS = [
    "claude-fable-5-2",
    "claude-mythos-5-2",
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
    "claude-fable-5-1",
    "claude-mythos-5-1",
    "claude-fable-5",
    "claude-mythos-5",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-opus-4-8",
    "claude-opus-4-7",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-haiku-4-5",
    "claude-opus-4-5",
]
# Mid-conversation tool changes, documented for these four only (mid-conversation-system-messages page).
TOOL_CHANGES = {"claude-opus-5", "claude-opus-4-8", "claude-fable-5", "claude-mythos-5"}
PLAN = "# Plan: subtraction\n\n- [ ] Add a sub function to app.py\n"
BIG = "".join(f"def helper_{n}(value):\n    return value * {n}  # padding the task does not need\n" for n in range(160))
CONFIG = 'age_threshold_tokens = 4000\nkeep_recent_steps = 1\nretries = 1\nplan_effort = "low"\nexecute_effort = "xhigh"\n'
VERDICT = json.dumps({"complete": True, "missing": [], "claims": []})
EDIT = {
    "path": "app.py",
    "old_string": "    return a + b\n",
    "new_string": "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
}
NOTE = {"path": "NOTES.md", "content": "sub is next\n"}


def script(api: FakeAPI) -> None:
    # the planning conversation: explore, write the plan, sum up
    api.reply(thinking("Where is add?"), note("Reading app.py."), tool_use("toolu_p1", "read_file", {"path": "app.py"}))
    api.reply(thinking("One item."), tool_use("toolu_p2", "write_plan", {"name": "plan", "content": PLAN}))
    api.reply(thinking("Planned."), text("The plan has one item."))
    # Shift+Tab in the same conversation: execute mode, a write, then back to plan mode
    api.reply(thinking("Jot it down."), tool_use("toolu_s1", "write_file", NOTE))
    api.reply(thinking("Noted."), text("Noted the next step."))
    api.reply(thinking("Back to planning."), text("Still one item."))
    # the execute run: start, read a large file (aging), edit, tick, report; the self-check
    api.reply(thinking("Start."), tool_use("toolu_e1", "update_task", {"id": 1, "status": "in_progress"}))
    api.reply(thinking("Helpers?"), tool_use("toolu_e2", "read_file", {"path": "src/helpers.py"}))
    api.reply(thinking("Now app.py."), tool_use("toolu_e3", "read_file", {"path": "app.py"}))
    api.reply(thinking("Add sub."), note("Adding sub."), tool_use("toolu_e4", "edit_file", EDIT))
    api.reply(thinking("Tick."), tool_use("toolu_e5", "update_task", {"id": 1, "status": "done"}))
    api.reply(thinking("Report."), text("Item 1 is done: app.py has sub(a, b)."))
    api.reply(text(VERDICT))
    # after the resume: one more turn and its self-check
    api.reply(thinking("Recall."), text("Only app.py changed."))
    api.reply(text(VERDICT))


def workspace(repo: Path) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "helpers.py").write_text(BIG)
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text(CONFIG)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "helpers")


def turn(run, message: str | None = None) -> tuple[ev.Stopped, list[ev.Event]]:
    seen: list[ev.Event] = []
    stopped = run.execute(seen.append) if message is None else run.turn(message, seen.append)
    return stopped, seen


@pytest.mark.parametrize("model", MODELS)
def test_plan_switch_execute_age_resume(fake_api, repo, model):
    fake_api.serve_models()
    workspace(repo)
    script(fake_api)
    options = Options(cwd=repo, model=model, yes=True)

    planner = runs.plan_run("Plan adding sub", options)
    stopped, _ = turn(planner, "Plan adding a sub function to app.py")
    assert stopped.status == "done", stopped.reason
    plan_path = planner.plan_path
    assert plan_path is not None and plan_path.is_file()
    planner.switch("execute")
    stopped, said = turn(planner, "Jot the next step down")
    assert stopped.status == "done", stopped.reason
    assert (repo / "NOTES.md").read_text() == "sub is next\n"
    planner.switch("plan")
    stopped, _ = turn(planner, "How many items?")
    assert stopped.status == "done", stopped.reason
    planner.close()

    executor = runs.execute_run(str(plan_path), options)
    stopped, _ = turn(executor)
    assert stopped.status == "done", stopped.reason
    assert "- [x] Add a sub function to app.py" in plan_path.read_text()
    assert "def sub(a, b):" in (repo / "app.py").read_text()
    outcome = executor.close()
    assert outcome.code == 0, outcome.reason

    resumed = runs.resume_run(executor.session_id, options)
    stopped, _ = turn(resumed, "What changed?")
    assert stopped.status == "done", stopped.reason
    resumed.close()

    assert fake_api.rejections() == [], [(r.body.get("model"), r.error) for r in fake_api.rejections()]
    assert not fake_api.responses and {r.body["model"] for r in fake_api.requests} == {model}
    # thinking counts toward max_tokens: no call, the self-check's and the summaries' included, is starved
    assert min(r.body["max_tokens"] for r in fake_api.requests) >= 32_000
    main = [_strip(r.body) for r in fake_api.requests if r.body.get("tools")]
    planning, executing = main[:6], main[6:]
    assert len(executing) == 7
    if model in TOOL_CHANGES:  # plan → execute → plan: one conversation, only ever appended to
        assert_append_only(planning)
        assert all("defer_loading" in json.dumps(b["tools"]) for b in planning)
    else:  # the switches declare the new mode's tools: the messages stay, old thinking is dropped
        assert_append_only(planning, allow={3, 5})
        for index in (3, 5):
            assert planning[index]["messages"][: len(planning[index - 1]["messages"])] == planning[index - 1]["messages"]
            binding = (planning[index].get("thinking") or {}).get("block_binding")
            assert binding == {"prefix_mismatch_behavior": "drop_block"} or "thinking" not in planning[index]
    assert_append_only(executing)  # the resumed request extends the last one before the close
    assert len({json.dumps(b.get("output_config", {}).get("effort")) for b in planning}) == 1  # one effort per conversation
    cleared = [r for r in fake_api.requests if any(e.get("cleared_tool_uses", 0) > 0 for e in r.applied)]
    assert cleared, "no request was large enough to age"
