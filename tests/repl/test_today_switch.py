"""Shift+Tab in the middle of one conversation, in the real REPL against the strict fake Messages
API: no plan to attach, so the conversation goes on in execute mode. How it switches depends on
the model, and neither way may be refused:

- a model with mid-conversation tool changes (Opus 4.8): the tools stay as first declared and a
  system message offers and withdraws them by reference; every earlier thinking block stays valid;
- one without (Sonnet 5.5): the execute tools are declared and the conversation goes on with
  `drop_block`, so the API drops the thinking signed before the switch instead of refusing it.

Then exit, `cast resume`, one more turn: the resumed request extends the last one before the exit."""

from __future__ import annotations

import json

import pytest

pexpect = pytest.importorskip("pexpect")

from apikit import leave, resume_and_ask, spawn  # noqa: E402
from fakeapi import api, text, thinking, tool_use  # noqa: E402, F401  (api is a fixture)
from prefixcheck import _strip, assert_append_only  # noqa: E402

EDIT = {"path": "app.py", "old_string": "def add(a, b):\n", "new_string": 'def add(a, b):\n    """The sum of a and b."""\n'}
TOOL_CHANGES = "mid-conversation-tool-changes-2026-07-01"
BINDING = "thinking-binding-controls-2026-08-01"


@pytest.mark.parametrize("model", ["claude-opus-4-8", "claude-sonnet-5-5"])
def test_shift_tab_switches_one_conversation_without_a_rejected_request(repo, api, model):
    api.serve_models()
    api.reply(thinking("Look at add."), tool_use("toolu_1", "read_file", {"path": "app.py"}))
    api.reply(thinking("Simple."), text("add returns a + b."))
    api.reply(thinking("Document it."), tool_use("toolu_2", "edit_file", EDIT))
    api.reply(thinking("Done."), text("add has a docstring now."))
    api.reply(thinking("Recall."), text("Only app.py changed."))

    term = spawn(repo, api, "--model", model)
    term.expect("plan ›")
    term.child.send("How does add work?\r")
    term.expect("add returns a")
    term.expect("■ done")
    term.expect("plan ›")
    term.child.send("\x1b[Z")  # Shift+Tab: no plan to attach, the same conversation goes on
    term.expect("execute ›")
    term.child.send("Give add a docstring\r")
    term.expect(r"\[y\]es")
    term.child.send("y\r")
    term.expect("add has a docstring now")
    term.expect("■ done")
    assert leave(term) == 0, term.text
    assert '"""The sum of a and b."""' in (repo / "app.py").read_text()

    resume_and_ask(repo, api, "--model", model)

    assert api.rejections() == [], [(r.status, r.error) for r in api.rejections()]
    assert [r.status for r in api.requests] == [200] * 5 and not api.responses
    bodies = [_strip(r.body) for r in api.requests]
    switched = api.requests[2]  # the first request in execute mode
    betas = switched.headers.get("anthropic-beta", "")
    names = [t["name"] for t in bodies[2]["tools"]]
    if model == "claude-opus-4-8":
        notice = bodies[2]["messages"][-1]  # the user's words, then the switch notice
        kinds = {b["type"] for b in notice["content"]}
        assert notice["role"] == "system" and {"tool_addition", "tool_removal"} <= kinds, notice
        assert TOOL_CHANGES in betas and "block_binding" not in json.dumps(bodies[2]["thinking"])
        assert bodies[2]["tools"] == bodies[0]["tools"]  # declared once
        assert_append_only(bodies)
    else:
        assert bodies[2]["thinking"]["block_binding"] == {"prefix_mismatch_behavior": "drop_block"} and BINDING in betas
        assert "edit_file" in names and "write_plan" not in names and bodies[2]["tools"] != bodies[0]["tools"]
        assert all(b["thinking"].get("block_binding") for b in bodies[2:])  # drop_block from the switch on, resume included
        assert_append_only(bodies, allow={2})
    # the resumed request is the conversation as it was, plus the new turn
    last, resumed = bodies[3], bodies[4]
    assert resumed["system"] == last["system"] and resumed["tools"] == last["tools"]
    assert resumed["messages"][: len(last["messages"])] == last["messages"]
    assert "What changed?" in json.dumps(resumed["messages"][len(last["messages"]) :])
