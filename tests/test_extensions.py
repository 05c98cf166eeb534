"""The extension seam: tools declare their access, a mode is a filter over the run's registry, an
extension joins a run at start-up (tools, prompt section, gate), hears of switches and is closed
with the run; a running call knows its id, emits events and books usage on the run's bill."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_agent

from cast import extensions, runs
from cast.agent import events as ev
from cast.agent.gate import CallGate
from cast.extensions import BaseExtension, Setup
from cast.models.base import ToolUse, Usage
from cast.models.scripted import ScriptedModel
from cast.modes import EXECUTE, PLAN
from cast.options import Options
from cast.tools.base import Access, Observation, Params, Tool, ToolContext
from cast.tools.edit import EDIT_FILE
from cast.tools.files import READ_FILE
from cast.tools.registry import Registry, RegistryError, builtin
from cast.tools.shell import EXECUTE_BASH, PLAN_BASH


class EchoParams(Params):
    text: str


def _echo(args: EchoParams, ctx: ToolContext) -> Observation:
    ctx.emit(ev.Notice(f"echo saw call {ctx.call_id}"))
    if ctx.usage is not None:
        ctx.usage.add(Usage(input_tokens=7, output_tokens=3), "echo")
    return Observation(f"echo: {args.text}", summary="echoed")


def echo(access: Access = Access.EXTERNAL, admitted: frozenset[str] = frozenset(), name: str = "echo") -> Tool[Any]:
    return Tool(name, "Echo the text back.", EchoParams, _echo, access=access, admitted=admitted)


def names(tools) -> list[str]:
    return [tool.name for tool in tools]


# -- access and modes ----------------------------------------------------------------------


def test_the_built_in_modes_offer_what_they_always_did_in_the_same_order():
    assert names(PLAN.tools) == ["read_file", "list_files", "grep", "bash", "write_plan"]
    assert names(EXECUTE.tools) == ["read_file", "list_files", "grep", "bash", "edit_file", "write_file", "update_task"]
    assert PLAN.tools[3] is PLAN_BASH and EXECUTE.tools[3] is EXECUTE_BASH  # one name, the variant each mode admits


def test_an_external_tool_is_offered_in_execute_mode_and_in_plan_mode_only_when_granted():
    registry = builtin()
    registry.add(echo(name="ungranted"))
    registry.add(echo(admitted=frozenset({"plan"}), name="granted"))
    plan, execute = PLAN.over(registry), EXECUTE.over(registry)
    assert "ungranted" not in names(plan.tools) and "granted" in names(plan.tools)
    assert {"ungranted", "granted"} <= set(names(execute.tools))
    assert names(execute.tools)[-2:] == ["ungranted", "granted"]  # after the built-in ones: the prefix order is stable


def test_a_grant_never_brings_a_writing_tool_into_plan_mode():
    registry = builtin()
    registry.add(echo(Access.WRITE, frozenset({"plan"}), name="writer"))
    registry.add(echo(Access.EXEC, frozenset({"plan"}), name="runner"))
    assert not {"writer", "runner"} & set(names(PLAN.over(registry).tools))


def test_a_tool_without_a_declared_access_is_external():
    assert Tool("t", "", EchoParams, _echo).access is Access.EXTERNAL
    assert "t" not in names(PLAN.over(Registry([Tool("t", "", EchoParams, _echo)])).tools)


def test_the_registry_refuses_a_taken_name_and_a_late_tool():
    registry = builtin()
    with pytest.raises(RegistryError, match="already registered"):
        registry.add(echo(name="bash"))  # an external bash would outrank execute mode's own
    registry.freeze()
    with pytest.raises(RegistryError, match="after the run's tools were declared"):
        registry.add(echo())
    with pytest.raises(RegistryError, match="two read tools"):
        Registry([READ_FILE, READ_FILE])
    assert Registry([EDIT_FILE, READ_FILE]).names() == ["edit_file", "read_file"]


# -- an extension in a run -----------------------------------------------------------------


class Echoes(BaseExtension):
    name = "echoes"
    built: list[Echoes] = []

    def __init__(self, setup: Setup) -> None:
        self.setup, self.switches, self.closed = setup, [], 0
        Echoes.built.append(self)

    def tools(self):
        return [echo()]

    def prefix(self) -> str:
        return "# Echoes\nThe echo tool says things back."

    def switched(self, mode) -> None:
        self.switches.append(mode.name)

    def close(self) -> None:
        self.closed += 1


def start_echoes(setup: Setup):
    return Echoes(setup)


def start_nothing(setup: Setup):
    return None


def start_broken(setup: Setup):
    raise RuntimeError("no such server")


@pytest.fixture
def factories(monkeypatch):
    Echoes.built.clear()

    def use(*functions: str) -> None:
        monkeypatch.setattr(extensions, "FACTORIES", tuple(f"{__name__}:{name}" for name in functions))

    return use


def test_an_extension_joins_a_run_before_its_first_request_and_leaves_with_it(repo, factories):
    factories("start_nothing", "start_echoes")
    model = ScriptedModel(
        [
            {"text": "Planned nothing."},
            {"tool_uses": [{"name": "echo", "input": {"text": "hi"}}]},
            {"text": "Echoed."},
        ]
    )
    run = runs.plan_run("say hi", Options(cwd=repo), model=model)
    (extension,) = Echoes.built
    assert extension.setup.mode == "plan" and extension.setup.workspace.root == repo.resolve()
    run.turn("look", lambda event: None)
    first = model.requests[0]
    assert first.system.endswith("# Echoes\nThe echo tool says things back.")
    assert "echo" not in [tool["name"] for tool in first.tools] and "echo" not in names(run.agent.tools)

    run.switch("execute")
    assert extension.switches == ["execute"] and "echo" in names(run.agent.tools)
    seen: list[ev.Event] = []
    run.turn("echo hi", seen.append)
    result = next(e for e in seen if isinstance(e, ev.ToolResult))
    assert result.ok and result.text == "echo: hi"
    assert ev.Notice(f"echo saw call {result.id}") in seen  # emitted while it ran, naming its own call
    assert run.usage is not None and [r.kind for r in run.usage.records].count("echo") == 1
    assert "echo" in [tool["name"] for tool in model.requests[1].tools]  # a model without tool changes: re-declared

    run.close()
    run.close()
    assert extension.closed == 1


def test_the_tools_declared_when_the_model_has_no_tool_changes_follow_the_mode(repo, factories):
    factories("start_echoes")
    model = ScriptedModel([{"text": "ok"}, {"text": "ok"}])
    run = runs.plan_run("t", Options(cwd=repo), model=model)
    run.switch("execute")
    run.turn("go", lambda event: None)
    assert names(run.mode.tools)[-1] == "echo" and run.mode.registry is run.registry


def test_an_extension_that_fails_to_start_is_left_out_and_said(repo, factories):
    factories("start_broken", "start_echoes")
    run = runs.plan_run("t", Options(cwd=repo), model=ScriptedModel([{"text": "ok"}]))
    seen: list[ev.Event] = []
    run.turn("go", seen.append)
    notices = [e.text for e in seen if isinstance(e, ev.Notice)]
    assert any("start_broken did not start: RuntimeError: no such server" in text for text in notices)
    assert len(Echoes.built) == 1 and len(run.extensions) == 1


def test_an_extension_whose_tool_takes_a_built_in_name_is_left_out(repo, factories, monkeypatch):
    monkeypatch.setattr(Echoes, "tools", lambda self: [echo(name="read_file")])
    factories("start_echoes")
    run = runs.plan_run("t", Options(cwd=repo), model=ScriptedModel([{"text": "ok"}]))
    assert run.extensions == [] and Echoes.built[0].closed == 1
    assert READ_FILE in run.agent.tools and any("already registered" in note for note in run.agent.notes)


def test_a_run_with_nothing_to_execute_starts_no_extension(repo, factories):
    factories("start_echoes")
    plan = repo / ".cast" / "plans" / "2026-01-01-done" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("---\ntask: done\nsession: 2026-01-01-done\n---\n# Plan\n\n- [x] Done\n")
    run = runs.execute_run("2026-01-01-done", Options(cwd=repo))
    assert not run.has_work() and Echoes.built == []


# -- the gate around calls and turns -------------------------------------------------------


class Recording(CallGate):
    def __init__(self, refuse: str = "", add: str = "", stop_turn: str = "", guidance: str = "") -> None:
        self.refuse, self.add, self.stop_turn, self.guidance = refuse, add, stop_turn, guidance
        self.seen: list[tuple[str, str]] = []

    def before(self, call: ToolUse) -> str | None:
        self.seen.append(("before", call.name))
        return self.refuse or None

    def after(self, call: ToolUse, observation: Observation) -> str:
        self.seen.append(("after", observation.text))
        return self.add

    def turn(self, text: str | None) -> str | None:
        self.seen.append(("turn", str(text)))
        return self.stop_turn or None

    def done(self, final: str) -> str | None:
        self.seen.append(("done", final))
        guidance, self.guidance = self.guidance, ""
        return guidance or None


def test_a_gate_refuses_a_call_before_it_runs(repo):
    ran: list[str] = []
    tool = Tool("mark", "", EchoParams, lambda args, ctx: ran.append(args.text) or Observation("marked"), access=Access.WRITE)
    agent, _ = make_agent(repo, [{"tool_uses": [{"name": "mark", "input": {"text": "x"}}]}, {"text": "ok"}], [tool])
    agent.hooks.gate = Recording(refuse="blocked by policy: no marks")
    events = list(agent.run("go"))
    result = next(e for e in events if isinstance(e, ev.ToolResult))
    assert ran == [] and not result.ok and result.text == "blocked by policy: no marks"
    assert agent.hooks.gate.seen[1] == ("before", "mark")


def test_a_gate_adds_to_an_observation(repo):
    agent, model = make_agent(repo, [{"tool_uses": [{"name": "echo", "input": {"text": "x"}}]}, {"text": "ok"}], [echo()])
    gate = Recording(add="[hook: checked]")
    agent.hooks.gate = gate
    events = list(agent.run("go"))
    result = next(e for e in events if isinstance(e, ev.ToolResult))
    assert result.text == "echo: x\n[hook: checked]" and ("after", "echo: x") in gate.seen
    assert gate.seen[0] == ("turn", "go")


def test_a_gate_stops_a_turn_before_anything_is_sent(repo):
    agent, model = make_agent(repo, [{"text": "never"}], [echo()])
    agent.hooks.gate = Recording(stop_turn="a user_prompt hook stopped this prompt: not today")
    events = list(agent.run("go"))
    assert events == [ev.Stopped("stopped", "a user_prompt hook stopped this prompt: not today", 0)]
    assert model.requests == [] and agent.transcript.messages == []


def test_a_gate_sends_the_model_back_once_when_it_ends_its_turn(repo):
    agent, model = make_agent(repo, [{"text": "All done."}, {"text": "Now really done."}], [echo()])
    gate = Recording(guidance="run the linter first")
    agent.hooks.gate = gate
    events = list(agent.run("go"))
    assert isinstance(events[-1], ev.Stopped) and events[-1].status == "done" and len(model.requests) == 2
    assert [f for kind, f in gate.seen if kind == "done"] == ["All done.", "Now really done."]
    assert any(isinstance(e, ev.Notice) and "run the linter first" in e.text for e in events)
    assert "run the linter first" in str(model.requests[1].messages[-1])


def test_a_call_knows_its_id_only_while_it_runs(repo):
    ids: list[str] = []
    tool = Tool("who", "", EchoParams, lambda args, ctx: ids.append(ctx.call_id) or Observation("me"), read_only=True)
    turns = [{"tool_uses": [{"name": "who", "input": {"text": str(n)}} for n in range(3)]}, {"text": "ok"}]
    agent, _ = make_agent(repo, turns, [tool])
    list(agent.run("go"))
    assert sorted(ids) == ["toolu_001_0", "toolu_001_1", "toolu_001_2"] and agent.ctx.call_id == ""
