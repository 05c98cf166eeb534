"""The explore tool in one process: a scripted parent agent delegates to scripted children, in a real
git repository, with plan mode's real read tools, checker and sandbox."""

from __future__ import annotations

import threading

from cast.agent import events as ev
from cast.agent.loop import Agent
from cast.models.scripted import ScriptedModel
from cast.tools.base import ToolContext
from cast.tools.explore import Explorer
from cast.tools.explore_settings import ExploreSettings
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.tools.results import Explored
from cast.tools.shell import PLAN_BASH
from cast.workspace import Workspace

SECRET_LINE = "UNIQUE_MARKER_" + "x" * 40  # in a file only the child reads

CHILD = [
    {"tool_uses": [{"name": "grep", "input": {"pattern": "def add"}}]},
    {"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}, {"name": "read_file", "input": {"path": "big.py"}}]},
    {"tool_uses": [{"name": "bash", "input": {"command": "git log --oneline -1"}}]},
    {"text": "add is defined at app.py:1; big.py holds the constants."},
]


class Config:
    """The settings an Explorer reads (what cast.config.Config has, as plain attributes)."""

    explore_model = "script:child"
    explore_max_steps = 20
    explore_max_tokens = 0
    max_tokens = 0
    plan_commands = "proven"
    age_threshold_tokens = 40_000
    compact_threshold_tokens = 150_000
    keep_recent_steps = 2
    prices: dict = {}

    def effort_for(self, mode: str) -> str:
        return ""


def explorer(root, child_turns, config=None, **kwargs) -> tuple[Explorer, list[ScriptedModel]]:
    made: list[ScriptedModel] = []

    def make(spec: str) -> ScriptedModel:
        made.append(ScriptedModel(list(child_turns), name=spec))
        return made[-1]

    found = Explorer(
        config or Config(),
        Workspace(root),
        "child system",
        lambda: [READ_FILE, LIST_FILES, GREP, PLAN_BASH],
        make_model=make,
        **kwargs,
    )
    return found, made


def parent(root, turns, tool) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(turns)
    agent = Agent(
        model=model, tools=[READ_FILE, LIST_FILES, GREP, PLAN_BASH, tool], system="parent", ctx=ToolContext(Workspace(root))
    )
    return agent, model


def test_the_parent_transcript_holds_the_answer_and_not_the_childs_reads(repo):
    (repo / "big.py").write_text("".join(f"CONSTANT_{n} = '{SECRET_LINE}'\n" for n in range(200)))
    found, made = explorer(repo, CHILD)
    agent, model = parent(
        repo,
        [{"tool_uses": [{"name": "explore", "input": {"task": "where is add defined?"}}]}, {"text": "Done."}],
        found.tool(),
    )
    events = list(agent.run("plan it"))
    assert events[-1].status == "done"
    result = next(e for e in events if isinstance(e, ev.ToolResult) and e.name == "explore")
    assert result.ok and isinstance(result.result, Explored)
    assert "add is defined at app.py:1" in result.text
    assert "files it read (2): app.py, big.py" in result.text
    assert "`git log --oneline -1` exit_code=0" in result.text
    assert "not a fact cast verified" in result.text
    sent = str(model.requests[-1].messages)
    assert "add is defined at app.py:1" in sent
    assert SECRET_LINE not in sent  # the child's reads stayed in the child's conversation
    assert SECRET_LINE in str(made[0].requests[-1].messages)
    assert result.result.files == ("app.py", "big.py") and result.result.status == "done"


def test_a_child_is_offered_only_read_tools_and_never_another_explore(repo):
    found, made = explorer(repo, [{"text": "nothing to see"}])
    tools = [READ_FILE, LIST_FILES, GREP, PLAN_BASH]
    from cast.tools.edit import EDIT_FILE, WRITE_FILE
    from cast.tools.plan import WRITE_PLAN
    from cast.tools.shell import EXECUTE_BASH

    found.tools = lambda: [*tools, WRITE_PLAN, EDIT_FILE, WRITE_FILE, EXECUTE_BASH, found.tool()]
    obs = found.execute(found.tool().params(task="look"), ToolContext(Workspace(repo)))
    assert obs.ok
    offered = sorted(t["name"] for t in made[0].requests[0].tools)
    assert offered == ["bash", "grep", "list_files", "read_file"]
    assert "Mode: explore" in str(made[0].requests[0].messages)


def test_a_child_stopped_by_its_step_ceiling_returns_what_it_found_and_why(repo):
    turns = [
        {"text": "First: app.py defines add.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
        {"tool_uses": [{"name": "list_files", "input": {}}]},
        {"tool_uses": [{"name": "read_file", "input": {"path": "README.md"}}]},
    ]

    class Two(Config):
        explore_max_steps = 2

    found, _ = explorer(repo, turns, Two())
    obs = found.execute(found.tool().params(task="look"), ToolContext(Workspace(repo)))
    assert obs.ok and isinstance(obs.result, Explored)
    assert obs.result.status == "stopped" and "step limit of 2" in obs.result.reason
    assert "stopped by a guard after 2 steps" in obs.text
    assert "First: app.py defines add." in obs.text and "files it read (1): app.py" in obs.text


def test_a_child_stopped_by_its_token_ceiling_says_so(repo):
    turns = [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}] * 5

    class Tight(Config):
        explore_max_tokens = 10

    found, made = explorer(repo, turns, Tight())
    obs = found.execute(found.tool().params(task="look"), ToolContext(Workspace(repo)))
    assert isinstance(obs.result, Explored) and obs.result.status == "stopped"
    assert "token ceiling of 10 reached" in obs.text
    assert len(made[0].requests) == 1  # refused before the second request


def test_the_parents_cancel_stops_a_child_and_keeps_what_it_said(repo):
    turns = [
        {"text": "Found the entry point in app.py.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
        {"text": "still thinking about it, slowly", "delay": 30},
    ]
    found, made = explorer(repo, turns)
    ctx = ToolContext(Workspace(repo))
    got: list = []
    worker = threading.Thread(target=lambda: got.append(found.execute(found.tool().params(task="look"), ctx)))
    worker.start()
    while len(made) < 1 or len(made[0].requests) < 2:  # the child waits in its second, slow reply
        threading.Event().wait(0.01)
    ctx.cancel.set()
    worker.join(20)
    assert not worker.is_alive()
    obs = got[0]
    assert isinstance(obs.result, Explored) and obs.result.status == "interrupted"
    assert "Found the entry point in app.py." in obs.text and "files it read (1): app.py" in obs.text


def test_a_scripted_run_without_explore_model_is_told_what_to_set(repo):
    class Unset(Config):
        explore_model = ""

    found, _ = explorer(repo, [], Unset(), run_model="script:parent.jsonl")
    from cast.tools.base import run_tool

    obs = run_tool(found.tool(), {"task": "look"}, ToolContext(Workspace(repo)))
    assert not obs.ok and 'explore_model = "script:PATH"' in obs.text


def test_settings_default_to_twenty_steps_and_a_ceiling():
    settings = ExploreSettings.from_config(object())
    assert settings.max_steps == 20 and settings.max_tokens > 0 and settings.model == ""


def test_each_childs_transcript_is_kept_with_the_session_and_its_usage_is_billed(repo):
    from cast import session_children
    from cast.sessions import Session

    session = Session.create(repo, "2099-01-01-explore", mode="plan", task="t", model="script:parent")
    billed: list = []
    found, made = explorer(repo, CHILD, session=session, book=lambda *call: billed.append(call))
    (repo / "big.py").write_text("X = 1\n")
    ctx = ToolContext(Workspace(repo))
    with ctx.calling("toolu_0042"):  # as the dispatcher runs each call
        obs = found.execute(found.tool().params(task="where is add?"), ctx)
    kept = session_children.children(session.dir)
    assert len(kept) == 1
    meta, messages = kept[0]
    assert meta["parent_call"] == "toolu_0042" and meta["task"] == "where is add?" and meta["status"] == "done"
    assert "X = 1" in str(messages) and "add is defined at app.py:1" in str(messages)
    assert isinstance(obs.result, Explored) and obs.result.transcript == str(session.dir / "explore" / "toolu_0042")
    assert [call[0] for call in billed] == ["explore-1"] * len(made[0].requests)  # one line per model call
    assert sum(c[1].output_tokens + c[1].prompt_tokens for c in billed) == obs.result.tokens


def test_what_a_child_read_does_not_count_as_read_by_the_parent(repo):
    """edit_file refuses a file the model has not read: a child's read must not open that door."""
    found, _ = explorer(repo, CHILD)
    (repo / "big.py").write_text("X = 1\n")
    workspace = Workspace(repo)
    found.execute(found.tool().params(task="look"), ToolContext(workspace))
    assert not workspace.reads.was_read(repo / "app.py")
