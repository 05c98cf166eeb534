"""What the prompt area shows, computed at every redraw: the live part of the agent's output,
a waiting question or the working indicator, the mode label, the placeholder, the toolbar."""
from __future__ import annotations

import time
from typing import Any

from prompt_toolkit.formatted_text import ANSI, to_formatted_text

from cast.repl.toolbar import prompt_label, toolbar_fragments

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_SECONDS = 0.12
RESERVED_ROWS = 10  # rows kept free for the input, the question and the completion menu

Fragments = list[tuple[str, str]]


def hard_wrap(text: str, width: int, indent: str) -> str:
    """Every character of `text`, cut at the width: the prompt area crops long lines, and the
    command a user approves must be shown whole."""
    width = max(10, width)
    rows = [line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width)]
    return "\n".join(indent + row for row in rows)


class PromptView:
    def __init__(self, repl: Any):
        self.repl = repl

    def message(self) -> Fragments:
        try:
            return self._message()
        except Exception:  # never let a drawing problem take the prompt down
            return prompt_label(self.repl.state.mode)

    def _message(self) -> Fragments:
        repl = self.repl
        fragments: Fragments = []
        live = repl.renderer.live()
        if live is not None:
            lines = repl.screen.render(live).rstrip("\n").split("\n")
            room = max(3, self.rows() - RESERVED_ROWS)
            fragments += to_formatted_text(ANSI("\n".join(lines[-room:]) + "\n"))
        question = repl.asker.current
        if question is not None:
            fragments.append(("class:question", question.title + "\n"))
            if question.detail:
                fragments.append(("class:question.detail", hard_wrap(question.detail, self.columns() - 2, "  ") + "\n"))
            fragments.append(("class:question.keys", question.labels + "\n"))
        elif repl.busy:
            frame = SPINNER[int(time.monotonic() / TICK_SECONDS) % len(SPINNER)]
            fragments.append(("class:working", f"{frame} working · Esc interrupts · a message you send is queued as guidance\n"))
        return fragments + prompt_label(repl.state.mode)

    def toolbar(self) -> Fragments:
        return toolbar_fragments(self.repl.state, self.repl.busy, self.columns())

    def placeholder(self) -> Fragments:
        repl = self.repl
        question = repl.asker.current
        if question is not None and question.placeholder:
            return [("class:placeholder", question.placeholder)]
        if repl.state.hint:
            return [("class:placeholder", repl.state.hint)]
        if repl.busy:
            return [("class:placeholder", "guidance for the agent…")]
        return []

    def continuation(self, width: int, line_number: int, wrap_count: int) -> Fragments:
        return [("class:placeholder", "… ".rjust(width))]

    def _size(self) -> Any:
        try:
            return self.repl.session.app.output.get_size()
        except Exception:
            return None

    def rows(self) -> int:
        size = self._size()
        return size.rows if size else 24

    def columns(self) -> int:
        size = self._size()
        return size.columns if size else 80
