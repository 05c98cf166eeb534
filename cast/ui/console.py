"""Turn rich renderables into text for a given width: ANSI for a terminal, plain for a pipe.

Front-ends that own the screen (the REPL draws above a prompt-toolkit prompt) cannot hand rich a
file to write to; they render to a string and place it themselves. `NO_COLOR` is honoured.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from typing import TYPE_CHECKING, Any

from cast.text import terminal_safe

if TYPE_CHECKING:  # rich is imported where text is rendered, so the REPL can draw its prompt first
    from rich.console import Console, RenderableType

_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.M)


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def width_of(stream: Any = None, fallback: int = 80) -> int:
    try:
        return os.get_terminal_size((stream or __import__("sys").stdout).fileno()).columns
    except (OSError, ValueError, AttributeError):
        return shutil.get_terminal_size((fallback, 24)).columns


def make_console(file: Any, terminal: bool, width: int | None = None) -> Console:
    from rich.console import Console

    from cast.ui.wrapping import install  # deferred: keeps cast.ui.wrapping off the REPL's first prompt

    install()  # a long path breaks after a `/`, not inside a name

    return Console(
        file=file,
        width=width,
        force_terminal=terminal,
        no_color=no_color() or not terminal,
        color_system="auto" if terminal else None,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        soft_wrap=False,
        markup=False,  # user and model text is shown as written: `[red]` stays `[red]`
    )


class TextOnly:
    """A renderable whose text cannot steer the terminal: every segment of text is passed through
    `terminal_safe` after rich has laid it out, so the only escape sequences written are the ones
    rich makes from cast's own styles (a Style, never text) and its own control segments. The net
    under every REPL sink: the scrollback, the live area, Ctrl+O's output, /plans, reports."""

    def __init__(self, inner: RenderableType):
        self.inner = inner

    def __rich_console__(self, console: Console, options: Any) -> Any:
        from rich.segment import Segment

        for segment in console.render(self.inner, options):
            yield segment if segment.control else Segment(terminal_safe(segment.text), segment.style)


def render_text(renderable: RenderableType, width: int, terminal: bool = True) -> str:
    """The renderable as it would print at `width`, trailing padding removed, ending in a newline."""
    buffer = io.StringIO()
    console = make_console(buffer, terminal, max(20, width))
    console.print(TextOnly(renderable))
    return _TRAILING.sub(r"\1", buffer.getvalue())
