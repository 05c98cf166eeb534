"""The skills extension: when a workspace or the user has skills, a run gets the tool `skill`
(tools/skill.py, which loads one) and the prompt's Skills section (skills.py: sorted, capped)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cast.extensions import BaseExtension
from cast.skills import discover, prefix

if TYPE_CHECKING:
    from cast.extensions import Extension, Setup
    from cast.tools.base import Tool


def extension(setup: Setup) -> Extension | None:
    """Skills join a run: the tool `skill` and the prompt's section, when there are any; the
    skipped ones are said at the first step."""
    found = discover(setup.workspace.root)
    section, left = prefix(found)
    for notice in found.notices + left:
        setup.notice(notice)
    if not found.skills:
        return None
    from cast.tools.skill import skill_tool  # deferred: keeps the skill tool off a run without skills' first request

    class Skills(BaseExtension):
        name = "skills"

        def tools(self) -> list[Tool[Any]]:
            return [skill_tool(found)]

        def prefix(self) -> str:
            return section

    return Skills()
