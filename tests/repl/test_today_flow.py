"""A whole session in the real REPL against the strict fake Messages API, none of it refused: plan
(the model explores and writes a plan), decline the hand-off, Shift+Tab to execute mode, do item 1
(an edit approved at the prompt, the item ticked), with enough context to pass a small aging
threshold, exit, `cast resume`, and one more turn.

The fake answers what today's API would, so "no request refused" covers the prefix check (every
echoed thinking block is checked against what was sent before it), system-message placement,
the betas, and the thinking and effort shapes. On top of that the test reads the requests the fake
recorded: each conversation only ever grew (the history cast sends is append-only), the API's
context editing cleared old tool results, and the first request after the resume extends the
last one before the exit, under the prefix the session journalled."""

from __future__ import annotations

import json
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

from apikit import leave, resume_and_ask, spawn  # noqa: E402
from conftest import git  # noqa: E402
from fakeapi import FakeAPI, api, note, text, thinking, tool_use  # noqa: E402, F401  (api is a fixture)
from prefixcheck import _strip, assert_append_only  # noqa: E402

from cast.models.clearing import hold
from cast.session_records import read_records  # noqa: E402
from cast.sessions import TRANSCRIPT, sessions_dir  # noqa: E402

PLAN = "# Plan: subtraction\n\n- [ ] Add a sub function to app.py\n"
BIG = "".join(f"def helper_{n}(value):\n    return value * {n}  # a helper the task does not need, padding\n" for n in range(160))
CONFIG = "age_threshold_tokens = 4000\nkeep_recent_steps = 1\nretries = 1\n"
VERDICT = json.dumps({"complete": True, "missing": [], "claims": []})


def script(api: FakeAPI) -> None:
    """The model's side of the session, one reply per request, in order."""
    # planning: explore, write the plan, sum up
    api.reply(
        thinking("Where does add live?"), note("Reading app.py first."), tool_use("toolu_p1", "read_file", {"path": "app.py"})
    )
    api.reply(thinking("One function to add."), tool_use("toolu_p2", "write_plan", {"name": "plan", "content": PLAN}))
    api.reply(thinking("Done planning."), text("The plan has one item: add sub to app.py."))
    # executing item 1: start it, read (a large file too), edit, tick, sum up; then the self-check
    api.reply(thinking("Start item 1."), tool_use("toolu_e1", "update_task", {"id": 1, "status": "in_progress"}))
    api.reply(thinking("Check the helpers."), tool_use("toolu_e2", "read_file", {"path": "src/helpers.py"}))
    api.reply(thinking("Now app.py."), tool_use("toolu_e3", "read_file", {"path": "app.py"}))
    edit = {
        "path": "app.py",
        "old_string": "    return a + b\n",
        "new_string": "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    }
    api.reply(thinking("Add sub."), note("Adding sub next to add."), tool_use("toolu_e4", "edit_file", edit))
    api.reply(thinking("Tick it."), tool_use("toolu_e5", "update_task", {"id": 1, "status": "done"}))
    api.reply(thinking("Report."), text("Item 1 is done: app.py now has sub(a, b)."))
    api.reply(text(VERDICT))
    # after `cast resume`: one more turn, and its self-check
    api.reply(thinking("Recall what changed."), text("Only app.py changed: it gained sub(a, b)."))
    api.reply(text(VERDICT))


def conversations(bodies: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The main-loop requests (those that offer tools) of the planning conversation and of the
    executing one (whose first message is the brief with the user's words after it)."""
    main = [b for b in bodies if b.get("tools")]
    executing = [b for b in main if "Do item 1" in json.dumps(b["messages"][0])]
    return [b for b in main if b not in executing], executing


def test_plan_switch_execute_age_resume_gets_no_rejected_request(repo, api):
    api.serve_models()
    (repo / "src").mkdir()
    (repo / "src" / "helpers.py").write_text(BIG)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "helpers")
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text(CONFIG)
    script(api)

    term = spawn(repo, api)
    term.expect("plan ›")
    term.child.send("Plan adding a sub function to app.py\r")
    term.expect(r"Plan written: \.cast/plans/\S+/plan\.md \(1 item\)")
    term.expect(r"\[n\]ot now")
    term.child.send("n\r")  # not now: the plan stays, nothing runs
    term.expect("/execute runs it")
    term.expect("plan ›")
    term.child.send("\x1b[Z")  # Shift+Tab
    term.expect("execute mode · plan attached")
    term.child.send("Do item 1\r")
    term.expect(r"\[y\]es")  # the edit is shown and asked about
    term.child.send("y\r")
    term.expect("edit approved: app.py")
    term.expect("Item 1 is done")
    term.expect("■ done")
    term.expect("execute ›")
    assert leave(term) == 0, term.text

    plan = next((repo / ".cast" / "plans").glob("*/plan.md"))
    assert "- [x] Add a sub function to app.py" in plan.read_text()
    assert "def sub(a, b):\n    return a - b\n" in (repo / "app.py").read_text()
    before_resume = len(api.requests)

    resume_and_ask(repo, api)

    # nothing refused: every request passed the fake's checks, the prefix check among them
    assert api.rejections() == [], [(r.status, r.error) for r in api.rejections()]
    assert [r.status for r in api.requests] == [200] * 12 and not api.responses
    bodies = [_strip(r.body) for r in api.requests]
    signed = [
        b
        for body in bodies
        for m in body["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "thinking"
    ]
    assert signed and all(b["signature"].startswith("fk1.") for b in signed)  # the check had signed blocks to check

    planning, executing = conversations(bodies)
    assert len(planning) == 3 and len(executing) == 7  # six steps before the exit, one after the resume
    assert_append_only(planning)
    assert_append_only(executing)  # the resumed request included: it extends the last one before the exit

    # aging: past the small threshold the API cleared old tool results (server-side context
    # editing), while the history cast sends stayed whole
    aged = [
        record
        for record in api.requests
        if any(e["type"] == "clear_tool_uses_20250919" and e["cleared_tool_uses"] > 0 for e in record.applied)
    ]
    assert aged, "no request was large enough to age"
    assert all(e["cleared_input_tokens"] >= 2000 for record in aged for e in record.applied)  # the large read went
    assert any(record is api.requests[-2] for record in aged)  # the resumed turn's request is aged as well
    edits = executing[-1]["context_management"]["edits"]
    # keep: the configured 1 at least, raised per request so results are cleared in batches (models/clearing.py)
    assert edits[0]["trigger"] == {"type": "input_tokens", "value": 4000} and edits[0]["keep"]["value"] >= 1
    assert "def helper_159(value)" in json.dumps(executing[-1]["messages"])  # sent whole; the API cleared it

    # the resumed request is the journalled conversation: its prefix (system, tools, context
    # management) and every message sent before the exit, then the new turn
    resumed, last = executing[-1], executing[-2]
    assert resumed == next(_strip(r.body) for r in api.requests[before_resume:] if r.body.get("tools"))
    assert resumed["messages"][: len(last["messages"])] == last["messages"]
    assert "What changed?" in json.dumps(resumed["messages"][len(last["messages"]) :])
    echoed = [b for m in resumed["messages"] if m["role"] == "assistant" for b in m["content"] if b["type"] == "thinking"]
    assert len(echoed) == 7  # each step's reasoning and the progress note, from the journal, signed and checked
    session = next(p.parent for p in sessions_dir(repo).glob("*/meta.json") if json.loads(p.read_text())["mode"] == "execute")
    prefix = next(r["prefix"] for r in read_records(session / TRANSCRIPT) if r["role"] == "meta" and "prefix" in r)
    assert resumed["system"][0]["text"] == prefix["system"]
    assert [t["name"] for t in resumed["tools"]] == [t["name"] for t in prefix["tools"]]
    # the journalled context management, with keep chosen for these messages (models/clearing.py)
    assert resumed.get("context_management") == hold(prefix["context_management"], resumed["messages"])
