"""A run's questions on its event stream: every question the run asks goes out as an `Asked`
event and its reply as `Answered`, whoever answers it.

The answering stays where it was, in the front-end's approver (keys in the REPL, the terminal, a
program's JSON lines with `--answers stdin`); `Announced` wraps it so that the run's policy, its
task board and `ToolContext.ask` all ask through one place that numbers the questions and puts
them on the stream. A kind of question is one row of `KINDS`: the request type, its name on the
stream, and the approver's method that answers it, so a new kind (an MCP server's approval) is a
row, not a new path.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from cast.agent import events as ev
from cast.hooks.project import HookRequest
from cast.safety.decision import (
    Abilities,
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    EditRequest,
    NobodyToAsk,
    RevisionRequest,
)
from cast.trust import TrustRequest

# request type -> (its kind on the stream, the Approver method that answers it)
KINDS: dict[type, tuple[str, str]] = {
    ApprovalRequest: ("command", "ask"),
    EditRequest: ("edit", "ask_edit"),
    RevisionRequest: ("revision", "ask_revision"),
    TrustRequest: ("trust", "ask_trust"),
    HookRequest: ("hook", "ask_hook"),  # a project's hook, asked before the run as trust is
}
_NUMBERS = itertools.count(1)  # one sequence per process: the trust question and a run's share a stream
_BEFORE_RUN: list[ev.Event] = []  # questions asked before a run had a stream (trust, a project's hook, an MCP server)
_BEFORE_LOCK = threading.Lock()


def before_run() -> list[ev.Event]:
    """The questions (and answers) asked in this process before a run was attached to its
    stream, taken once: the first run's session records them, so the record of a run says every
    approval it rests on, a start-up one included."""
    with _BEFORE_LOCK:
        taken = list(_BEFORE_RUN)
        _BEFORE_RUN.clear()
    return taken


def noted(ask: Callable[[Any], bool | None]) -> Callable[[Any], bool | None]:
    """A yes/no question a front-end asks itself before a run exists (the trust question on the
    terminal), held for the run's record as one asked through `Announced` is: its answer a yes or
    a no, None when the user left it."""

    def asking(request: Any) -> bool | None:
        kind = KINDS.get(type(request), (type(request).__name__, ""))[0]
        with _BEFORE_LOCK:
            asked = ev.Asked(f"q{next(_NUMBERS)}", kind, request)
        reply = ask(request)
        answer = None if reply is None else ApprovalAnswer("yes" if reply else "no")
        with _BEFORE_LOCK:
            _BEFORE_RUN.extend((asked, ev.Answered(asked.id, kind, answer)))
        return reply

    return asking


def register(request: type, kind: str, method: str) -> None:
    """A new kind of question: `request` goes on the stream as `kind`, answered by the
    approver's `method` (or an `Answering` approver's `answer`)."""
    KINDS[request] = (kind, method)


@runtime_checkable
class Answering(Protocol):
    """An approver that answers any kind of question from the event itself (it needs the
    question's id and kind: a program reading the stream answers by id)."""

    @property
    def abilities(self) -> Abilities: ...

    def answer(self, asked: ev.Asked) -> Any: ...


class Announced:
    """The front-end's approver, every question and answer of it posted on the run's stream.
    `post` and `call_id` are set by the run for each turn (`Run.turn`)."""

    def __init__(self, inner: Approver | Answering) -> None:
        self.inner = inner
        self.post: Callable[[ev.Event], None] = lambda event: None
        self.call_id: Callable[[], str] = lambda: ""
        self.attached = False  # set by `Run.turn`: until then what is asked is also kept for the run's record
        self._lock = threading.Lock()

    def attach(self, post: Callable[[ev.Event], None], call_id: Callable[[], str]) -> None:
        """The run's stream from now on (`Run.turn`, every turn)."""
        self.post, self.call_id, self.attached = post, call_id, True

    @property
    def abilities(self) -> Abilities:
        return self.inner.abilities

    def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer: ApprovalAnswer = self.put(request)
        return answer

    def ask_edit(self, request: EditRequest) -> ApprovalAnswer:
        answer: ApprovalAnswer = self.put(request)
        return answer

    def ask_revision(self, request: RevisionRequest) -> ApprovalAnswer:
        answer: ApprovalAnswer = self.put(request)
        return answer

    def put(self, request: Any) -> Any:
        """Ask `request`, announced before and answered after on the stream. Raises
        `NobodyToAsk` for a kind this approver cannot answer."""
        kind, method = KINDS.get(type(request), (type(request).__name__, ""))
        if isinstance(self.inner, Answering):
            answer: Callable[[ev.Asked], Any] = self.inner.answer
        elif callable(getattr(self.inner, method, None)):
            answer = lambda asked: getattr(self.inner, method)(asked.request)  # noqa: E731
        else:
            raise NobodyToAsk(kind)
        with self._lock:
            asked = ev.Asked(f"q{next(_NUMBERS)}", kind, request, self.call_id())
        self._put(asked)
        reply = answer(asked)
        self._put(ev.Answered(asked.id, kind, reply))
        return reply

    def _put(self, event: ev.Event) -> None:
        if not self.attached:
            with _BEFORE_LOCK:
                _BEFORE_RUN.append(event)
        self.post(event)
