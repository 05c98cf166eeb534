"""A plan run's --json result holds no claim for the planner's description of how its plan will
check its items; a sentence saying a check was made, or naming a command the plan does not name,
is still a claim. The real CLI in-process with the offline demo's plan script, its last words changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import git, write_script
from conftest import invoke_cast as cast

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def plan_json(tmp_path: Path, last_words: str) -> dict:
    root = tmp_path / "calc"
    shutil.copytree(EXAMPLES / "calc", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "calc")
    turns = [json.loads(line) for line in (EXAMPLES / "scripts" / "plan.jsonl").read_text().splitlines()]
    turns[-1] = {"text": last_words}
    script = write_script(tmp_path / "plan.jsonl", turns)
    done = cast(root, "--model", f"script:{script}", "plan", "--json", "Fix add and cover negative numbers")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])["report"]


@pytest.mark.parametrize(
    "said",
    [
        "Two items, each one verified with `python3 -m unittest`.",
        "Item 2 adds a test, verified with `python3 -m unittest`.",
        "Both items are verified by running `python3 -m unittest`.",
    ],
)
def test_the_planners_description_of_its_checks_is_no_claim(tmp_path, said):
    report = plan_json(tmp_path, f"Plan written: fix `add`, then add a negative-number test. {said}")
    assert report["claims"] == [] and report["unchecked_claims"] == 0


@pytest.mark.parametrize("said", ["I verified the fix with `python3 -m unittest`.", "Each item is verified with `make test`."])
def test_a_check_said_to_be_made_or_a_command_the_plan_does_not_name_is_still_a_claim(tmp_path, said):
    report = plan_json(tmp_path, said)
    assert report["unchecked_claims"] == 1 and report["claims"][0]["text"] == said
