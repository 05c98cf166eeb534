"""Explores on the real provider against the strict fake Messages API: the parent on Sonnet 5.5, the
children on the cheapest current model the Models API offers, two of them at once."""

from __future__ import annotations

import json

from fakeapi import fake_api, text, tool_use  # noqa: F401  (fake_api is a fixture)

from cast.agent import events as ev
from cast.agent.loop import Agent
from cast.config import Config
from cast.models.anthropic import AnthropicModel
from cast.tools.base import ToolContext
from cast.tools.explore import Explorer
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.tools.results import Explored
from cast.tools.shell import PLAN_BASH
from cast.workspace import Workspace

FAST = Config(retries=3, retry_after_cap=0.05, model_timeout=5.0, plan_commands="proven")
PARENT = "claude-sonnet-5-5"
TASKS = ("where is add defined?", "what does the README say?")


def conversation(body: dict) -> str:
    """The parent's conversation, or a child's, named by its task (its first user message)."""
    if body["model"] == PARENT:
        return "parent"
    first = body["messages"][0]["content"]
    return first if isinstance(first, str) else first[0]["text"]


def test_two_explores_run_on_the_cheapest_model_and_the_parent_sees_only_their_answers(fake_api, repo):
    (repo / "notes.md").write_text("CHILD_ONLY_TEXT " * 50 + "\n")
    fake_api.serve_models()
    fake_api.route = conversation
    fake_api.reply_to(
        "parent",
        tool_use("toolu_e1", "explore", {"task": TASKS[0]}),
        tool_use("toolu_e2", "explore", {"task": TASKS[1]}),
    )
    fake_api.reply_to("parent", text("Both answered."))
    fake_api.reply_to(TASKS[0], tool_use("toolu_c1", "read_file", {"path": "app.py"}))
    fake_api.reply_to(TASKS[0], text("add is defined at app.py:1."))
    fake_api.reply_to(TASKS[1], tool_use("toolu_c2", "read_file", {"path": "notes.md"}))
    fake_api.reply_to(TASKS[1], text("The notes repeat one marker."))
    billed: list = []
    explorer = Explorer(
        FAST,
        Workspace(repo),
        "You are cast.",
        lambda: [READ_FILE, LIST_FILES, GREP, PLAN_BASH],
        run_model=PARENT,
        book=lambda *call: billed.append(call),
    )
    model = AnthropicModel(PARENT, FAST, backoff_base=0.001)
    tools = [READ_FILE, LIST_FILES, GREP, PLAN_BASH, explorer.tool()]
    agent = Agent(model=model, tools=tools, system="You are cast.", ctx=ToolContext(Workspace(repo)))
    events = list(agent.run("Plan something."))
    assert events[-1].status == "done", events[-1].reason
    assert all(r.status == 200 for r in fake_api.requests), [r.error for r in fake_api.requests if r.error]
    children = [b for b in fake_api.bodies() if b["model"] != PARENT]
    assert {b["model"] for b in children} == {"claude-haiku-5-5"}  # the cheapest current model offered
    assert len(children) == 4
    assert all(sorted(t["name"] for t in b["tools"]) == ["bash", "grep", "list_files", "read_file"] for b in children)
    results = {e.id: e for e in events if isinstance(e, ev.ToolResult)}
    assert "add is defined at app.py:1." in results["toolu_e1"].text
    assert "files it read (1): notes.md" in results["toolu_e2"].text
    assert all(isinstance(results[i].result, Explored) for i in ("toolu_e1", "toolu_e2"))
    last_parent = [b for b in fake_api.bodies() if b["model"] == PARENT][-1]
    assert "The notes repeat one marker." in str(last_parent["messages"])
    assert "CHILD_ONLY_TEXT" not in str(last_parent["messages"])  # the child's read stayed with the child
    assert {call[0] for call in billed} == {"explore-1", "explore-2"} and len(billed) == 4
    assert all(call[3] == "claude-haiku-5-5" and call[2] > 0 for call in billed)  # priced at the child's rates


def test_cast_plan_on_the_fake_api_bills_every_child_in_its_json_result(fake_api, repo):
    from conftest import invoke_cast

    fake_api.serve_models()
    fake_api.route = conversation
    fake_api.reply_to("parent", tool_use("toolu_e1", "explore", {"task": TASKS[0]}))
    fake_api.reply_to("parent", tool_use("toolu_w1", "write_plan", {"name": "plan", "content": "# Plan\n\n- [ ] edit app.py\n"}))
    fake_api.reply_to("parent", text("Planned."))
    fake_api.reply_to(TASKS[0], tool_use("toolu_c1", "read_file", {"path": "app.py"}))
    fake_api.reply_to(TASKS[0], text("add is defined at app.py:1."))
    done = invoke_cast(repo, "--model", PARENT, "--json", "plan", "change add")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    result = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")][-1]
    children = result["usage"]["subagents"]
    assert list(children) == ["explore-1"] and children["explore-1"]["model"] == "claude-haiku-5-5"
    assert children["explore-1"]["calls"] == 2 and children["explore-1"]["cost"] > 0
    own = sum(c["cost"] for c in result["usage"]["calls"] if not c.get("agent"))
    assert result["cost"] == round(own + children["explore-1"]["cost"], 6)
    assert result["report"]["explored"][0]["model"] == "claude-haiku-5-5"


def test_one_child_can_be_cancelled_on_its_own(repo):
    """`Explorer.cancel(call_id)` stops that child and no other."""
    import threading

    from cast.models.scripted import ScriptedModel

    slow = [{"text": "first look done", "tool_uses": [{"name": "list_files", "input": {}}]}, {"text": "...", "delay": 30}]
    made: list[ScriptedModel] = []

    def make(spec: str) -> ScriptedModel:
        made.append(ScriptedModel(list(slow), name=spec))
        return made[-1]

    explorer = Explorer(FAST, Workspace(repo), "s", lambda: [READ_FILE, LIST_FILES], run_model="script:p", make_model=make)
    explorer.settings = type(explorer.settings)("script:child")
    ctx = ToolContext(Workspace(repo))
    got: dict[str, object] = {}

    def call(call_id: str) -> None:
        with ctx.calling(call_id):
            got[call_id] = explorer.execute(explorer.tool().params(task=call_id), ctx)

    threads = [threading.Thread(target=call, args=(name,)) for name in ("toolu_a", "toolu_b")]
    for thread in threads:
        thread.start()
    while len(made) < 2 or any(len(m.requests) < 2 for m in made):
        threading.Event().wait(0.01)
    explorer.cancel("toolu_a")
    threads[0].join(20)
    assert not threads[0].is_alive() and threads[1].is_alive()
    explorer.cancel()
    threads[1].join(20)
    assert all(got[k].result.status == "interrupted" for k in got) and "first look done" in got["toolu_a"].text
