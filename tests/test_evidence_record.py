"""What a tick rested on stays an `ItemEvidence` inside cast and becomes JSON only where it leaves:
the session's meta, `--json`'s task_update events and its result. A session written in today's
format is read back typed when it is resumed, and its earlier ticks' evidence survives the next
tick's record."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, write_script
from conftest import invoke_cast as cast

from cast.agent import events as ev
from cast.agent.tasklist import task_event
from cast.options import Options
from cast.runs import resume_run
from cast.sessions import Session, sessions_dir
from cast.tools.evidence import ItemEvidence

SESSION = "2026-12-01-fix-add"
VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}
KEYS = {"commands", "files", "checks", "supported", "missing", "note"}  # ItemEvidence.to_dict, "earlier" only when set

# meta.json's "evidence" as cast writes it today (one ItemEvidence.to_dict per item text), and
# two entries no cast wrote: they are left out, never read as evidence.
TODAY = {
    "Fix `add` in `app.py`": {
        "commands": ["`python3 -m unittest` exit 0 (3 passed)"],
        "files": ["app.py"],
        "checks": ["python3 -m unittest"],
        "supported": True,
        "missing": "",
        "note": "",
    },
    "Tidy up": {
        "commands": [],
        "files": [],
        "checks": [],
        "supported": False,
        "missing": "nothing was run and no file was changed since it started",
        "note": "nothing to tidy",
    },
    "Write half.txt": {
        "commands": [],
        "files": ["half.txt"],
        "checks": [],
        "supported": True,
        "missing": "",
        "note": "",
        "earlier": ["half.txt"],
    },
}
FOREIGN = {"Broken": "not evidence", "Listed": ["x.py"]}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def project(root: Path, plan: str) -> Path:
    root.mkdir()
    (root / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "app")
    path = root / ".cast" / "plans" / SESSION / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntask: Fix add\nsession: {SESSION}\n---\n# Plan: Fix add\n\n{plan}")
    return path


def test_json_events_the_result_and_the_session_carry_one_evidence_shape(tmp_path):
    root = tmp_path / "proj"
    project(root, "- [ ] Add a note to notes.md\n")
    turns = [
        {"tool_uses": [use("update_task", id=1, status="in_progress")]},
        {"tool_uses": [use("write_file", path="notes.md", content="a note\n")]},
        {"tool_uses": [use("update_task", id=1, status="done")]},
        {"text": "Done."},
        VERDICT,
    ]
    script = write_script(tmp_path / "script.jsonl", turns)
    done = cast(root, "--model", f"script:{script}", "--json", "execute")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    updates = [line for line in lines if line["type"] == "task_update"]
    assert updates[0]["tasks"][0]["evidence"] == {}  # not ticked yet: an empty object, as ever
    shown = updates[-1]["tasks"][0]["evidence"]
    assert set(shown) == KEYS and shown["files"] == ["notes.md"] and shown["supported"] is True
    assert lines[-1]["report"]["items_done"] == [{"number": 1, "text": "Add a note to notes.md", "evidence": shown}]
    meta = json.loads(next(sessions_dir(root).glob("*-exec/meta.json")).read_text())
    assert meta["evidence"] == {"Add a note to notes.md": shown}


def test_a_session_in_todays_format_resumes_with_its_evidence_typed_and_keeps_it(tmp_path):
    root = tmp_path / "proj"
    plan = project(root, "- [x] Fix `add` in `app.py`\n- [x] Tidy up\n- [x] Write half.txt\n- [ ] Add a note to notes.md\n")
    session_id = f"{SESSION}-exec"
    Session.create(root, session_id, mode="execute", task="Fix add", model="script", plan_path=plan)
    meta_path = sessions_dir(root) / session_id / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta |= {"status": "interrupted", "evidence": TODAY | FOREIGN}
    meta_path.write_text(json.dumps(meta))

    turns = [
        {"tool_uses": [use("update_task", id=4, status="in_progress")]},
        {"tool_uses": [use("write_file", path="notes.md", content="a note\n")]},
        {"tool_uses": [use("update_task", id=4, status="done")]},
        {"text": "Done."},
        VERDICT,
    ]
    run = resume_run(session_id, Options(model=f"script:{write_script(tmp_path / 'script.jsonl', turns)}", cwd=root))
    board = run.tasks
    assert board is not None
    assert board.evidence_for("Fix `add` in `app.py`") == ItemEvidence(
        ["`python3 -m unittest` exit 0 (3 passed)"], ["app.py"], [], ["python3 -m unittest"]
    )
    tidy = board.evidence_for("Tidy up")
    assert tidy is not None and not tidy.supported and tidy.note == "nothing to tidy"
    half = board.evidence_for("Write half.txt")
    assert half is not None and half.earlier == ["half.txt"]
    assert board.evidence_for("Broken") is None and set(board.evidence) == set(TODAY)
    rows = task_event(board).tasks
    assert [row.evidence for row in rows] == [*(board.evidence_for(text) for text in TODAY), None]
    assert [task["evidence"] for task in ev.to_json(task_event(board))["tasks"]] == [*TODAY.values(), {}]

    stopped = run.execute(lambda event: None)
    run.close()
    assert stopped.status == "done", stopped.reason
    kept = json.loads(meta_path.read_text())["evidence"]
    assert {text: kept[text] for text in TODAY} == TODAY  # the earlier ticks' record, byte for byte the same
    assert kept["Add a note to notes.md"]["files"] == ["notes.md"] and "Broken" not in kept and "Listed" not in kept


def test_evidence_that_is_not_what_cast_wrote_is_never_evidence():
    assert ItemEvidence.from_dict("x") is None and ItemEvidence.from_dict(None) is None
    odd = ItemEvidence.from_dict({"commands": "rm -rf /", "files": ["a.py", 3], "supported": False})
    assert odd == ItemEvidence([], ["a.py"], missing="no evidence recorded") and not odd.supported
    for written in TODAY.values():
        found = ItemEvidence.from_dict(written)
        assert found is not None and found.to_dict() == written
