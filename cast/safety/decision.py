"""One decision per command, and it carries the sandbox the command runs in.

A command is decided once (`Run`, `Ask` or `Refuse`); what runs it reads the sandbox from the
decision, never from the wording of a reason. A question to the user is an `ApprovalRequest` that
says what runs, where, why cast asks, what an "always" would cover and whether the question is
to run it again with no sandbox at all; the user's reply is an `ApprovalAnswer`. Whoever answers
(the REPL, a terminal, a test) is an `Approver` that declares what it can do (`Abilities`)
instead of being probed for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, Protocol

from cast.safety.approval_scope import Scope, scope_of


class NobodyToAsk(Exception):
    """A question was asked in a run with nobody to answer it (no terminal, no answers on stdin).
    Here, with the questions, rather than with the tools that ask them: whoever asks (the run's
    question channel, a front-end before the run) raises it without loading the tools."""


class SandboxKind(Enum):
    """Where a command runs. Which kernel layer applies it is the runner's business."""

    PROVEN = "read-only"  # the checker proved it read-only: read-only sandbox, the proof's environment
    UNVERIFIED = "unverified"  # plan mode, strong sandbox only: workspace read-only, writes in a throwaway overlay
    WORKSPACE_WRITE = "workspace-write"  # approved, config `sandbox = "workspace-write"`
    NONE = "none"  # approved to run with no sandbox


@dataclass(frozen=True)
class Run:
    sandbox: SandboxKind
    label: str  # why it runs, for the observation and the report: "read-only", "--yes", "approved", ...


@dataclass(frozen=True)
class ApprovalRequest:
    command: str
    cwd: str
    why: str  # why cast asks instead of running it
    always: Scope | None  # what an "always" answer would cover; None: "always" is not offered
    outside_sandbox: bool = False  # run it again with no sandbox, after the sandbox denied something

    @property
    def always_label(self) -> str | None:
        """What the user is told "always" covers, or None when it is not offered."""
        if self.always is None:
            return None
        return "exactly this command" if self.always.exact else self.always.label()


@dataclass(frozen=True)
class Ask:
    request: ApprovalRequest


@dataclass(frozen=True)
class Refuse:
    reason: str
    context: str = ""  # why the rule that refused holds here: said once, not with every refusal


Decision = Run | Ask | Refuse

Reply = Literal["yes", "no", "always"]


@dataclass(frozen=True)
class ApprovalAnswer:
    """The user's answer. `note` is what they typed instead of a key: with a "no", it tells the
    model what to do instead."""

    value: Reply
    note: str = ""

    def __post_init__(self) -> None:
        if self.value not in ("yes", "no", "always"):
            raise ValueError(f"an approval answer is yes, no or always, not {self.value!r}")

    @property
    def approved(self) -> bool:
        return self.value in ("yes", "always")


@dataclass(frozen=True)
class EditRequest:
    path: str  # workspace-relative
    diff: str


@dataclass(frozen=True)
class RevisionRequest:
    """The plan changed since the user approved it: go on with the new revision? Asked before the
    next item starts, with what changed item by item."""

    plan: str
    approved: str  # the revision the user approved
    current: str  # the revision the plan is at now
    author: str  # who wrote it: "model" or "user"
    changes: tuple[str, ...]


class Remembered:
    """The scopes "always" answers approved. One instance can outlive a run: the REPL keeps its
    own for the whole interactive session, so a later /execute does not ask again, and
    /permissions lists and revokes them."""

    def __init__(self) -> None:
        self._scopes: list[Scope] = []
        self._lock = threading.Lock()

    def add(self, scope: Scope) -> None:
        with self._lock:
            if scope not in self._scopes:
                self._scopes.append(scope)

    def covering(self, command: str) -> Scope | None:
        scope = scope_of(command)
        with self._lock:
            return scope if scope is not None and scope in self._scopes else None

    def scopes(self) -> list[Scope]:
        with self._lock:
            return list(self._scopes)

    def revoke(self, scope: Scope) -> bool:
        with self._lock:
            if scope in self._scopes:
                self._scopes.remove(scope)
                return True
            return False

    def __len__(self) -> int:
        with self._lock:
            return len(self._scopes)


@dataclass(frozen=True)
class Abilities:
    edits: bool = False  # asks before a file edit (otherwise edits apply without asking)
    remembered: Remembered | None = None  # "always" answers kept beyond one run (the REPL's session)


class Approver(Protocol):
    """Whoever answers an approval. Every run built with it shares `abilities.remembered`."""

    @property
    def abilities(self) -> Abilities: ...

    def ask(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    def ask_edit(self, request: EditRequest) -> ApprovalAnswer: ...

    def ask_revision(self, request: RevisionRequest) -> ApprovalAnswer: ...


@dataclass
class Answers:
    """An approver from a function of the request: a test, or a front-end with nothing to remember.
    It does not ask about edits unless told it can, and goes on with a changed plan unless given
    `revision`."""

    reply: Callable[[ApprovalRequest], ApprovalAnswer | Reply]
    abilities: Abilities = field(default_factory=Abilities)
    revision: Callable[[RevisionRequest], ApprovalAnswer | Reply] = lambda request: "yes"  # a changed plan: go on, unless told

    def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer = self.reply(request)
        return answer if isinstance(answer, ApprovalAnswer) else ApprovalAnswer(answer)

    def ask_edit(self, request: EditRequest) -> ApprovalAnswer:
        return ApprovalAnswer("yes")

    def ask_revision(self, request: RevisionRequest) -> ApprovalAnswer:
        answer = self.revision(request)
        return answer if isinstance(answer, ApprovalAnswer) else ApprovalAnswer(answer)
