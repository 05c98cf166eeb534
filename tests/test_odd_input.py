"""Odd input gets a clear error that names what is wrong, and where."""

from __future__ import annotations

import pytest
from conftest import invoke_cast as cast
from conftest import write_script

from cast import runs
from cast.options import Options
from cast.plans.checklist import PlanError, validate


def test_a_blank_task_is_refused(repo, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "never"}])
    done = cast(repo, "--model", f"script:{script}", "plan", "   ")
    assert done.returncode == 2 and "the task is blank" in done.stderr
    assert not (repo / ".cast" / "plans").exists()


def test_unclosed_front_matter_and_empty_items_are_named_with_their_line():
    with pytest.raises(PlanError, match="line 1: the front matter opened with `---` is never closed"):
        validate("---\ntask: x\nsession: y\n# Plan\n\n- [ ] one\n")
    with pytest.raises(PlanError, match="line 4: an empty checklist item"):
        validate("# Plan\n\n- [ ] one\n- [ ]\n- [ ] three\n")
    validate("---\ntask: x\n---\n# Plan\n\n- [ ] one\n")  # well formed
    validate("---\n\n# A plan after a thematic break\n- [ ] one\n")  # a rule, not front matter


def test_execute_refuses_a_broken_plan_naming_the_file_and_line(repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("---\ntask: x\nsession: 2026-01-01-x\n# Plan\n\n- [ ] one\n")
    with pytest.raises(PlanError, match=r"plan\.md: line 1: the front matter"):
        runs.execute_run("2026-01-01-x", Options(cwd=repo))
    plan.write_text("# Plan\n\n- [ ] one\n- [ ]   \n")
    with pytest.raises(PlanError, match=r"plan\.md: line 4: an empty checklist item"):
        runs.execute_run("2026-01-01-x", Options(cwd=repo))


def test_write_plan_refuses_an_empty_item(repo):
    from datetime import UTC, datetime

    from cast.plans.store import write_plan

    with pytest.raises(PlanError, match="line 3: an empty checklist item"):
        write_plan(
            repo, "2026-01-01-x", "plan", "# Plan\n- [ ] a\n- [ ]\n", task="x", created=datetime.now(UTC), base_commit=None
        )
