"""Append-only conversations against a model that checks prefixes the way today's API does: every
thinking block is signed against what came before it, and a changed prefix is a 400 unless the
request asks for drop_block. Each test drives real runs (runs.py) and fails if cast rewrites
anything it already sent without recording it, or if the API would reject a request."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from prefixcheck import SigningModel, assert_append_only, thinking_turn

from cast import runs
from cast.agent import events as ev
from cast.agent.elide import ELIDED
from cast.models.catalog import builtin
from cast.sessions import load

SONNET = builtin("claude-sonnet-5-5")  # server-side context editing, no mid-conversation tool changes
OPUS5 = builtin("claude-opus-5")  # mid-conversation tool changes
assert SONNET is not None and OPUS5 is not None
CLIENT_ONLY = replace(SONNET, context_management=False)  # a model with neither: client-side aging


def project(root: Path, files: int = 40, size: int = 9_000) -> None:
    (root / "src").mkdir(parents=True)
    for n in range(files):
        body = "".join(f"def f{n}_{i}(x):\n    return x + {i}  # {'pad ' * 8}\n" for i in range(size // 60))
        (root / "src" / f"m{n:02d}.py").write_text(body)
    (root / ".cast").mkdir(exist_ok=True)
    (root / ".cast" / "config.toml").write_text(
        "age_threshold_tokens = 20000\ncompact_threshold_tokens = 400000\nkeep_recent_steps = 3\n"
    )


def plan_turns(files: int = 38) -> list[dict]:
    turns = [thinking_turn(f"reading m{n:02d}", "read_file", path=f"src/m{n:02d}.py") for n in range(files)]
    turns.append(
        thinking_turn(
            "writing the plan", "write_plan", name="plan", content="# Plan: tidy\n\n- [ ] Tidy src/m00.py; verify with `true`\n"
        )
    )
    turns.append({"thinking": "done", "text": "Planned: one step."})
    return turns


def drive(run: runs.Run, text: str | None) -> tuple[list[ev.Event], ev.Stopped]:
    events = list(run.agent.run(text))
    stops = [e for e in events if isinstance(e, ev.Stopped)]
    return events, stops[-1]


def epochs(events: list[ev.Event]) -> int:
    return sum("aging epoch" in e.text for e in events if isinstance(e, ev.Notice))


class TestLongPlanningSession:
    def test_forty_steps_cross_the_aging_threshold_twice_with_no_rejected_request(self, tmp_path):
        project(tmp_path)
        model = SigningModel(plan_turns(), spec=CLIENT_ONLY)
        run = runs.plan_run("tidy", runs.Options(cwd=tmp_path, max_steps=60), model=model)
        events, stop = drive(run, "Plan a tidy-up of src/.")
        run.outcome()
        assert stop.status == "done", stop
        assert model.rejected == [] and len(model.sent) == 40
        assert epochs(events) >= 2, "the session must age twice to show anything"
        aged = [i for i, r in enumerate(model.sent) if ELIDED in json.dumps(r["messages"])]
        first_rewrite = aged[0]
        # From the first rewrite on every request asks the API to drop the blocks it invalidated,
        # and that is what makes the session survive: the blocks before it were really dropped.
        assert all(r["drop_block"] is True for r in model.sent[first_rewrite:])
        assert not any(r.get("drop_block") for r in model.sent[:first_rewrite])
        assert model.dropped > 0
        rewrites = {
            i
            for i in range(1, len(model.sent))
            if ELIDED in json.dumps(model.sent[i]["messages"])
            and json.dumps(model.sent[i]["messages"]).count(ELIDED) > json.dumps(model.sent[i - 1]["messages"]).count(ELIDED)
        }
        assert len(rewrites) == epochs(events)
        assert_append_only(model.sent, allow=rewrites)
        # the system prompt never changed, and the mode's instructions are a notice after the task
        assert len({r["system"] for r in model.sent}) == 1 and "Mode: plan" not in model.sent[0]["system"]
        first = model.sent[0]["messages"]
        assert [m["role"] for m in first] == ["user", "system"] and "# Mode: plan" in first[1]["content"][0]["text"]

    def test_with_server_side_context_editing_the_history_is_never_rewritten(self, tmp_path):
        project(tmp_path)
        model = SigningModel(plan_turns(), spec=SONNET)
        run = runs.plan_run("tidy", runs.Options(cwd=tmp_path, max_steps=60), model=model)
        events, stop = drive(run, "Plan a tidy-up of src/.")
        run.outcome()
        assert stop.status == "done" and model.rejected == [] and model.dropped == 0
        assert epochs(events) == 0 and not any(r.get("drop_block") for r in model.sent)
        edits = model.sent[0]["context_management"]["edits"]
        assert edits[0]["type"] == "clear_tool_uses_20250919" and edits[0]["trigger"]["value"] == 20_000
        assert all(r["context_management"] == model.sent[0]["context_management"] for r in model.sent)
        assert_append_only(model.sent)


class TestModeSwitch:
    def switching_run(self, tmp_path: Path, spec) -> tuple[runs.Run, SigningModel, list[ev.Stopped]]:
        project(tmp_path, files=3, size=600)
        turns = [
            thinking_turn("looking", "read_file", path="src/m00.py"),
            thinking_turn("plan written", "write_plan", name="plan", content="# Plan: x\n\n- [ ] Edit m00; verify with `true`\n"),
            {"thinking": "ok", "text": "Planned."},
            # execute mode
            thinking_turn("editing", "write_file", path="src/new.py", content="x = 1\n"),
            {"thinking": "done", "text": "Wrote it."},
            # plan mode again: a write tool is refused by the executor whatever was offered
            thinking_turn("trying to write", "write_file", path="src/other.py", content="y = 2\n"),
            thinking_turn("reading instead", "read_file", path="src/new.py"),
            {"thinking": "fine", "text": "Read it."},
        ]
        model = SigningModel(turns, spec=spec)
        run = runs.plan_run("x", runs.Options(cwd=tmp_path, yes=True), model=model)
        stops = [drive(run, "Plan x.")[1]]
        run.switch("execute")
        stops.append(drive(run, "Now do it.")[1])
        run.switch("plan")
        stops.append(drive(run, "Back to planning: look at the new file.")[1])
        run.outcome()
        return run, model, stops

    def test_with_tool_changes_the_tools_are_declared_once_and_switched_by_notices(self, tmp_path):
        _, model, stops = self.switching_run(tmp_path, OPUS5)
        assert [s.status for s in stops] == ["done"] * 3 and model.rejected == []
        assert (tmp_path / "src" / "new.py").is_file() and not (tmp_path / "src" / "other.py").exists()
        assert_append_only(model.sent)  # nothing already sent changed, not even the tools
        assert not any(r.get("drop_block") for r in model.sent) and model.dropped == 0
        tools = {t["name"]: t for t in model.sent[0]["tools"]}
        assert tools["write_file"]["defer_loading"] is True and "defer_loading" not in tools["read_file"]
        notices = [m for m in model.sent[-1]["messages"] if m["role"] == "system"]
        kinds = [[b["type"] for b in m["content"]] for m in notices]
        assert kinds[0] == ["text"] and "tool_addition" in kinds[1] and "tool_removal" in kinds[2]
        added = {b["tool"]["name"] for b in notices[1]["content"] if b["type"] == "tool_addition"}
        assert added == {"edit_file", "write_file", "update_task"}
        refused = [m for m in model.sent[-2]["messages"] if m["role"] == "user"][-1]["content"][0]
        assert refused["is_error"] and "no tool named 'write_file' in this mode" in refused["content"]

    def test_without_tool_changes_the_switch_redeclares_with_drop_block_and_keeps_every_message(self, tmp_path):
        _, model, stops = self.switching_run(tmp_path, SONNET)
        assert [s.status for s in stops] == ["done"] * 3 and model.rejected == []
        assert not (tmp_path / "src" / "other.py").exists()
        names = [[t["name"] for t in r["tools"]] for r in model.sent]
        switches = {i for i in range(1, len(names)) if names[i] != names[i - 1]}
        assert len(switches) == 2 and "write_file" in names[3] and "write_file" not in names[-1]
        assert_append_only(model.sent, allow=switches)
        first = min(switches)
        assert all(r["drop_block"] for r in model.sent[first:]) and model.dropped > 0
        assert len({r["system"] for r in model.sent}) == 1
        for index in switches:  # every message sent before the switch is sent again, unchanged
            before, after = model.sent[index - 1]["messages"], model.sent[index]["messages"]
            assert after[: len(before) - 1] == before[:-1]


class TestResume:
    def test_resume_of_a_session_that_aged_sends_the_same_prefix(self, tmp_path):
        project(tmp_path)
        turns = plan_turns(30)[:30] + [{"thinking": "stopping", "text": "Pausing here."}]
        model = SigningModel(turns, spec=CLIENT_ONLY)
        run = runs.plan_run("tidy", runs.Options(cwd=tmp_path, max_steps=60), model=model)
        events, stop = drive(run, "Read everything.")
        run.outcome()
        assert stop.status == "done" and epochs(events) >= 1 and model.rejected == []
        # No new epoch on the resumed request, so what it sends can be compared byte for byte.
        (tmp_path / ".cast" / "config.toml").write_text("age_threshold_tokens = 900000\ncompact_threshold_tokens = 950000\n")
        later = SigningModel([{"thinking": "resumed", "text": "Carrying on."}], spec=CLIENT_ONLY)
        resumed = runs.resume_run(run.session_id, runs.Options(cwd=tmp_path), model=later)
        _, stop = drive(resumed, "Go on.")
        resumed.outcome()
        assert stop.status == "done" and later.rejected == []
        last, again = model.sent[-1], later.sent[0]
        assert (again["system"], again["tools"], again["drop_block"]) == (last["system"], last["tools"], True)
        assert again["messages"][: len(last["messages"])] == last["messages"]
        assert later.dropped > 0  # the blocks the aging invalidated are still dropped, not refused
        _, saved = load(tmp_path, run.session_id)
        assert saved[: len(again["messages"])] == again["messages"]


class TestStopReasons:
    def agent_run(self, tmp_path: Path, turns: list[dict]) -> tuple[runs.Run, SigningModel]:
        project(tmp_path, files=2, size=300)
        model = SigningModel(turns, spec=CLIENT_ONLY)
        return runs.plan_run("x", runs.Options(cwd=tmp_path), model=model), model

    def test_a_refusal_ends_the_run_with_exit_1_and_its_category_and_is_not_retried(self, tmp_path):
        run, model = self.agent_run(
            tmp_path,
            [
                {"thinking": "no", "text": "", "stop": "refusal", "details": {"type": "refusal", "category": "cyber"}},
                {"text": "never asked"},
            ],
        )
        _, stop = drive(run, "Write malware.")
        assert (stop.status, stop.exit_code, stop.details.get("exit_code")) == ("failed", 1, 1)
        assert "refused" in stop.reason and "cyber" in stop.reason and stop.details["refusal"] == "cyber"
        assert len(model.sent) == 1

    def test_pause_turn_sends_the_conversation_back_as_it_is(self, tmp_path):
        run, model = self.agent_run(
            tmp_path,
            [
                {"thinking": "searching", "text": "Searching the web", "stop": "pause_turn"},
                {"thinking": "found", "text": "Found it."},
            ],
        )
        _, stop = drive(run, "Look it up.")
        assert stop.status == "done" and model.rejected == []
        first, second = model.sent
        assert second["messages"][:-1] == first["messages"]  # nothing added but the paused turn
        assert second["messages"][-1]["role"] == "assistant"
        assert second["messages"][-1]["content"][-1]["text"] == "Searching the web"
        texts = [b.get("text") for b in run.agent.transcript.messages[-1]["content"]]
        assert texts[-1] == "Found it." and "Searching the web" in texts  # one turn, continued

    @pytest.mark.parametrize("then", ["done", "again"])
    def test_context_window_exceeded_compacts_and_goes_on(self, tmp_path, then):
        cut = {"thinking": "long", "text": "I was writing a lot", "stop": "model_context_window_exceeded"}
        after = {"thinking": "short", "text": "Done after compaction."} if then == "done" else dict(cut)
        run, model = self.agent_run(
            tmp_path,
            [
                thinking_turn("reading", "read_file", path="src/m00.py"),
                cut,
                {"text": "## Done\n- read m00\n## Open\n- finish"},  # the summary call
                after,
            ],
        )
        events, stop = drive(run, "Do a long thing.")
        summaries = [r for r in model.sent if not r["tools"]]
        assert len(summaries) == 1 and any("compacted" in e.text for e in events if isinstance(e, ev.Notice))
        resumed_from = model.sent[-1]["messages"]
        assert "# Summary of the work so far" in resumed_from[0]["content"][0]["text"]
        assert [m["role"] for m in resumed_from][:2] == ["user", "system"]  # the mode notice travels along
        if then == "done":
            assert stop.status == "done" and model.rejected == []
        else:  # a second overflow right after compacting cannot be helped by compacting again
            assert stop.status == "failed" and "context window" in stop.reason


def test_a_conversation_keeps_its_effort_across_a_mode_switch_and_says_so(tmp_path):
    """A changed effort does not preserve the cached prefix (the prompt-caching page): the
    conversation keeps the effort it started with, the user is told, and the other mode's effort
    applies from the next conversation."""
    project(tmp_path, files=1, size=300)
    (tmp_path / ".cast" / "config.toml").write_text('plan_effort = "low"\nexecute_effort = "xhigh"\n')
    model = SigningModel(
        [thinking_turn("look", "read_file", path="src/m00.py"), {"text": "planned"}, {"text": "done"}],
        spec=SONNET,
    )
    run = runs.plan_run("x", runs.Options(cwd=tmp_path), model=model)
    drive(run, "Plan.")
    run.switch("execute")
    events, _ = drive(run, "Do it.")
    assert [r.get("effort") for r in model.sent] == ["low", "low", "low"]
    said = [e.text for e in events if isinstance(e, ev.Notice)]
    assert any('execute mode\'s effort "xhigh" applies from the next conversation; this one keeps "low"' in t for t in said)
    assert model.rejected == []
    assert run.agent.transcript.fresh is not None and run.agent.transcript.fresh[0].effort == "xhigh"  # after compaction
