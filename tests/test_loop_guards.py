"""Each guard of the loop, shown to matter: every test here fails if its guard is removed."""

from __future__ import annotations

import json
import threading
import time

from conftest import make_agent, run_all

from cast.agent import events as ev
from cast.agent.loop import drive
from cast.tools.base import Observation, Params, Tool, ToolError
from cast.tools.files import READ_FILE


class N(Params):
    n: int | None = None


class Empty(Params):
    pass


def counting_tool(name: str, read_only: bool, log: list, fail: bool = False, delay: float = 0.0) -> Tool:
    def execute(args, ctx):
        log.append((name, args.n, threading.current_thread().name))
        time.sleep(delay)
        if fail:
            raise ToolError(f"{name} cannot do that")
        return Observation(f"{name} ran with {args}")

    return Tool(name, "test tool", N, execute, read_only=read_only)


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def stopped(events) -> ev.Stopped:
    return [e for e in events if isinstance(e, ev.Stopped)][-1]


def assert_valid(messages) -> None:
    """What the API demands: alternating roles, and each tool_use answered exactly once, first
    thing in the next user message."""
    for before, after in zip(messages, messages[1:]):
        assert before["role"] != after["role"]
    for index, message in enumerate(messages):
        uses = [b["id"] for b in message["content"] if message["role"] == "assistant" and b.get("type") == "tool_use"]
        if uses:
            reply = messages[index + 1]["content"]
            answered = [b["tool_use_id"] for b in reply if b.get("type") == "tool_result"]
            assert sorted(answered) == sorted(uses)
            assert all(b.get("type") == "tool_result" for b in reply[: len(uses)])


def results(events) -> list[ev.ToolResult]:
    return [e for e in events if isinstance(e, ev.ToolResult)]


class TestStepCeiling:
    def test_run_stops_at_the_ceiling_with_a_clear_reason(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("probe", n=i)]} for i in range(10)]
        agent, model = make_agent(tmp_path, turns, [counting_tool("probe", False, log)], max_steps=3)
        stop = stopped(run_all(agent))
        assert stop.status == "stopped"
        assert "step limit" in stop.reason and "3" in stop.reason
        assert len(model.requests) == 3 and len(log) == 3

    def test_a_finished_run_is_done(self, tmp_path):
        agent, _ = make_agent(tmp_path, [{"text": "all done"}], [])
        stop = stopped(run_all(agent))
        assert (stop.status, stop.exit_code) == ("done", 0)


class TestConcurrency:
    def test_read_only_calls_of_one_turn_run_concurrently_at_most_four(self, tmp_path):
        active, peak, lock = [0], [0], threading.Lock()

        def execute(args, ctx):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            time.sleep(0.15)
            with lock:
                active[0] -= 1
            return Observation(f"read {args.n}")

        tool = Tool("look", "read-only", N, execute, read_only=True)
        turns = [{"tool_uses": [use("look", n=i) for i in range(6)]}, {"text": "done"}]
        agent, model = make_agent(tmp_path, turns, [tool])
        events = run_all(agent)
        assert peak[0] == 4
        # observations come back in call order whatever order they finished in
        assert [r.text for r in results(events)] == [f"read {i}" for i in range(6)]
        sent = model.requests[1].messages[-1]["content"]
        assert [b["content"] for b in sent] == [f"read {i}" for i in range(6)]

    def test_other_calls_run_one_at_a_time_in_order(self, tmp_path):
        active, peak, order, lock = [0], [0], [], threading.Lock()

        def execute(args, ctx):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            time.sleep(0.02 * (5 - args.n))
            order.append(args.n)
            with lock:
                active[0] -= 1
            return Observation("ok")

        tool = Tool("write", "writes", N, execute)
        turns = [{"tool_uses": [use("write", n=i) for i in range(5)]}, {"text": "done"}]
        agent, _ = make_agent(tmp_path, turns, [tool])
        run_all(agent)
        assert peak[0] == 1 and order == [0, 1, 2, 3, 4]


class TestDeduplication:
    def test_identical_read_only_call_is_answered_from_the_record(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("look", n=1)]}, {"tool_uses": [use("look", n=1)]}, {"text": "done"}]
        agent, model = make_agent(tmp_path, turns, [counting_tool("look", True, log)])
        events = run_all(agent)
        assert len(log) == 1
        second = results(events)[1]
        assert second.cached and "step 1" in second.text and "look ran with" in second.text

    def test_a_write_in_between_invalidates_the_record(self, tmp_path):
        log: list = []
        tools = [counting_tool("look", True, log), counting_tool("touch", False, log)]
        turns = [
            {"tool_uses": [use("look", n=1)]},
            {"tool_uses": [use("touch")]},
            {"tool_uses": [use("look", n=1)]},
            {"text": "done"},
        ]
        agent, _ = make_agent(tmp_path, turns, tools)
        events = run_all(agent)
        assert [entry[0] for entry in log] == ["look", "touch", "look"]
        assert not any(r.cached for r in results(events))

    def test_a_file_changed_on_disk_invalidates_a_read(self, tmp_path):
        target = tmp_path / "notes.txt"
        target.write_text("one\n")
        turns = [
            {"tool_uses": [use("read_file", path="notes.txt")]},
            {"tool_uses": [use("read_file", path="notes.txt")]},
            {"text": "done"},
        ]
        agent, model = make_agent(tmp_path, turns, [READ_FILE])
        events = agent.run("go")
        collected = []
        for event in events:
            collected.append(event)
            if isinstance(event, ev.ToolResult):
                target.write_text("two, longer\n")
        second = results(collected)[1]
        assert not second.cached and "two, longer" in second.text
        notice = model.requests[1].messages[-1]
        assert notice["role"] == "system" and "changed since" in str(notice["content"])  # appended, never an edit

    def test_failed_calls_are_not_recorded(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("look")]}, {"tool_uses": [use("look")]}, {"text": "done"}]
        agent, _ = make_agent(tmp_path, turns, [counting_tool("look", True, log, fail=True)])
        run_all(agent)
        assert len(log) == 2


class TestFailureStreak:
    def test_second_failure_nudges_third_stops(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("flaky", n=i)]} for i in range(5)]
        agent, model = make_agent(tmp_path, turns, [counting_tool("flaky", False, log, fail=True)])
        events = run_all(agent)
        texts = [r.text for r in results(events)]
        assert "failed in 2 turns in a row" not in texts[0]
        assert "failed in 2 turns in a row" in texts[1]
        stop = stopped(events)
        assert stop.status == "stopped" and "flaky failed 3 times in a row" in stop.reason
        assert "cannot do that" in stop.reason
        assert len(log) == 3 and len(model.requests) == 3
        assert_valid(agent.transcript.messages)

    def test_failures_in_one_turn_count_once_and_a_success_in_it_clears_them(self, tmp_path):
        (tmp_path / "a.txt").write_text("a\n")
        probes = [use("read_file", path=name) for name in ("setup.cfg", "pyproject.toml", "tox.ini")]
        turns = [
            {"tool_uses": probes + [use("read_file", path="a.txt")]},  # three misses and a hit
            {"tool_uses": probes},  # three misses: one failing turn
            {"tool_uses": [use("read_file", path="nope1"), use("read_file", path="nope2")]},  # second: nudge
            {"text": "giving up on config files"},
        ]
        agent, _ = make_agent(tmp_path, turns, [READ_FILE])
        events = run_all(agent)
        assert stopped(events).status == "done"
        nudged = [r for r in results(events) if "turns in a row" in r.text]
        assert len(nudged) == 1 and nudged[0].text.startswith("error: nope1 does not exist")

    def test_the_stop_comes_only_after_the_nudge_was_seen(self, tmp_path):
        log: list = []
        turns = [
            {"tool_uses": [use("flaky", n=1), use("flaky", n=2), use("flaky", n=3)]},
            {"tool_uses": [use("flaky", n=4)]},
            {"text": "ok, stopping"},
        ]
        agent, model = make_agent(tmp_path, turns, [counting_tool("flaky", False, log, fail=True)])
        events = run_all(agent)
        assert stopped(events).status == "done" and len(log) == 4
        assert "turns in a row" in json.dumps(model.requests[2].messages[-1])

    def test_a_success_resets_the_streak(self, tmp_path):
        outcomes = iter([False, False, True, False, False, True])

        def execute(args, ctx):
            if not next(outcomes):
                raise ToolError("nope")
            return Observation("fine")

        tool = Tool("sometimes", "", N, execute)
        turns = [{"tool_uses": [use("sometimes", n=i)]} for i in range(6)] + [{"text": "done"}]
        agent, _ = make_agent(tmp_path, turns, [tool])
        assert stopped(run_all(agent)).status == "done"


class TestBadCalls:
    def test_unknown_tool_invalid_arguments_and_exceptions_become_observations(self, tmp_path):
        def explode(args, ctx):
            raise RuntimeError("boom")

        tools = [READ_FILE, Tool("explode", "", Empty, explode)]
        turns = [
            {"tool_uses": [use("rm_rf", path="/")]},
            {"tool_uses": [{"name": "read_file", "input": {"path": 7}}]},
            {"tool_uses": [{"name": "read_file", "input": {"paht": "x"}}]},
            {"tool_uses": [use("read_file", path="real.txt")]},  # a success ends the failure streak
            {"tool_uses": [{"name": "read_file", "input": "not an object"}]},
            {"tool_uses": [use("explode")]},
            {"text": "done"},
        ]
        (tmp_path / "real.txt").write_text("x\n")
        agent, model = make_agent(tmp_path, turns, tools)
        events = run_all(agent)
        texts = [r.text for r in results(events)]
        assert "no tool named 'rm_rf'" in texts[0] and "read_file" in texts[0]
        assert "path must be string" in texts[1]
        assert "missing required field 'path'" in texts[2]
        assert "input must be object" in texts[4]
        assert "RuntimeError: boom" in texts[5]
        assert stopped(events).status == "done"
        sent = model.requests[1].messages[-1]["content"][0]
        assert sent["is_error"] is True


class TestInterrupts:
    def test_cancel_during_a_tool_stops_cleanly_and_keeps_the_transcript_valid(self, tmp_path):
        started = threading.Event()

        def slow(args, ctx):
            started.set()
            ctx.cancel.wait(5)
            return Observation("stopped early", ok=False)

        tool = Tool("slow", "", Empty, slow)
        turns = [{"tool_uses": [use("slow"), use("slow")]}, {"text": "never"}]
        agent, model = make_agent(tmp_path, turns, [tool])
        threading.Thread(target=lambda: (started.wait(5), agent.cancel()), daemon=True).start()
        events = run_all(agent)
        assert stopped(events).status == "interrupted"
        assert_valid(agent.transcript.messages)
        last = agent.transcript.messages[-1]
        assert last["role"] == "user" and len([b for b in last["content"] if b["type"] == "tool_result"]) == 2
        assert len(model.requests) == 1

    def test_ctrl_c_while_the_front_end_renders_becomes_an_interrupted_stop(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("look", n=i)]} for i in range(5)]
        agent, model = make_agent(tmp_path, turns, [counting_tool("look", True, log)])
        seen = []

        def handle(event):
            seen.append(event)
            if isinstance(event, ev.ToolResult) and len(seen) < 20:
                raise KeyboardInterrupt

        stop = drive(agent, agent.run("go"), handle)
        assert stop.status == "interrupted" and len(model.requests) == 1
        assert_valid(agent.transcript.messages)

    def test_results_of_a_finished_batch_are_kept_when_a_later_call_is_interrupted(self, tmp_path):
        log: list = []

        def stop_everything(args, ctx):
            ctx.cancel.set()
            return Observation("cancelled", ok=False)

        tools = [counting_tool("look", True, log), Tool("halt", "", Empty, stop_everything)]
        turns = [{"tool_uses": [use("look", n=1), use("look", n=2), use("halt"), use("look", n=3)]}, {"text": "never"}]
        agent, _ = make_agent(tmp_path, turns, tools)
        events = run_all(agent)
        assert stopped(events).status == "interrupted"
        assert_valid(agent.transcript.messages)
        texts = [b["content"] for b in agent.transcript.messages[-1]["content"]]
        assert texts[0].startswith("look ran with") and texts[1].startswith("look ran with")
        assert texts[3] == "[interrupted by user: not run]" and len(log) == 2


class TestGuidance:
    def test_guidance_typed_during_the_task_reaches_the_next_request(self, tmp_path):
        log: list = []
        turns = [{"tool_uses": [use("look", n=1)]}, {"text": "done"}]
        agent, model = make_agent(tmp_path, turns, [counting_tool("look", True, log)])
        for event in agent.run("task"):
            if isinstance(event, ev.ToolCall):
                agent.guide("use the v2 API instead")
        second = model.requests[1].messages
        assert "use the v2 API instead" in str(second[-1]["content"])
        assert "Guidance from the user" in str(second[-1]["content"])
        assert second[-1]["role"] == "system" and second[-2]["content"][0]["type"] == "tool_result"  # after the results
        assert model.requests[0].messages[-1]["content"][0]["text"] == "task"


class TestInterruptingTheModel:
    def test_cancel_reaches_a_model_waiting_between_retries(self, tmp_path):
        from cast.agent.loop import Agent
        from cast.models import base as m
        from cast.tools.base import ToolContext
        from cast.workspace import Workspace

        class Overloaded:
            name = "overloaded"
            spec = None

            def stream(self, request):
                yield m.Retrying("overloaded (529)", 2, 30.0)
                if request.cancel is None or not request.cancel.wait(30):
                    yield m.Stop("end_turn", ({"type": "text", "text": "late"},))

        agent = Agent(model=Overloaded(), tools=[], system="s", ctx=ToolContext(workspace=Workspace(tmp_path)))
        threading.Timer(0.2, agent.cancel).start()
        started = time.monotonic()
        events = run_all(agent)
        assert time.monotonic() - started < 15  # the cancel, not the model's 30 s wait
        assert stopped(events).status == "interrupted"
        assert any(isinstance(e, ev.Notice) and "retrying in 30.0s" in e.text for e in events)

    def test_a_reply_that_ends_without_a_stop_is_a_failure_not_an_interrupt(self, tmp_path):
        from cast.agent.loop import Agent
        from cast.models import base as m
        from cast.tools.base import ToolContext
        from cast.workspace import Workspace

        class Truncated:
            name = "truncated"
            spec = None

            def stream(self, request):
                yield m.TextDelta("half a")

        agent = Agent(model=Truncated(), tools=[], system="s", ctx=ToolContext(workspace=Workspace(tmp_path)))
        stop = stopped(run_all(agent))
        assert stop.status == "failed" and "without a stop" in stop.reason
        assert_valid(agent.transcript.messages)
