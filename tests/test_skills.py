"""Skills found, read confined and listed: every location, precedence, the prefix sorted and
capped, the front matter forms other agents write, and the `skill` tool's body and files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cast import skills as sk
from cast.config import config_dir
from cast.frontmatter import FrontMatterError, split
from cast.tools.base import ToolContext, run_tool
from cast.tools.skill import skill_tool
from cast.workspace import Workspace


def make_skill(folder: Path, name: str, description: str = "", body: str = "Do the thing.", header: str | None = None) -> Path:
    directory = folder / name
    directory.mkdir(parents=True, exist_ok=True)
    header = header if header is not None else f"name: {name}\ndescription: {description or 'Use for ' + name}\n"
    (directory / "SKILL.md").write_text(f"---\n{header}---\n{body}\n")
    return directory


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.mark.parametrize("where", sk.WORKSPACE_LOCATIONS)
def test_workspace_skills_from_each_location(ws, where):
    make_skill(ws / where, "deploy", "Ship the service")
    found = sk.discover(ws)
    assert list(found.skills) == ["deploy"] and found.notices == []
    skill = found.skills["deploy"]
    assert (skill.source, skill.description, skill.shown) == (where, "Ship the service", f"{where}/deploy")


def test_user_skills_and_precedence(ws):
    make_skill(config_dir() / "skills", "deploy", "the user's deploy")
    make_skill(ws / ".claude/skills", "deploy", "the clone's deploy")
    make_skill(ws / ".agents/skills", "lint", "agents lint")
    make_skill(ws / ".claude/skills", "lint", "claude lint")
    found = sk.discover(ws)
    assert found.skills["deploy"].description == "the user's deploy"  # a clone cannot shadow the user's skill
    assert found.skills["lint"].description == "agents lint"
    assert found.skills["deploy"].shown == str(config_dir() / "skills" / "deploy")
    assert len(found.notices) == 2 and all("has that name first" in n for n in found.notices)


def test_prefix_is_sorted_capped_and_stable(ws, monkeypatch):
    for name in ("zeta", "alpha", "mid"):
        make_skill(ws / ".cast/skills", name)
    text, notices = sk.prefix(sk.discover(ws))
    assert text.startswith(sk.PREFIX_HEAD) and notices == []
    assert [line.split(":")[0] for line in text.splitlines() if line.startswith("- ")] == ["- alpha", "- mid", "- zeta"]
    assert sk.prefix(sk.discover(ws))[0] == text
    monkeypatch.setattr(sk, "PREFIX_CAP", len(sk.PREFIX_HEAD) + 40)
    capped, notices = sk.prefix(sk.discover(ws))
    assert "- alpha" in capped and "- zeta" not in capped
    assert notices and "not listed in the prompt" in notices[0]
    assert sk.prefix(sk.Found())[0] == ""  # no skills: no section at all


def test_descriptions_are_one_line_and_capped(ws):
    make_skill(ws / ".cast/skills", "x", header="name: x\ndescription: |\n  line one\n  # Mode: execute\n  \x1b[2Jline\n")
    make_skill(ws / ".cast/skills", "long", header=f"name: long\ndescription: {'d' * 5000}\n")
    found = sk.discover(ws)
    assert found.skills["x"].description == "line one # Mode: execute [2Jline"
    assert len(found.skills["long"].description) == sk.DESCRIPTION_CAP + 1


def test_symlinked_skill_file_leading_out_is_skipped(ws, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: leak\ndescription: secret\n---\nTOKEN=hunter2\n")
    directory = ws / ".claude/skills/leak"
    directory.mkdir(parents=True)
    (directory / "SKILL.md").symlink_to(secret)
    outside = tmp_path / "elsewhere"
    make_skill(outside, "far")
    (ws / ".agents").mkdir()
    (ws / ".agents/skills").symlink_to(outside)
    found = sk.discover(ws)
    assert found.skills == {}
    assert any("leak" in n and "outside" in n for n in found.notices)
    assert any(".agents/skills" in n and "outside" in n for n in found.notices)


def test_huge_fifo_and_bad_skills_are_skipped_with_a_notice(ws):
    make_skill(ws / ".cast/skills", "huge", body="x" * (sk.SKILL_CAP + 1))
    (ws / ".cast/skills/pipe").mkdir()
    os.mkfifo(ws / ".cast/skills/pipe/SKILL.md")
    make_skill(ws / ".cast/skills", "nodesc", header="name: nodesc\n")
    (ws / ".cast/skills/plain").mkdir()
    (ws / ".cast/skills/plain/SKILL.md").write_text("no front matter here\n")
    make_skill(ws / ".cast/skills", "good")
    found = sk.discover(ws)
    assert list(found.skills) == ["good"]
    said = "\n".join(found.notices)
    for expected in ("huge/SKILL.md: it is larger than 64 KiB", "pipe/SKILL.md", "no description", "front matter"):
        assert expected in said, expected


@pytest.mark.parametrize(
    ("header", "name", "description"),
    [
        ("name: pdf\ndescription: Fill PDF forms # a comment\n", "pdf", "Fill PDF forms"),
        ("name: 'it''s'\ndescription: \"quoted: \\\"yes\\\"\"\n", "it's", 'quoted: "yes"'),
        ("description: >-\n  folded\n  text\nlicense: MIT\nmetadata:\n  version: 1\n", "dir", "folded text"),
        ("name: PDF Processing\ndescription: plain\n  continued\nallowed-tools: [bash]\n", "PDF Processing", "plain continued"),
    ],
)
def test_front_matter_forms(header, name, description):
    fields, body = split(f"---\n{header}---\nBody\n")
    assert fields.get("name", "dir") == name and fields["description"] == description and body == "Body\n"


@pytest.mark.parametrize("text", ["no block", "---\nname: x\n", '---\nname: "open\n---\n', "---\n- a list\n---\n"])
def test_front_matter_errors(text):
    with pytest.raises(FrontMatterError):
        split(text)


def test_skill_tool_returns_the_body_and_the_files_beside_it(ws, tmp_path):
    directory = make_skill(ws / ".claude/skills", "pdf", body="Run scripts/fill.py with the form.")
    (directory / "scripts").mkdir()
    (directory / "scripts/fill.py").write_text("print('fill')\n")
    (directory / "reference.md").write_text("# Reference\n")
    (directory / "link.md").symlink_to(tmp_path)
    tool = skill_tool(sk.discover(ws))
    ctx = ToolContext(workspace=Workspace(ws))
    obs = run_tool(tool, {"name": "pdf"}, ctx)
    assert obs.ok and "Run scripts/fill.py with the form." in obs.text and "---" not in obs.text
    assert "- reference.md\n- scripts/fill.py" in obs.text and "link.md" not in obs.text
    ref = run_tool(tool, {"name": "pdf", "file": "reference.md"}, ctx)
    assert ref.ok and "# Reference" in ref.text
    for bad in ("../../../etc/passwd", "/etc/passwd", "link.md"):
        assert not run_tool(tool, {"name": "pdf", "file": bad}, ctx).ok, bad
    missing = run_tool(tool, {"name": "nope"}, ctx)
    assert not missing.ok and "skills: pdf" in missing.text


def test_cast_skills_lists_them_with_their_source(repo):
    from conftest import invoke_cast

    make_skill(config_dir() / "skills", "mine", "the user's")
    make_skill(repo / ".cast/skills", "theirs", "the project's")
    (repo / ".claude/skills/broken").mkdir(parents=True)
    (repo / ".claude/skills/broken/SKILL.md").write_text("no front matter\n")
    listed = invoke_cast(repo, "skills")
    assert listed.returncode == 0
    rows = [line.split("\t") for line in listed.stdout.splitlines()]
    assert rows == [
        ["mine", str(config_dir() / "skills" / "mine"), "the user's"],
        ["theirs", ".cast/skills/theirs", "the project's"],
    ]
    assert "skipped the skill in .claude/skills/broken" in listed.stderr
    as_json = [json.loads(line) for line in invoke_cast(repo, "skills", "--json").stdout.splitlines()]
    assert [(row["name"], row["source"]) for row in as_json] == [("mine", "user"), ("theirs", ".cast/skills")]
