"""Tool `skill`: a skill's instructions, loaded when the model asks for them.

The prompt carries only each skill's name and description (cast/skills.py); this returns the body
of one SKILL.md as an observation and lists the files beside it, so the model knows which scripts
and references the instructions mean. `file` reads one of those (the user's own skills live outside
the workspace, where read_file does not reach). Everything is read confined, as the SKILL.md was.
Running a script is bash's business, under the mode's rules: this tool never runs anything.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from cast import skills as sk
from cast.text import plural
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError

FILES_LISTED = 100
FILES_DEPTH = 4
FILE_CAP = 64 * 1024


class SkillParams(Params):
    name: str = Field(description="The skill's name, as listed in the prompt's Skills section.")
    file: str | None = Field(None, description="A file beside the skill's SKILL.md to read instead (a path it lists).")


def skill_tool(found: sk.Found) -> Tool[SkillParams]:
    """The tool for this run's skills (found once, when the run starts)."""

    def skill(args: SkillParams, ctx: ToolContext) -> Observation:
        chosen = found.skills.get(args.name)
        if chosen is None:
            names = ", ".join(sorted(found.skills)[:50]) or "none"
            raise ToolError(f"no skill named {args.name!r}; skills: {names}")
        try:
            if args.file is not None:
                return _file(chosen, args.file)
            text = sk.body(chosen)
        except (sk.SkillError, sk.FrontMatterError) as exc:
            raise ToolError(str(exc).removeprefix("skipped ")) from None
        files, total = beside(chosen.directory)
        listed = "\n".join(f"- {name}" for name in files) or "(none)"
        more = f"\n[showed {len(files)} of {total} files]" if total > len(files) else ""
        observation = (
            f'<skill name="{chosen.name}" directory="{chosen.shown}">\n{text}\n</skill>\n'
            f"Files beside SKILL.md (paths relative to {chosen.shown}):\n{listed}{more}"
        )
        return Observation(observation, summary=f"skill {chosen.name}: {plural(total, 'file')} beside it")

    return Tool(
        "skill",
        "Load a skill's instructions (listed with its description in the prompt's Skills section), "
        "and list the files beside them; with `file`, read one of those files.",
        SkillParams,
        skill,
        read_only=True,
        access=Access.READ,  # it reads text; a skill's scripts run only through bash, under the mode's rules
    )


def _file(skill: sk.Skill, name: str) -> Observation:
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or ".." in parts:
        raise ToolError(f"{name!r} is not a path inside the skill's folder")
    text = sk.read_text(skill.source, skill.directory, skill.tree, name, FILE_CAP)
    return Observation(f'<skill-file skill="{skill.name}" path="{name}">\n{text}\n</skill-file>', summary=f"{skill.name}/{name}")


def beside(directory: Path) -> tuple[list[str], int]:
    """The regular files under a skill's folder but its SKILL.md (sorted, at most `FILES_LISTED`)
    and how many there are. Symlinks are neither followed nor listed; the walk stops `FILES_DEPTH`
    folders down, so a skill cannot make this walk a whole tree."""
    found: list[str] = []
    total = 0
    stack = [(Path(os.path.realpath(directory)), "", 0)]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 < FILES_DEPTH and not entry.name.startswith("."):
                    stack.append((Path(entry.path), rel + "/", depth + 1))
            elif entry.is_file(follow_symlinks=False) and rel != sk.SKILL_FILE:
                total += 1
                found.append(sk.printable(rel))
    found.sort()
    return found[:FILES_LISTED], total
