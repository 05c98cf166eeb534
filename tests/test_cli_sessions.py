"""--json results, session listing and resume through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import invoke_cast as cast
from conftest import write_script

from cast.sessions import sessions_dir

PLAN_TURNS = [
    {"text": "Reading.", "tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
    {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: x\n- [ ] one\n- [ ] two\n"}}]},
    {"text": "Plan written."},
]


def test_json_emits_ndjson_events_and_a_final_result(repo, tmp_path):
    script = write_script(tmp_path / "plan.jsonl", PLAN_TURNS)
    done = cast(repo, "--json", "--model", f"script:{script}", "plan", "Do x")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    assert {"step_started", "text_delta", "tool_call", "tool_result", "usage_update", "stopped"} <= set(kinds)
    result = lines[-1]
    assert result["type"] == "result" and result["status"] == "done" and result["exit_code"] == 0
    assert result["plan_path"].endswith("plan.md") and Path(result["plan_path"]).is_file()
    assert result["steps"] == 3 and result["usage"]["total"]["input_tokens"] > 0
    assert "cost" in result and result["report"]["items_left"][0]["text"] == "one"


def test_sessions_lists_runs_and_resume_continues_the_conversation(repo, tmp_path):
    script = write_script(tmp_path / "plan.jsonl", PLAN_TURNS)
    assert cast(repo, "--model", f"script:{script}", "plan", "Do x").returncode == 0
    listing = cast(repo, "sessions")
    session_id = listing.stdout.split("\t")[0]
    assert session_id.endswith("-do-x") and "\tplan\tdone\t3 steps\tDo x" in listing.stdout
    record = tmp_path / "requests.jsonl"
    more = write_script(tmp_path / "more.jsonl", [{"text": "Noted: keep it short."}])
    resumed = cast(repo, "--model", f"script:{more}", "resume", session_id, stdin="make it shorter\n", record=record)
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    sent = json.loads(record.read_text().splitlines()[0])["messages"]
    assert sent[0]["content"][0]["text"] == "Do x"
    assert "make it shorter" in json.dumps(sent[-1])
    assert sent[1]["role"] == "system" and sent[1]["content"][0]["text"].startswith("# Mode: plan")  # the mode, as a notice
    assert len(sent) == 8  # task, mode notice, 3 model turns with 2 tool results between, and the new message
    idle = cast(repo, "--model", f"script:{more}", "resume", session_id, stdin="")  # `cast resume ID </dev/null`
    assert idle.returncode == 2 and idle.stdout == "", idle.stdout  # nothing done is not a success
    assert idle.stderr == (
        f"cast: no message to continue {session_id} with: without a terminal, cast resume reads messages from standard "
        f'input, one per line (echo "go on" | cast resume {session_id}); run it in a terminal for the REPL\n'
    )


def test_resume_unknown_session_is_a_clear_error(repo, tmp_path):
    script = write_script(tmp_path / "none.jsonl", [{"text": "unused"}])
    done = cast(repo, "--model", f"script:{script}", "resume", "nope")
    assert done.returncode == 2
    assert done.stderr == "cast: no session 'nope' in this workspace (cast sessions lists them)\n"  # not cast's private path
    blank = cast(repo, "--model", f"script:{script}", "resume", " ")
    assert blank.returncode == 2 and blank.stderr.startswith("cast: the session id is blank: cast resume ID"), blank.stderr


def test_a_plan_session_remembers_its_plan_for_resume(repo, tmp_path):
    from cast.runs import Options, resume_run

    script = write_script(tmp_path / "plan.jsonl", PLAN_TURNS)
    done = cast(repo, "--model", f"script:{script}", "plan", "Do x")
    plan_path = done.stdout.strip().splitlines()[-1]
    session_id = cast(repo, "sessions").stdout.split("\t")[0]
    meta = json.loads((sessions_dir(repo) / session_id / "meta.json").read_text())
    assert meta["plan_path"] == plan_path and meta["status"] == "done"
    run = resume_run(session_id, Options(model=f"script:{script}", cwd=repo))
    assert str(run.plan_path) == plan_path
    assert json.loads((sessions_dir(repo) / session_id / "meta.json").read_text())["status"] == "done"


def test_resuming_a_session_that_is_still_running_is_refused(repo, tmp_path):
    import pytest

    from cast.runs import Options, resume_run
    from cast.sessions import Session, SessionError

    live = subprocess.Popen(["sleep", "30"])
    try:
        session = Session.create(repo, "2026-01-01-live", mode="plan", task="t", model="m")
        session.update(pid=live.pid)
        with pytest.raises(SessionError, match="still running"):
            resume_run("2026-01-01-live", Options(model="script:/dev/null", cwd=repo))
    finally:
        live.kill()
        live.wait()


def test_execute_a_plan_outside_the_workspace(repo, tmp_path):
    outside = tmp_path / "elsewhere" / "plan.md"
    outside.parent.mkdir()
    outside.write_text("# Plan\n- [ ] one\n")
    script = write_script(
        tmp_path / "exec.jsonl",
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "done"},
            {"text": '{"complete": true, "missing": []}'},
        ],
    )
    done = cast(repo, "--model", f"script:{script}", "execute", str(outside))
    assert done.returncode == 0, done.stderr
    assert outside.read_text() == "# Plan\n- [x] one\n"


def test_set_model_sends_the_next_requests_and_the_self_check_to_it_priced_as_it(repo):
    from cast.models.scripted import ScriptedModel
    from cast.runs import Options, execute_run

    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n- [ ] one\n")
    first = ScriptedModel([], name="claude-sonnet-4-5")
    run = execute_run("2026-01-01-x", Options(cwd=repo, yes=True), model=first)
    other = ScriptedModel(
        [
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "done"},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
        name="claude-haiku-4-5",
    )
    run.set_model(other)
    run.execute(lambda event: None)
    outcome = run.close()
    assert outcome.code == 0, outcome
    assert first.requests == [] and len(other.requests) == 3  # two turns of the loop and the self-check's
    assert run.usage.price.model == "claude-haiku-4-5" and run.usage.price.known
    assert {r.kind for r in run.usage.records} >= {"step"} and len(run.usage.records) == 3
    assert run.usage.total_cost() == sum(run.usage.price(r.usage) for r in run.usage.records) > 0


def test_a_plan_that_fails_before_any_reply_leaves_no_session(repo, tmp_path):
    empty = write_script(tmp_path / "empty.jsonl", [])  # the first request fails: the script is empty
    done = cast(repo, "--model", f"script:{empty}", "plan", "Do x")
    assert done.returncode != 0
    assert cast(repo, "sessions").stdout.strip() == "no sessions yet"


def test_piped_listings_keep_one_row_of_four_and_five_columns_whatever_the_task_holds(repo, tmp_path):
    """A task may hold a tab or a newline (it is the user's text): the tab-separated rows scripts
    read stay one line per plan and per session, the task's whitespace folded to spaces."""
    script = write_script(tmp_path / "plan.jsonl", PLAN_TURNS)
    assert cast(repo, "--model", f"script:{script}", "plan", "fix\tthis\nand that").returncode == 0
    plans = cast(repo, "plans").stdout.splitlines()
    assert len(plans) == 1 and plans[0].split("\t")[2] == "fix this and that", plans
    assert len(plans[0].split("\t")) == 4
    sessions = cast(repo, "sessions").stdout.splitlines()
    assert len(sessions) == 1 and sessions[0].split("\t")[4] == "fix this and that", sessions


def test_a_plan_without_checklist_items_is_written_with_a_note(repo, tmp_path):
    """The plan is the model's and is kept (exit 0, its path last), but the user learns now, not at
    `cast execute`, that there is nothing to execute in it."""
    prose = {"name": "plan", "content": "# Plan\n\nJust prose: nothing to tick.\n"}
    script = write_script(tmp_path / "plan.jsonl", [{"tool_uses": [{"name": "write_plan", "input": prose}]}, {"text": "Done."}])
    done = cast(repo, "--model", f"script:{script}", "plan", "x")
    assert done.returncode == 0 and done.stdout.splitlines()[-1].endswith("plan.md")
    assert "cast: note: the plan has no `- [ ]` checklist items, so cast execute has nothing to run" in done.stderr
    with_items = write_script(tmp_path / "items.jsonl", PLAN_TURNS)
    assert "checklist items" not in cast(repo, "--model", f"script:{with_items}", "plan", "y").stderr
