"""Questions asked from the worker thread and answered at the prompt.

The agent runs in a worker thread; the terminal belongs to the prompt. So a question (approve this
command? what now with the plan?) is state: the worker posts it and waits, the prompt shows it
above the input, a key press answers it. Leaving (Ctrl+C, Esc, Ctrl+D) gives the question's
`on_leave` answer, which is never an approval.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

POLL_SECONDS = 0.1


@dataclass(frozen=True)
class Reply:
    value: str
    text: str = ""  # typed text that came with the answer (feedback for the plan)


@dataclass
class Question:
    title: str  # what is asked, shown above the prompt
    choices: dict[str, str]  # key -> answer value
    labels: str  # how the choices read: "[y]es · [n]o · [a]lways"
    on_leave: str  # the answer when the user interrupts
    on_text: Callable[[str], Reply | None] = lambda text: None  # a typed line that answers it
    detail: str = ""  # shown under the title (the command to approve)
    placeholder: str = ""  # what typing at the prompt would do meanwhile
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None


class Asker:
    def __init__(self, on_change: Callable[[], None] = lambda: None):
        self.on_change = on_change
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
                self._current = question
            self.on_change()
            try:
                while not question.done.wait(POLL_SECONDS):
                    if cancel is not None and cancel.is_set():
                        self._resolve(question, Reply(question.on_leave))
            finally:
                with self._lock:
                    self._current = None
                self.on_change()
            assert question.reply is not None
            return question.reply

    def answer_key(self, key: str) -> bool:
        question = self._current
        if question is None or key not in question.choices:
            return False
        return self._resolve(question, Reply(question.choices[key]))

    def answer_text(self, text: str) -> bool:
        """A typed line: answers the question if it is one of its answers."""
        question = self._current
        if question is None:
            return False
        reply = question.on_text(text)
        return reply is not None and self._resolve(question, reply)

    def leave(self) -> bool:
        question = self._current
        return question is not None and self._resolve(question, Reply(question.on_leave))

    def _resolve(self, question: Question, reply: Reply) -> bool:
        with self._lock:
            if question.done.is_set():
                return False
            question.reply = reply
            question.done.set()
        return True


def approval_question(command: str) -> Question:
    words = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "a": "always", "always": "always"}
    return Question(
        title="cast wants to run a command that is not provably read-only:",
        detail=command,
        choices={"y": "yes", "n": "no", "a": "always"},
        labels="[y]es · [n]o · [a]lways for this command   (Esc / Ctrl+C: no)",
        on_leave="no",
        placeholder="y / n / a — a message you send instead is queued as guidance",
        on_text=lambda text: Reply(words[text.strip().lower()]) if text.strip().lower() in words else None,
    )
