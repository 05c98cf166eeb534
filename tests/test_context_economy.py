"""The token economy: context stays under budget over a long session, old observations shrink in
epochs (the request prefix is byte-identical between them, so the prompt cache keeps hitting),
and compaction restarts from a summary plus state read from disk."""

from __future__ import annotations

import json
import random
from pathlib import Path

from cast.agent import events as ev
from cast.agent.context import SUMMARY_SYSTEM, ContextEconomy, message_chars
from cast.agent.elide import ELIDED, elision
from cast.agent.loop import Agent, Hooks
from cast.agent.transcript import Transcript, text_block, tool_result_block
from cast.config import Config
from cast.models.scripted import ScriptedModel
from cast.sessions import Session, load
from cast.tools.base import Observation, Params, Tool, ToolContext
from cast.workspace import Workspace

# Proportioned like the defaults (80k / 150k / 6 steps): the kept steps fill well under half the
# aging threshold, so each epoch frees room for several steps.
AGE, COMPACT, KEEP = 30_000, 45_000, 3
THOUGHT = "Next I look at the following dump, because the earlier ones did not show the pattern. " * 4


def blob(n: int) -> str:
    """A 5-20 KB observation, different for every n."""
    rng = random.Random(n)
    size = rng.randint(5_000, 20_000)
    words = [f"w{rng.randint(0, 99999)}" for _ in range(size // 6 + 1)]
    return f"dump {n}: {size} chars\n" + " ".join(words)[:size]


class DumpParams(Params):
    n: int


DUMP = Tool(
    "dump", "returns a large observation", DumpParams, lambda args, ctx: Observation(blob(args.n), summary="big"), read_only=True
)


def request_tokens(request: dict) -> int:
    """What ScriptedModel charges for a request: chars/4 of system + tools + messages."""
    return (len(request["system"]) + len(json.dumps(request["tools"])) + len(json.dumps(request["messages"]))) // 4


def economy(model, **kw) -> ContextEconomy:
    args = dict(age_threshold_tokens=AGE, compact_threshold_tokens=COMPACT, keep_recent_steps=KEEP) | kw
    return ContextEconomy(model, **args)


def run_long_session(tmp_path: Path, steps: int = 200):
    turns = [{"text": f"step {i}. {THOUGHT}", "tool_uses": [{"name": "dump", "input": {"n": i}}]} for i in range(steps)]
    turns.append({"text": "finished"})
    record = tmp_path / "requests.jsonl"
    model = ScriptedModel(turns, record=record)
    summarizer = ScriptedModel([{"text": f"## Done\n- dumped {k}"} for k in range(100)])
    ctx_economy = economy(summarizer, reinject=lambda: "PLAN STATE FROM DISK")
    agent = Agent(
        model=model,
        tools=[DUMP],
        system="test system",
        ctx=ToolContext(workspace=Workspace(tmp_path)),
        max_steps=steps + 10,
        hooks=Hooks(prepare=ctx_economy),
    )
    step, rewritten, aged, events = 0, set(), [], []
    for event in agent.run("dump everything"):
        events.append(event)
        ctx_economy.observe(event)
        if isinstance(event, ev.StepStarted):
            step = event.step
        if isinstance(event, ev.Notice) and ("aging epoch" in event.text or "compacted" in event.text):
            rewritten.add(step)
            if "aging epoch" in event.text:
                aged.append(step)
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    return requests, rewritten, aged, ctx_economy, summarizer, events


class TestLongSession:
    def test_two_hundred_steps_stay_under_budget_with_a_stable_prefix_between_epochs(self, tmp_path):
        requests, rewritten, aged, econ, summarizer, events = run_long_session(tmp_path)
        assert [e for e in events if isinstance(e, ev.Stopped)][-1].status == "done"
        assert len(requests) == 201
        sizes = [request_tokens(r) for r in requests]
        assert max(sizes) <= COMPACT, f"largest request {max(sizes)} tokens > budget {COMPACT}"
        # without the economy the last request alone would be over 10x the budget
        assert sum(len(blob(i)) for i in range(200)) // 4 > 10 * COMPACT

        assert econ.epochs >= 3 and econ.compactions >= 1
        assert len(summarizer.requests) == econ.compactions
        # epochs are batches: most requests extend the previous one byte for byte
        assert len(rewritten) <= len(requests) // 3, f"{len(rewritten)} rewrites in {len(requests)} requests"
        assert min(b - a for a, b in zip(aged, aged[1:])) >= 2, "an aging epoch never follows the previous one directly"
        for index in range(1, len(requests)):
            if index + 1 in rewritten:  # step index+1 sent request index
                continue
            before, after = requests[index - 1]["messages"], requests[index]["messages"]
            assert len(after) > len(before)
            assert json.dumps(after[: len(before)]) == json.dumps(before), f"prefix changed at request {index}"
            assert (requests[index]["system"], requests[index]["tools"]) == (requests[0]["system"], requests[0]["tools"])

    def test_recent_steps_are_kept_whole_and_old_ones_say_how_to_get_them_back(self, tmp_path):
        requests, _, _, _, _, _ = run_long_session(tmp_path, steps=40)
        last = requests[-1]["messages"]
        results = [b for m in last if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
        whole = [b for b in results if not b["content"].startswith(ELIDED)]
        assert len(whole) >= KEEP, "the last keep_recent_steps observations are intact"
        assert all(b["content"].startswith("dump ") for b in whole)
        elided = [
            b["content"]
            for m in requests[-1]["messages"]
            for b in m["content"]
            if b.get("type") == "tool_result" and b["content"].startswith(ELIDED)
        ]
        for text in elided:
            assert text.startswith('[elided: dump {"n": ') and "KB) — call dump again if needed]" in text


def transcript_with_results(count: int, size: int = 8_000) -> Transcript:
    t = Transcript()
    t.add_user([text_block("the task")])
    for i in range(count):
        t.add_assistant([{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": f"src/f{i}.py"}}])
        body = f"src/f{i}.py: lines 1-200 of 900\n" + "x" * size
        t.add_user([tool_result_block(f"t{i}", body, False)])
    return t


class TestEpochs:
    def test_one_batch_then_nothing_until_the_threshold_is_passed_again(self):
        t = transcript_with_results(12)  # ~24k tokens of results
        econ = economy(
            None, age_threshold_tokens=10_000, compact_threshold_tokens=10**9, keep_recent_steps=3, min_batch_tokens=4_000
        )
        notices = list(econ(t))
        assert len(notices) == 1 and "12 old tool results" not in notices[0].text and "9 old tool results" in notices[0].text
        elided = [b["content"] for m in t.messages if m["role"] == "user" for b in m["content"] if b["type"] == "tool_result"]
        assert all(c.startswith(ELIDED) for c in elided[:9]) and not any(c.startswith(ELIDED) for c in elided[9:])
        assert elided[0] == "[elided: read_file src/f0.py lines 1-200 of 900 (7.8 KB) — call read_file again if needed]"
        frozen = json.dumps(t.messages)
        for i in range(12, 14):  # two more steps: under the batch minimum, nothing is touched
            t.add_assistant([{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": "x"}}])
            t.add_user([tool_result_block(f"t{i}", "y" * 8_000, False)])
            assert list(econ(t)) == []
            assert json.dumps(t.messages).startswith(frozen[:-1])
        for i in range(14, 16):
            t.add_assistant([{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": "x"}}])
            t.add_user([tool_result_block(f"t{i}", "y" * 8_000, False)])
        assert len(list(econ(t))) == 1 and econ.epochs == 2

    def test_under_the_threshold_nothing_changes(self):
        t = transcript_with_results(4, size=2_000)
        econ = economy(None, keep_recent_steps=1)
        before = json.dumps(t.messages)
        assert list(econ(t)) == [] and json.dumps(t.messages) == before

    def test_the_real_token_count_of_the_last_request_drives_the_estimate(self):
        t = transcript_with_results(6, size=2_000)  # ~3k tokens by chars/4
        econ = economy(None, age_threshold_tokens=10_000, compact_threshold_tokens=10**9, keep_recent_steps=2, min_batch_tokens=0)
        assert list(econ(t)) == []
        econ.tell_context(15_000)  # the provider counted far more (big system prompt, dense text)
        assert econ.estimate(t) >= 15_000
        assert len(list(econ(t))) == 1

    def test_elisions_say_what_it_was_and_how_to_get_it_again(self):
        assert (
            elision("bash", {"command": "pytest -q"}, "exit_code=1\n" + "F" * 2000)
            == "[elided: bash `pytest -q` exit_code=1 (2.0 KB) — run it again if needed]"
        )
        assert (
            elision("grep", {"pattern": "def main", "path": "src"}, "z" * 1024)
            == "[elided: grep 'def main' path=src (1.0 KB) — call grep again if needed]"
        )
        assert elision("list_files", {}, "a\n" * 512).startswith("[elided: list_files . (1.0 KB)")

    def test_aging_is_recorded_in_the_session(self, tmp_path):
        session = Session.create(tmp_path, "s", mode="plan", task="t", model="m")
        t = transcript_with_results(8)
        replayed = Transcript(on_append=session.append)
        for message in t.messages:  # journal the history as the loop would have
            replayed._append(json.loads(json.dumps(message)))
        econ = economy(None, age_threshold_tokens=5_000, compact_threshold_tokens=10**9, keep_recent_steps=2)
        assert len(list(econ(replayed))) == 1
        _, messages = load(tmp_path, "s")
        assert messages == replayed.messages
        assert sum(ELIDED in json.dumps(m) for m in messages) == 6


class TestCompaction:
    def test_forced_compaction_uses_the_same_model_and_reinjects_state(self, tmp_path):
        turns = [
            {"text": "reading", "tool_uses": [{"name": "dump", "input": {"n": 1}}]},
            {"text": "## Done\n- read dump 1\n## Open\n- write the report"},  # the summary call
            {"text": "continuing from the summary"},
        ]
        model = ScriptedModel(turns)
        used = []
        state = {"text": "plan.md:\n- [x] 1. read\n- [ ] 2. write the report"}
        econ = ContextEconomy.from_config(
            Config(), model, reinject=lambda: state["text"], on_usage=lambda u, kind: used.append(kind)
        )
        session = Session.create(tmp_path, "c", mode="execute", task="t", model="m")
        agent = Agent(
            model=model,
            tools=[DUMP],
            system="sys",
            ctx=ToolContext(workspace=Workspace(tmp_path)),
            transcript=Transcript(on_append=session.append),
            hooks=Hooks(prepare=econ),
        )
        notices = []
        for event in agent.run("summarise the dumps"):
            if isinstance(event, ev.ToolResult):
                econ.force()
            if isinstance(event, ev.Notice):
                notices.append(event.text)
        summary_request, after = model.requests[1], model.requests[2]
        assert summary_request.tools == () and summary_request.system == SUMMARY_SYSTEM
        assert "dump 1:" in summary_request.messages[0]["content"][0]["text"]
        assert len(after.messages) == 1 and after.messages[0]["role"] == "user"
        text = after.messages[0]["content"][0]["text"]
        assert "# Original request\nsummarise the dumps" in text
        assert "- read dump 1" in text and "- [ ] 2. write the report" in text
        assert used == ["compaction"] and any("compacted" in n for n in notices)
        _, messages = load(tmp_path, "c")
        assert messages == agent.transcript.messages and messages[0]["content"][0]["text"] == text

    def test_a_failed_summary_call_keeps_the_full_context(self):
        t = transcript_with_results(3)
        econ = economy(ScriptedModel([]), compact_threshold_tokens=1_000, age_threshold_tokens=500, keep_recent_steps=5)
        before = json.dumps(t.messages)
        notices = list(econ(t))
        assert len(notices) == 1 and notices[0].level == "warning" and "compaction failed" in notices[0].text
        assert json.dumps(t.messages) == before

    def test_aging_is_preferred_when_it_is_enough(self):
        t = transcript_with_results(10)
        summarizer = ScriptedModel([])
        econ = economy(summarizer, age_threshold_tokens=5_000, compact_threshold_tokens=15_000, keep_recent_steps=2)
        assert econ.estimate(t) > 15_000
        notices = list(econ(t))
        assert [("aging epoch" in n.text) for n in notices] == [True]
        assert summarizer.requests == [] and message_chars(t.messages) // 4 < 15_000


def test_compaction_keeps_the_words_just_typed_and_the_results_awaited(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    from cast.tools.files import READ_FILE

    turns = [
        {"tool_uses": [{"name": "read_file", "input": {"path": "a.txt"}}]},
        {"text": "read it"},
        {"text": "## Done\nread a.txt"},  # the summary
        {"text": "on it"},
    ]
    model = ScriptedModel(turns)
    economy_ = economy(model)
    agent = Agent(
        model=model, tools=[READ_FILE], system="s", ctx=ToolContext(workspace=Workspace(tmp_path)), hooks=Hooks(prepare=economy_)
    )
    list(agent.run("first task"))
    economy_.force()
    list(agent.run("NEW INSTRUCTION: rename it"))
    sent = json.dumps(model.requests[-1].messages)
    assert len(model.requests[-1].messages) == 1
    assert "NEW INSTRUCTION: rename it" in sent and "read a.txt" in sent and "first task" in sent
