"""Questions asked from the worker thread and answered at the prompt.

The agent runs in a worker thread; the terminal belongs to the prompt. So a question (approve this
command? what now with the plan?) is state: the worker posts it and waits, the prompt shows it
above the input, and the user answers it with a line.

Each choice has a number that answers at once, one key press, no Enter: `1` yes, `2` no, and so
on, as the menu shows them. A letter is the start of a sentence ("actually, run it with -x first"),
so letters answer only alone on the line with Enter (`y` Enter, or the word `yes`), and anything
longer is text that means what it says: the question's `on_text` decides what (feedback on the
plan, or "no, do this instead"). Leaving (Ctrl+C, Esc, Ctrl+D) gives the question's `on_leave`
answer, which is never an approval.

Typing ahead stays safe: a number answers at once only on an empty line and only once the question
has been on the screen for `GRACE_SECONDS`. A key typed before it appeared is in the line already
(so the line is not empty), and one typed in the grace period after is typed into the line as text:
neither answers a question the user had not yet seen.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from cast.text import approval_text, command_lines

if TYPE_CHECKING:
    from cast.safety.decision import ApprovalRequest

POLL_SECONDS = 0.1
GRACE_SECONDS = 0.5  # a number key pressed sooner than this after the question appeared is text


@dataclass(frozen=True)
class Reply:
    value: str
    text: str = ""  # typed text that came with the answer (plan feedback, what to do instead)
    left: bool = False  # the question was left (Esc, Ctrl+C), not answered
    key: str = ""  # the key that left it ("Esc", "Ctrl+C"), when a key did


@dataclass(frozen=True)
class Choice:
    key: str  # one character: typed alone, then Enter
    value: str
    label: str  # how the menu shows it: "[y]es, once"
    words: tuple[str, ...] = ()  # whole words that mean the same ("yes")

    def matches(self, typed: str) -> bool:
        typed = typed.strip().lower()
        return typed == self.key or typed in self.words


@dataclass
class Question:
    title: str  # what is asked, shown above the prompt
    choices: tuple[Choice, ...]
    on_leave: str  # the answer when the user interrupts
    on_text: Callable[[str], Reply | None] = lambda text: None  # what a longer line means
    detail: str = ""  # shown under the title, whole (the command to approve)
    hint: str = ""  # how to answer, shown after the choices
    placeholder: str = ""  # what typing at the prompt would do
    commands_leave: bool = False  # a slash command that must wait leaves the question (the plan hand-off)
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None
    shown_at: float | None = None  # when it was put on the screen (time.monotonic)

    def choice_for(self, typed: str) -> Choice | None:
        typed = typed.strip()
        if typed.isdigit() and 1 <= int(typed) <= len(self.choices):
            return self.choices[int(typed) - 1]
        return next((c for c in self.choices if c.matches(typed)), None)

    def labels(self) -> list[str]:
        """The menu: each choice after the number that answers it at once."""
        return [f"{n} {c.label}" for n, c in enumerate(self.choices, 1)]


class View(Protocol):
    """What a job may do with the screen and the user, and nothing else: say a line, show a
    renderable (Markdown and diffs rendered by `markdown` and `diff`), echo what the user sent,
    ask a question (blocking the job until it is answered or `cancel` is set). The
    REPL is one; a test's recorder is another, so a job's words and questions are tested without
    a terminal."""

    def say(self, text: str, style: str = "") -> None: ...

    def show(self, renderable: Any) -> None: ...

    def ask(self, question: Question, cancel: threading.Event | None = None) -> Reply: ...

    def echo(self, text: str) -> None:
        """What the user sent, into the scrollback after the mode label."""

    def markdown(self, text: str) -> Any:
        """`text` rendered as Markdown, to `show`."""

    def diff(self, text: str) -> Any:
        """A unified diff rendered, to `show`."""


class Asker:
    def __init__(
        self,
        on_change: Callable[[], None] = lambda: None,
        on_answered: Callable[[], None] = lambda: None,
        on_asked: Callable[[], None] = lambda: None,
    ):
        self.on_change = on_change
        self.on_asked = on_asked  # the waiting command's clock stops: the user is being asked
        self.on_answered = on_answered  # a command approved now starts now: its clock restarts
        self._current: Question | None = None
        self._turn = threading.Lock()  # one question at a time
        self._lock = threading.Lock()

    @property
    def current(self) -> Question | None:
        return self._current

    def ask(self, question: Question, cancel: threading.Event | None = None) -> Reply:
        """Block until the question is answered (or `cancel` is set: then it is left)."""
        with self._turn:
            with self._lock:
                question.shown_at = time.monotonic()
                self._current = question
            self.on_asked()
            self.on_change()
            try:
                while not question.done.wait(POLL_SECONDS):
                    if cancel is not None and cancel.is_set():
                        self._resolve(question, Reply(question.on_leave, left=True))
            finally:
                with self._lock:
                    self._current = None
                self.on_answered()
                self.on_change()
            assert question.reply is not None
            return question.reply

    def answer_text(self, text: str) -> bool:
        """A line typed while a question waits: a choice when it is one key (or word) alone,
        otherwise whatever the question says text means. False when nothing was answered."""
        question = self._current
        if question is None or not text.strip():
            return False
        choice = question.choice_for(text)
        reply = Reply(choice.value) if choice is not None else question.on_text(text.strip())
        return reply is not None and self._resolve(question, reply)

    def answer_key(self, key: str, now: float | None = None) -> bool:
        """A number key pressed on an empty line: the choice it names, at once, once the question
        has been shown for the grace period. False (type it as text) otherwise."""
        question = self._current
        if question is None or question.shown_at is None or not key.isdigit():
            return False
        if (time.monotonic() if now is None else now) - question.shown_at < GRACE_SECONDS:
            return False
        choice = question.choice_for(key)
        return choice is not None and self._resolve(question, Reply(choice.value))

    def leave(self, text: str = "", key: str = "") -> bool:
        """Leave the question with its `on_leave` answer; `text` says why (a slash command), `key`
        which key left it."""
        question = self._current
        return question is not None and self._resolve(question, Reply(question.on_leave, text, left=True, key=key))

    def _resolve(self, question: Question, reply: Reply) -> bool:
        with self._lock:
            if question.done.is_set():
                return False
            question.reply = reply
            question.done.set()
        return True


TALL_LINES = 8  # a command taller than this (or longer than TALL_CHARS) is printed whole above its question
TALL_CHARS = 640  # about eight rows of an 80-column terminal
EXCERPT_LINES, EXCERPT_CHARS = 3, 120  # what the question itself shows of a tall command


def tall_command(command: str) -> bool:
    """Too tall for the question to show whole with its choices on a 24-row terminal: the REPL
    prints it into the scrollback first, and the question shows its start and says so."""

    return command_lines(command) > TALL_LINES or len(approval_text(command)) > TALL_CHARS


def approval_question(request: ApprovalRequest) -> Question:
    """Run this command? The "always" choice names exactly what it will remember, and is offered
    only where the request says an "always" can cover something; a re-run outside the sandbox is
    asked as such, with what the sandbox denied. A tall command is shown whole above the question
    (ReplApprover prints it); the question shows its first lines and how many there are, so its
    choices stay on the screen."""

    reach = request.always_label
    choices = [Choice("y", "yes", "[y]es, once", ("yes",)), Choice("n", "no", "[n]o", ("no",))]
    if reach is not None:
        choices.append(Choice("a", "always", f"[a]lways this session: {reach}", ("always",)))
    lines = command_lines(request.command)
    tall = tall_command(request.command)
    it = f"this {lines}-line command (shown whole above)" if tall else "a command"
    title = (
        f"Run it again OUTSIDE the sandbox, with no limits at all? ({request.why})"
        if request.outside_sandbox
        else f"cast wants to run {it} that is not provably read-only:"
    )
    detail = approval_text(request.command)
    if tall:
        head = [line if len(line) <= EXCERPT_CHARS else line[:EXCERPT_CHARS] + "…" for line in detail.split("\n")[:EXCERPT_LINES]]
        detail = "\n".join([*head, f"… {lines} lines in all: the whole command is printed above"])
    return Question(
        title=title,
        detail=detail,
        choices=tuple(choices),
        on_leave="no",
        on_text=lambda text: Reply("no", text),
        hint=f"press 1-{len(choices)}, or type what to do instead and Enter · Esc: no",
        placeholder=f"1-{len(choices)}, or say what to do instead",
    )


def revision_question(approved: str) -> Question:
    return Question(
        title=f"Go on with the changed plan? (you approved revision {approved}; what changed is above)",
        choices=(Choice("y", "yes", "[y]es", ("yes",)), Choice("n", "no", "[n]o, stop here", ("no",))),
        on_leave="no",
        on_text=lambda text: Reply("no", text),
        hint="press 1-2, or type what to do instead and Enter · Esc: no",
        placeholder="1-2, or say what to do instead",
    )


def edit_question(path: str) -> Question:
    return Question(
        title=f"Apply this change to {path}? (the diff is above)",
        choices=(
            Choice("y", "yes", "[y]es", ("yes",)),
            Choice("n", "no", "[n]o", ("no",)),
            Choice("a", "always", "[a]ll edits this session, without asking", ("all", "always")),
        ),
        on_leave="no",
        on_text=lambda text: Reply("no", text),
        hint="press 1-3, or type what to do instead and Enter · Esc: no",
        placeholder="1-3, or say what to do instead",
    )
