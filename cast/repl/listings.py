"""Slash commands that list what a run here is offered (`/skills`), as tables of Text: the names
and descriptions come from files of the repository, so they are never read as markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.repl.session import Session


def skills(session: Session, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from cast.skills import discover, prefix, rows

    found = discover(session.state.root)
    for notice in found.notices + prefix(found)[1]:
        session.view.say(notice, "dim")
    if not found.skills:
        session.view.say("No skills: put SKILL.md folders in ~/.config/cast/skills/ or the workspace's .cast/skills/.", "dim")
        return
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("skill", no_wrap=True)
    table.add_column("source", no_wrap=True)
    table.add_column("description", overflow="fold")
    for row in rows(found):
        table.add_row(*(Text(cell) for cell in row))
    session.view.show(table)
