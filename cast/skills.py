"""Skills: folders holding a SKILL.md (front matter `name`, `description`; a body of instructions,
maybe scripts beside it), the convention users bring from other agents.

Only a skill's name and description go in the stable prefix, sorted and capped so the prompt cache
holds and a repository with a thousand skills cannot crowd out the task; the body reaches the model
only when it asks for it (tool `skill`). Skills come from the user's `~/.config/cast/skills/` and
the workspace's `.cast/skills/`, `.agents/skills/` and `.claude/skills/`, in that order of
precedence: a name already taken is skipped, so a clone cannot shadow a skill of the user's.

A repository's skills are its text, read like AGENTS.md: a SKILL.md must be a regular file that
resolves inside its own tree (a committed `SKILL.md -> ~/.ssh/id_rsa` would send a secret to the
API) and no larger than the cap; a bad one is skipped with a notice. Nothing of a skill runs on its
own: its scripts run only when the model calls bash, under the mode's checker and approvals.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cast.config import config_dir
from cast.frontmatter import FrontMatterError as FrontMatterError  # the skill tool catches it from here
from cast.frontmatter import split
from cast.fsutil import read_regular
from cast.text import one_line

SKILL_FILE = "SKILL.md"
SKILL_CAP = 64 * 1024  # bytes of one SKILL.md; a larger one is skipped, never cut into partial instructions
NAME_CAP = 64
DESCRIPTION_CAP = 1024
PREFIX_CAP = 12 * 1024  # characters of the prompt's skills section
PER_LOCATION = 200  # skill folders looked at in one location
WORKSPACE_LOCATIONS = (".cast/skills", ".agents/skills", ".claude/skills")
USER = "user"

PREFIX_HEAD = """\
# Skills
Skills are instructions for particular kinds of task, kept out of this prompt until needed. When the
task matches a skill's description, call the skill tool with its name before you start; it returns
the instructions and lists the files beside them. A skill's scripts run only through bash, under
this mode's rules."""


@dataclass(frozen=True)
class Skill:
    """One skill as found: its name and description (one line each, made safe for a prompt), where
    it came from (`user` or the workspace location), its folder, and the tree it is confined to."""

    name: str
    description: str
    source: str
    directory: Path
    tree: Path

    @property
    def shown(self) -> str:
        """Where the skill lives, as the model and the user see it: workspace-relative for the
        repository's, the real path for the user's own (bash needs it to run a script there)."""
        if self.source == USER:
            return str(self.directory)
        return os.path.relpath(self.directory, self.tree)


@dataclass
class Found:
    """The skills of a run, by name, and the notices about those skipped."""

    skills: dict[str, Skill] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    def sorted(self) -> list[Skill]:
        return [self.skills[name] for name in sorted(self.skills)]


def locations(root: Path) -> list[tuple[str, Path, Path]]:
    """(source, folder of skills, the tree each SKILL.md must stay inside), in order of precedence."""
    user = config_dir() / "skills"
    found = [(USER, user, Path(os.path.realpath(user)))]
    return found + [(where, root / where, Path(os.path.realpath(root))) for where in WORKSPACE_LOCATIONS]


def discover(root: Path) -> Found:
    """Every skill of the workspace at `root` and of the user, the first of each name kept."""
    found = Found()
    for source, folder, tree in locations(root):
        for skill in _scan(source, folder, tree, found.notices.append):
            kept = found.skills.get(skill.name)
            if kept is None:
                found.skills[skill.name] = skill
            else:
                found.notices.append(
                    f"skipped skill {printable(skill.name)} in {printable(skill.shown)}: "
                    f"{printable(kept.shown)} has that name first"
                )
    return found


def _scan(source: str, folder: Path, tree: Path, notice: Callable[[str], object]) -> list[Skill]:
    if not os.path.isdir(folder):
        return []
    shown_folder = str(folder) if source == USER else source
    real = os.path.realpath(folder)
    if not _inside(real, tree):
        notice(f"skipped the skills in {printable(shown_folder)}: it leads outside {printable(str(tree))} through a symlink")
        return []
    try:
        names = sorted(entry.name for entry in os.scandir(real) if entry.is_dir(follow_symlinks=True))
    except OSError as exc:
        notice(f"skipped the skills in {printable(shown_folder)}: {exc.strerror or exc}")
        return []
    if len(names) > PER_LOCATION:
        notice(f"{printable(shown_folder)} holds {len(names)} skill folders: only the first {PER_LOCATION} by name are read")
    skills = []
    for name in names[:PER_LOCATION]:
        directory = folder / name
        if not os.path.lexists(directory / SKILL_FILE):
            continue
        try:
            skills.append(read_header(source, directory, tree))
        except SkillError as exc:
            notice(str(exc))
    return skills


class SkillError(Exception):
    """A skill that cannot be used, said in one line naming it."""


def read_text(source: str, directory: Path, tree: Path, name: str = SKILL_FILE, cap: int = SKILL_CAP) -> str:
    """A file of a skill, read confined: it resolves inside `tree` and inside its own folder, is a
    regular file (checked on the opened file: no FIFO, no device), and holds at most `cap` bytes."""

    path = directory / name
    shown = printable(str(path) if source == USER else os.path.relpath(path, tree))
    real_dir, real = os.path.realpath(directory), os.path.realpath(path)
    if not _inside(real_dir, str(tree)) or not _inside(real, real_dir):
        raise SkillError(f"skipped {shown}: it leads outside {printable(str(tree) if source == USER else 'the workspace')}")
    try:
        data = read_regular(real, cap)
    except FileNotFoundError:
        raise SkillError(f"skipped {shown}: it is gone") from None
    except OSError as exc:
        raise SkillError(f"skipped {shown}: {exc.strerror or exc}; skills are read only from regular files") from None
    if len(data) > cap:
        raise SkillError(f"skipped {shown}: it is larger than {cap // 1024} KiB")
    return data.decode("utf-8", "replace")


def read_header(source: str, directory: Path, tree: Path) -> Skill:
    """The skill in `directory`: its front matter checked, its body left for the `skill` tool."""
    text = read_text(source, directory, tree)
    shown = printable(str(directory) if source == USER else os.path.relpath(directory, tree))
    try:
        header, _ = split(text)
    except FrontMatterError as exc:
        raise SkillError(f"skipped the skill in {shown}: {SKILL_FILE}: {exc}") from None
    name = _one_line(header.get("name") or directory.name)
    description = _one_line(header.get("description", ""))
    if not name or len(name) > NAME_CAP:
        raise SkillError(f"skipped the skill in {shown}: its name must be 1 to {NAME_CAP} characters")
    if not description:
        raise SkillError(
            f"skipped the skill in {shown}: its front matter has no description, so the model cannot know when to use it"
        )
    if len(description) > DESCRIPTION_CAP:
        description = description[:DESCRIPTION_CAP] + "…"
    return Skill(name, description, source, Path(directory), tree)


def body(skill: Skill) -> str:
    """The instructions of `skill`, read again (confined) when the model asks for them."""
    _, text = split(read_text(skill.source, skill.directory, skill.tree))
    return text.strip("\n")


def prefix(found: Found) -> tuple[str, list[str]]:
    """The prompt's skills section ("" with no skills) and a notice for those it had no room for.
    Sorted by name, so the same skills always give the same bytes whatever the file system's order."""
    lines, used, left = [], len(PREFIX_HEAD), []
    for skill in found.sorted():
        line = f"- {skill.name}: {skill.description}"
        if used + len(line) + 1 > PREFIX_CAP:
            left.append(skill.name)
            continue
        lines.append(line)
        used += len(line) + 1
    notices = []
    if left:
        notices.append(
            f"{len(left)} skills not listed in the prompt (its skills section is capped at {PREFIX_CAP} characters): "
            + ", ".join(printable(name) for name in left[:10])
            + (" …" if len(left) > 10 else "")
        )
    return ("\n".join([PREFIX_HEAD, *lines]) if lines else ""), notices


def _inside(path: str, tree: str | Path) -> bool:
    tree = str(tree)
    return os.path.commonpath([path, tree]) == tree


def _one_line(text: str) -> str:
    """A field for the prompt: one line (a description cannot open a section of its own), with no
    control characters."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def printable(text: str) -> str:
    """A repository's file names may carry terminal control sequences: shown escaped."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def rows(found: Found, width: int = 100) -> list[list[str]]:
    """`cast skills` and `/skills`: name, where it lives, and its description (cut at `width`)."""
    return [[skill.name, skill.shown, one_line(skill.description, width)] for skill in found.sorted()]
