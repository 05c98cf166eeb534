"""Sessions on disk: the journal replays to exactly the transcript the model saw, survives a torn
last line and a real kill -9, keeps its meta file right, and lives in cast's private state dir."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cast.agent import events as ev
from cast.agent.transcript import Transcript, text_block, tool_result_block
from cast.models.base import Usage
from cast.session_list import list_sessions, next_id
from cast.session_records import NOT_RUN, make_valid, read_records, replay
from cast.sessions import Session, SessionError, load, sessions_dir


def new_session(root: Path, sid: str = "2026-01-02-demo", **kw) -> Session:
    args = {"mode": "plan", "task": "demo task", "model": "scripted"} | kw
    return Session.create(root, sid, **args)


def tool_use(id_: str, name: str = "read_file", **inp) -> dict:
    return {"type": "tool_use", "id": id_, "name": name, "input": inp}


def fill(t: Transcript) -> None:
    t.add_user([text_block("do the thing")])
    t.add_assistant([text_block("looking"), tool_use("t1", path="a.py")])
    t.add_user([tool_result_block("t1", "contents of a.py", False)])
    t.note("[cast: files changed since: a.py]")  # merged into the last user message
    t.add_assistant([tool_use("t2", "bash", command="ls")])
    t.add_user([tool_result_block("t2", "exit_code=0\nx", False)])


class TestRoundTrip:
    def test_append_and_merged_records_replay_exactly(self, tmp_path):
        session = new_session(tmp_path)
        t = Transcript(on_append=session.append)
        fill(t)
        records = [json.loads(line) for line in (session.dir / "transcript.jsonl").read_text().splitlines()]
        assert any(r.get("merged") for r in records)
        meta, messages = load(tmp_path, session.id)
        assert messages == t.messages
        assert meta["mode"] == "plan" and meta["task"] == "demo task" and meta["model"] == "scripted"

    def test_text_utf8_cannot_encode_is_journalled_not_raised_and_replays_exactly(self, tmp_path):
        session = new_session(tmp_path)
        t = Transcript(on_append=session.append)
        t.add_user([text_block("caf\udce9 and a lone \ud800, then caf\u00e9")])  # lone surrogates
        t.add_assistant([text_block("ok \u00e9")])
        data = (session.dir / "transcript.jsonl").read_bytes()
        data.decode("utf-8")
        assert "ok \u00e9".encode() in data, "text that encodes is still written as UTF-8"
        _, messages = load(tmp_path, session.id)
        assert messages == t.messages

    def test_replace_records_replay_exactly_and_later_appends_follow_them(self, tmp_path):
        session = new_session(tmp_path)
        t = Transcript(on_append=session.append)
        fill(t)
        aged = [dict(m) for m in t.messages]
        aged[2] = {"role": "user", "content": [tool_result_block("t1", "[elided: read_file a.py]", False), text_block("note")]}
        t.replace(aged)
        t.add_assistant([text_block("more")])
        t.note("guidance")
        t.replace([{"role": "user", "content": [text_block("summary")]}])
        t.add_assistant([tool_use("t3", path="b.py")])
        t.add_user([tool_result_block("t3", "b", False)])
        t.note("merged after replace")
        _, messages = load(tmp_path, session.id)
        assert messages == t.messages
        assert messages[0]["content"][0]["text"] == "summary"

    def test_session_directory_and_meta_and_listing(self, tmp_path):
        a = new_session(tmp_path, "2026-01-01-first", task="first task")
        time.sleep(1.1)  # updated timestamps have one-second resolution
        b = new_session(tmp_path, "2026-01-02-second", mode="execute", task="second task", plan_path=tmp_path / "plan.md")
        b.observe(ev.StepStarted(1))
        b.observe(ev.UsageUpdate(Usage(100, 20, 5, 7, 3), 132, 0.5))
        b.observe(ev.Stopped("done", "the model finished its turn", 1))
        meta = json.loads((b.dir / "meta.json").read_text())
        assert Usage.from_dict(meta["usage"]) == Usage(100, 20, 5, 7, 3)
        assert meta["cost"] == 0.5 and meta["status"] == "done" and meta["steps"] == 1
        assert meta["plan_path"] == str(tmp_path / "plan.md")
        listed = list_sessions(tmp_path)
        assert [s.id for s in listed] == ["2026-01-02-second", "2026-01-01-first"]
        assert (listed[0].mode, listed[0].status, listed[0].task, listed[0].steps) == ("execute", "done", "second task", 1)
        a.update(status="done")  # touching the older one makes it the newest
        assert list_sessions(tmp_path)[0].id == "2026-01-01-first"
        assert not list((b.dir).glob(".meta.json.*")), "no temp files left behind"

    def test_a_session_id_cannot_be_created_twice(self, tmp_path):
        new_session(tmp_path)
        with pytest.raises(FileExistsError):
            new_session(tmp_path)

    def test_next_id_gives_each_run_its_own_session(self, tmp_path):
        assert next_id(tmp_path, "2026-01-02-demo-exec") == "2026-01-02-demo-exec"
        new_session(tmp_path, "2026-01-02-demo-exec")
        new_session(tmp_path, "2026-01-02-demo-exec-2")
        assert next_id(tmp_path, "2026-01-02-demo-exec") == "2026-01-02-demo-exec-3"

    def test_unknown_session_is_a_clear_error(self, tmp_path):
        with pytest.raises(SessionError, match="no session"):
            load(tmp_path, "nope")


class TestPrivateLocation:
    def test_sessions_live_in_the_private_state_dir_not_the_repository(self, repo):
        session = new_session(repo)
        Transcript(on_append=session.append).add_user([text_block("hi")])
        state = Path(os.environ["XDG_STATE_HOME"]) / "cast" / "workspaces"
        assert session.dir.parent == sessions_dir(repo) and state in session.dir.parents
        assert not (repo / ".cast").exists()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout
        assert status == ""

    def test_owner_only_modes_whatever_the_umask(self, tmp_path):
        old = os.umask(0)
        try:
            session = new_session(tmp_path)
            session.append({"role": "user", "content": [text_block("hi")]})
            session.close()
        finally:
            os.umask(old)
        for directory in (session.dir, session.dir.parent, session.dir.parent.parent):
            assert directory.stat().st_mode & 0o777 == 0o700, directory
        assert (session.dir / "transcript.jsonl").stat().st_mode & 0o077 == 0

    def test_a_session_written_by_an_older_cast_in_the_repository_is_not_read_and_said_once(self, tmp_path, capsys):
        old = tmp_path / ".cast" / "sessions" / "2026-01-01-old"
        old.mkdir(parents=True)
        (old / "meta.json").write_text(json.dumps({"id": "2026-01-01-old", "mode": "plan", "status": "done"}))
        (old / "transcript.jsonl").write_text("")
        assert list_sessions(tmp_path) == []
        said = capsys.readouterr().err
        assert said.count("cast no longer reads") == 1 and f"mv {old.parent}/* {sessions_dir(tmp_path)}/" in said
        assert list_sessions(tmp_path) == [] and capsys.readouterr().err == ""  # once per workspace, ever
        with pytest.raises(SessionError, match="no session .* move them: mv"):
            load(tmp_path, "2026-01-01-old")
        os.rename(old, sessions_dir(tmp_path) / old.name)  # the user moves it as told: it loads as it was
        assert load(tmp_path, "2026-01-01-old")[0]["status"] == "done"
        assert [info.id for info in list_sessions(tmp_path)] == ["2026-01-01-old"]

    @pytest.mark.parametrize("bad", ["../x", "a/b", "..", ".hidden", ""])
    def test_an_id_cannot_leave_the_sessions_dir(self, tmp_path, bad):
        with pytest.raises(SessionError, match="invalid session id"):
            load(tmp_path, bad)
        with pytest.raises(SessionError, match="invalid session id"):
            new_session(tmp_path, bad)


class TestTornJournal:
    def test_a_torn_last_line_is_ignored_then_cut_off_on_the_next_append(self, tmp_path):
        session = new_session(tmp_path)
        t = Transcript(on_append=session.append)
        fill(t)
        session.close()
        journal = session.dir / "transcript.jsonl"
        good = journal.read_bytes()
        journal.write_bytes(good + b'{"role": "assistant", "content": [{"type": "te')  # kill -9 mid-write
        _, messages = load(tmp_path, session.id)
        assert messages == t.messages

        reopened = Session.open(tmp_path, session.id)
        t2 = Transcript(messages, on_append=reopened.append)
        t2.add_assistant([text_block("resumed")])
        assert journal.read_bytes().startswith(good) and journal.read_bytes().count(b"\n") == good.count(b"\n") + 1
        _, again = load(tmp_path, session.id)
        assert again == t2.messages and again[-1]["content"][0]["text"] == "resumed"

    def test_damage_in_the_middle_is_an_error_not_silently_skipped(self, tmp_path):
        session = new_session(tmp_path)
        fill(Transcript(on_append=session.append))
        journal = session.dir / "transcript.jsonl"
        lines = journal.read_bytes().split(b"\n")
        lines[1] = b"garbage"
        journal.write_bytes(b"\n".join(lines))
        with pytest.raises(SessionError, match=":2: damaged"):
            load(tmp_path, session.id)

    def test_pending_tool_uses_get_not_run_results(self):
        messages = [
            {"role": "user", "content": [text_block("go")]},
            {"role": "assistant", "content": [tool_use("a"), tool_use("b")]},
        ]
        valid = make_valid(messages)
        assert valid[-1]["role"] == "user"
        assert [(b["tool_use_id"], b["content"], b["is_error"]) for b in valid[-1]["content"]] == [
            ("a", NOT_RUN, True),
            ("b", NOT_RUN, True),
        ]
        assert len(messages) == 2, "the input is not modified"
        # a partly answered turn gets only the missing result, placed before the others
        partial = messages + [{"role": "user", "content": [tool_result_block("b", "done", False)]}]
        fixed = make_valid(partial)
        assert [b["tool_use_id"] for b in fixed[-1]["content"]] == ["a", "b"]


def test_resume_journals_the_repair_so_the_file_keeps_matching_memory(tmp_path):
    session = new_session(tmp_path)
    t = Transcript(on_append=session.append)
    t.add_user([text_block("go")])
    t.add_assistant([tool_use("a")])  # then the process died: no result was ever written
    session.close()
    resumed, messages = Session.resume(tmp_path, session.id)
    assert messages[-1]["content"][0]["content"] == NOT_RUN
    t2 = Transcript(messages, on_append=resumed.append)
    t2.note("carry on")
    t2.add_assistant([text_block("done")])
    _, again = load(tmp_path, session.id)
    assert again == t2.messages
    assert [m["role"] for m in again] == ["user", "assistant", "user", "assistant"]
    # the journal itself holds the repair: no need to re-derive it on every load
    assert replay(read_records(resumed.dir / "transcript.jsonl")) == t2.messages


CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from cast.agent.loop import Agent
    from cast.agent.transcript import Transcript
    from cast.models.scripted import ScriptedModel
    from cast.sessions import Session
    from cast.tools.base import Observation, Params, Tool, ToolContext
    from cast.workspace import Workspace

    root = Path(sys.argv[1])
    session = Session.create(root, "2026-03-04-killed", mode="execute", task="slow work", model="scripted")

    def quick(args, ctx):
        return Observation("quick result " + "x" * 500)

    def slow(args, ctx):
        (root / "slow-started").write_text("yes")
        time.sleep(60)
        return Observation("never")

    tools = [Tool("quick", "", Params, quick), Tool("slow", "", Params, slow)]
    turns = [{"text": "first", "tool_uses": [{"name": "quick", "input": {}}]},
             {"text": "now the slow one", "tool_uses": [{"name": "quick", "input": {}}, {"name": "slow", "input": {}}]},
             {"text": "never reached"}]
    agent = Agent(model=ScriptedModel(turns), tools=tools, system="s", ctx=ToolContext(workspace=Workspace(root)),
                  transcript=Transcript(on_append=session.append))
    for event in agent.run("do slow work"):
        session.observe(event)
""")


def test_kill_9_mid_step_leaves_a_loadable_valid_transcript(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    root = tmp_path / "ws"
    root.mkdir()
    child = subprocess.Popen([sys.executable, str(script), str(root)], cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not (root / "slow-started").exists():
            assert child.poll() is None, "the child died before reaching the slow tool"
            assert time.monotonic() < deadline, "the child never reached the slow tool"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(10)
    assert child.returncode == -signal.SIGKILL
    meta, messages = load(root, "2026-03-04-killed")
    assert meta["status"] == "interrupted"  # it said running, but its process is gone
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert messages[2]["content"][0]["content"].startswith("quick result")
    pending = messages[-1]["content"]
    assert [b["tool_use_id"] for b in pending] == [b["id"] for b in messages[3]["content"] if b["type"] == "tool_use"]
    # the quick call finished before the kill, so its real result was journalled; only the slow
    # one, in flight when the process died, is answered for it
    assert pending[0]["content"].startswith("quick result") and not pending[0].get("is_error")
    assert pending[1]["content"] == NOT_RUN and pending[1]["is_error"]
    # and it is the shape the API accepts: alternating roles, every tool_use answered next
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            ids = {b["id"] for b in message["content"] if b["type"] == "tool_use"}
            answered = {b["tool_use_id"] for b in messages[i + 1]["content"] if b["type"] == "tool_result"}
            assert ids <= answered
    assert [s.status for s in list_sessions(root)] == ["interrupted"]
    assert sessions_dir(root).joinpath("2026-03-04-killed", "meta.json").is_file()


def test_a_running_session_whose_pid_now_belongs_to_a_newer_process_was_killed(tmp_path):
    """After a crash and a reboot the pid in meta.json may be another process's: one that started
    after the session's last write is not its writer, so the session reads as interrupted (and
    `cast execute` / `cast resume` are not refused for it); the writer itself still reads as running."""
    from cast.session_list import list_sessions
    from cast.sessions import Session, sessions_dir

    earlier = subprocess.Popen(["sleep", "60"])
    try:
        session = Session.create(tmp_path, "2026-01-01-x", mode="execute", task="t", model="m")
        session.update(pid=earlier.pid)  # written after the process started: it may be the writer
        assert [s.status for s in list_sessions(tmp_path)] == ["running"]
        meta_path = sessions_dir(tmp_path) / "2026-01-01-x" / "meta.json"
        meta = json.loads(meta_path.read_text())
        meta["updated_ns"] = time.time_ns() - 60 * 10**9  # last written a minute before this process started
        meta_path.write_text(json.dumps(meta))
        assert [s.status for s in list_sessions(tmp_path)] == ["interrupted"]
    finally:
        earlier.kill()
        earlier.wait()
