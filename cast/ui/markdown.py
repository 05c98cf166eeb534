"""Markdown as cast shows it: rich's, with two changes for a terminal of any width and colour.
Headings start at the left margin (rich centres a level-1 heading: a plan's `# Plan: …` title
floated in the middle of a 60-column screen), and inline code keeps its backticks (with no colour,
or a theme where code looks like text, `calc.add` would read as prose). Imported on first use:
rich.markdown costs start-up time."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import JustifyMethod
from rich.markdown import Heading, Markdown


class LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(Heading.LEVEL_ALIGN, "left")


def ticked(code: str) -> str:
    """A code span as it was written: in backticks, doubled (with spaces) when it holds one."""
    return f"`` {code} ``" if "`" in code else f"`{code}`"


class CastMarkdown(Markdown):
    elements: ClassVar[dict[str, type[Any]]] = {**Markdown.elements, "heading_open": LeftHeading}

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "code_inline":
                    child.content = ticked(child.content)
