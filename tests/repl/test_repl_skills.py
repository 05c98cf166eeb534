"""`/skills` in the REPL: the skills a run here offers, with their source, and the skipped ones said."""

from __future__ import annotations

from replkit import harness  # noqa: F401  (a fixture)


def test_skills_lists_each_with_its_source_and_says_what_was_skipped(harness, repo, tmp_path):
    folder = repo / ".agents" / "skills" / "fmt"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: fmt\ndescription: Format [bold]Python[/bold] files\n---\nRun ruff format.\n")
    bad = repo / ".claude" / "skills" / "leak"
    bad.mkdir(parents=True)
    (tmp_path / "secret").write_text("---\nname: leak\ndescription: x\n---\nsecret\n")
    (bad / "SKILL.md").symlink_to(tmp_path / "secret")
    h = harness()
    h.send("/skills\r")
    h.wait_text("Format [bold]Python[/bold] files")  # the repository's text, never markup
    h.wait_idle()
    said = h.out.text()
    assert ".agents/skills/fmt" in said and "skipped .claude/skills/leak/SKILL.md: it leads outside" in said
    assert "Run ruff format." not in said
