"""Skills end to end through `cast plan` with a scripted model, judged by the requests it was
sent: a skill's description is in the first request's system prompt, its body only in the
observation of a `skill` call; every location counts; a bad SKILL.md is skipped and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import invoke_cast, write_script

from cast.config import config_dir
from cast.skills import WORKSPACE_LOCATIONS

BODY = "Fill the form with scripts/fill.py, then check it with pdfinfo."
PLAN = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: x\n\n- [ ] Fill the form\n"}}]}


def make_skill(folder: Path, name: str = "pdf", description: str = "Fill in PDF forms", body: str = BODY) -> Path:
    directory = folder / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    return directory


def plan(repo: Path, tmp_path: Path, turns: list[dict]) -> tuple[object, list[dict]]:
    script = write_script(tmp_path / "script.jsonl", turns)
    record = tmp_path / "requests.jsonl"
    done = invoke_cast(repo, "--model", f"script:{script}", "plan", "fill the form", record=record)
    requests = [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
    return done, requests


def results(request: dict) -> list[str]:
    """The text of every tool result in a request's messages."""
    found = []
    for message in request["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                found.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content))
    return found


@pytest.mark.parametrize("where", [*WORKSPACE_LOCATIONS, "user"])
def test_the_description_is_in_the_prefix_and_the_body_only_after_skill(repo, tmp_path, where):
    folder = config_dir() / "skills" if where == "user" else repo / where
    directory = make_skill(folder)
    (directory / "scripts").mkdir()
    (directory / "scripts" / "fill.py").write_text("print('filled')\n")
    done, requests = plan(
        repo, tmp_path, [{"tool_uses": [{"name": "skill", "input": {"name": "pdf"}}]}, PLAN, {"text": "Planned."}]
    )
    assert done.returncode == 0, done.stderr + done.stdout
    first = requests[0]
    assert "# Skills" in first["system"] and "- pdf: Fill in PDF forms" in first["system"]
    assert BODY not in json.dumps(first)
    assert "skill" in [tool["name"] for tool in first["tools"]]
    loaded = results(requests[1])[-1]
    assert BODY in loaded and "- scripts/fill.py" in loaded
    assert all(request["system"] == first["system"] for request in requests)  # the prefix never changes


def test_without_skills_neither_the_section_nor_the_tool(repo, tmp_path):
    done, requests = plan(repo, tmp_path, [PLAN, {"text": "Planned."}])
    assert done.returncode == 0, done.stderr
    assert "# Skills" not in requests[0]["system"] and "skill" not in [t["name"] for t in requests[0]["tools"]]


def test_the_prefix_is_sorted_whatever_the_order_on_disk(repo, tmp_path):
    for name in ("zeta", "alpha", "mid"):
        make_skill(repo / ".claude" / "skills", name, f"about {name}")
    done, requests = plan(repo, tmp_path, [PLAN, {"text": "Planned."}])
    assert done.returncode == 0, done.stderr
    system = requests[0]["system"]
    assert system.index("- alpha:") < system.index("- mid:") < system.index("- zeta:")


@pytest.mark.parametrize("bad", ["symlink", "huge"])
def test_a_symlinked_or_huge_skill_is_skipped_and_said(repo, tmp_path, bad):
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: leak\ndescription: TOKEN-IN-DESCRIPTION\n---\nTOKEN-IN-BODY\n")
    directory = repo / ".agents" / "skills" / "leak"
    directory.mkdir(parents=True)
    if bad == "symlink":
        (directory / "SKILL.md").symlink_to(secret)
    else:
        (directory / "SKILL.md").write_text("---\nname: leak\ndescription: TOKEN-IN-DESCRIPTION\n---\n" + "x" * 70_000)
    make_skill(repo / ".agents" / "skills", "good", "a good one")
    turns = [{"tool_uses": [{"name": "skill", "input": {"name": "leak"}}]}, PLAN, {"text": "Planned."}]
    done, requests = plan(repo, tmp_path, turns)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests)
    assert "TOKEN-IN" not in sent and "- good: a good one" in requests[0]["system"]
    assert "no skill named 'leak'" in results(requests[1])[-1]
    said = "it leads outside the workspace" if bad == "symlink" else "it is larger than 64 KiB"
    assert f"skipped .agents/skills/leak/SKILL.md: {said}" in done.stderr + done.stdout
