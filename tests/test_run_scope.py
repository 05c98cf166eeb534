"""A run's report is about its own plan: an earlier run of another plan, stopped half-way, never
shows up in it."""

from __future__ import annotations

from pathlib import Path

from cast import runs
from cast.models.scripted import ScriptedModel
from cast.options import Options
from cast.run import Outcome

VERDICT = {"text": '{"complete": true, "missing": [], "claims": []}'}


def use(name: str, **arguments) -> dict:
    return {"name": name, "input": arguments}


def plan(root: Path, session: str, body: str) -> Path:
    path = root / ".cast" / "plans" / session / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntask: {session}\nsession: {session}\n---\n# Plan\n\n{body}")
    return path


def execute(root: Path, session: str, turns: list[dict]) -> Outcome:
    run = runs.execute_run(session, Options(cwd=root, yes=True), model=ScriptedModel(turns))
    run.execute(lambda event: None)
    return run.close()


def test_the_report_of_plan_b_never_names_plan_a_items(repo):
    plan(repo, "2026-01-01-fix-add", "- [ ] Fix `add` in `app.py`\n- [ ] Test it\n")
    plan(repo, "2026-01-02-readme", "- [ ] Say hello in `README.md`\n")
    first = execute(
        repo,
        "2026-01-01-fix-add",
        [
            {"tool_uses": [use("update_task", id=1, status="in_progress")]},
            {"tool_uses": [use("edit_file", path="app.py", old_string="a + b", new_string="b + a")]},
            {"text": "Stopping here."},
            VERDICT,
        ],
    )
    assert first.code == 1 and first.report is not None and first.report.by_item  # item 1 of plan A, unticked
    second = execute(
        repo,
        "2026-01-02-readme",
        [
            {"tool_uses": [use("update_task", id=1, status="in_progress")]},
            {"tool_uses": [use("write_file", path="README.md", content="# demo\n\nhello\n")]},
            {"tool_uses": [use("update_task", id=1, status="done")]},
            {"text": "Said hello."},
            VERDICT,
        ],
    )
    assert second.report is not None
    text = second.report.render_text()
    assert "Fix `add`" not in text and "app.py" not in text, text
    assert [(n, t) for n, t, _ in second.report.by_item] == [(1, "Say hello in `README.md`")]
