"""What the prompt area shows, computed at every redraw: the live part of the agent's output,
a waiting question or the working indicator, the mode label, the placeholder, the toolbar."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text

from cast.repl.toolbar import prompt_label, toolbar_fragments
from cast.text import terminal_safe

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from cast.repl.ask import Asker, Question
    from cast.repl.screen import Screen
    from cast.repl.state import ReplState
    from cast.ui.render import Renderer

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_SECONDS = 0.12
WORKING = "working · Esc interrupts · a message you send is queued as guidance"
RESERVED_ROWS = 10  # rows kept free for the input, the question and the completion menu

Fragments = StyleAndTextTuples  # prompt-toolkit's (style, text[, handler]) list


def hard_wrap(text: str, width: int, indent: str) -> str:
    """Every character of `text`, cut at the width: the prompt area crops long lines, and the
    command a user approves must be shown whole."""
    width = max(10, width)
    rows = [line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width)]
    return "\n".join(indent + row for row in rows)


def word_wrap(text: str, width: int) -> str:
    """Wrap at spaces; a word longer than the line breaks after a `/` (a path), else at the width
    (nothing is dropped)."""
    from cast.ui.wrapping import wrap  # deferred: keeps cast.ui.wrapping off the REPL's first prompt

    return wrap(text, width)


def menu_rows(labels: list[str], width: int) -> list[list[str]]:
    """Choices laid out in rows that fit `width`, joined by " · "; a label wider than the
    line gets a row of its own (and wraps there) rather than being cut."""
    rows: list[list[str]] = [[]]
    used = 0
    for label in labels:
        extra = len(label) + (3 if rows[-1] else 0)
        if rows[-1] and used + extra > width:
            rows.append([])
            used, extra = 0, len(label)
        rows[-1].append(label)
        used += extra
    return [row for row in rows if row]


def hint_wrap(text: str, width: int) -> str:
    """A hint is parts joined by " · " ("a key, then Enter · Esc: no"): too long for one line,
    it breaks between parts, so a key stays with what it does."""
    if len(text) <= width:
        return text
    return "\n".join(word_wrap(" · ".join(row), width) for row in menu_rows(text.split(" · "), width))


class Repl(Protocol):
    """What the prompt area reads of the REPL (app.py's Repl) at every redraw."""

    state: ReplState
    asker: Asker
    screen: Screen
    session: PromptSession[str]

    @property
    def busy(self) -> bool: ...

    @property
    def renderer(self) -> Renderer: ...

    def live(self) -> Any: ...

    def buffer_text(self) -> str: ...


class PromptView:
    def __init__(self, repl: Repl):
        self.repl = repl

    def message(self) -> Fragments:
        try:
            return self._message()
        except Exception:  # never let a drawing problem take the prompt down
            return prompt_label(self.repl.state.mode)

    def _message(self) -> Fragments:
        repl = self.repl
        fragments: Fragments = []
        live = repl.live()
        if live is not None:
            lines = repl.screen.render(live).rstrip("\n").split("\n")
            room = max(3, self.rows() - RESERVED_ROWS)
            fragments += to_formatted_text(ANSI("\n".join(lines[-room:]) + "\n"))
        question = repl.asker.current
        if question is not None:
            fragments += self._question(question)
        elif repl.busy:
            frame = SPINNER[int(time.monotonic() / TICK_SECONDS) % len(SPINNER)]
            working = f"{frame} {WORKING}"  # broken between its parts when narrow: never cut at the edge
            checking = repl.renderer.checking  # the model is done; cast's own check of its work: no spinner
            fragments.append(
                ("class:working", hint_wrap(f"· {checking}" if checking else working, max(20, self.columns() - 1)) + "\n")
            )
        return fragments + prompt_label(repl.state.mode)

    def _question(self, question: Question) -> Fragments:
        """Title, the command whole, every choice (wrapped, never cut), and what Enter would do
        with what is typed now."""
        width = max(20, self.columns() - 1)
        fragments: Fragments = [("class:question", word_wrap(terminal_safe(question.title), width) + "\n")]
        if question.detail:  # the command or path asked about is the model's: text only, bidi overrides included
            fragments.append(("class:question.detail", hard_wrap(terminal_safe(question.detail), width - 2, "  ") + "\n"))
        typed = self.repl.buffer_text().strip()
        chosen = question.choice_for(typed) if typed else None
        labels = question.labels()
        chosen_label = labels[question.choices.index(chosen)] if chosen is not None else None
        for row in menu_rows(labels, width):
            for n, label in enumerate(row):
                if n:
                    fragments.append(("class:question.keys", " · "))
                selected = label == chosen_label
                shown = word_wrap(label, width) if len(label) > width else label
                fragments.append(("class:question.selected" if selected else "class:question.keys", shown))
            fragments.append(("", "\n"))
        if chosen is not None:
            note = f"Enter: {chosen.label}"
        elif typed and not typed.startswith("/"):
            note = "Enter sends this as your answer (text, not a choice)"
        else:
            note = question.hint
        if note:
            fragments.append(("class:question.hint", hint_wrap(note, width) + "\n"))
        return fragments

    def toolbar(self) -> Fragments:
        asking = self.repl.asker.current is not None  # the agent waits for the user: not "working"
        return toolbar_fragments(self.repl.state, self.repl.busy and not asking, self.columns(), asking=asking)

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
