"""Who decides whether an execute-mode command runs.

Policy as data: a deny list of catastrophic commands no flag or answer can unlock, then a fixed
order of reasons to run without asking (proven read-only, an allow rule, an "always" answer
given earlier, --yes), then the user. Allow rules and "always" answers reach exactly as far as
`approval_scope` says, and no further. Without a terminal and without --yes, the answer is no:
a headless run must never wait on a prompt nobody sees.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from cast.safety.approval_scope import Rule, Scope, scope_of, words_of

# (pattern, why). Matched against the command with runs of whitespace collapsed.
CATASTROPHIC: tuple[tuple[str, str], ...] = (
    (
        r"\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z-]+\s+)*(/|/\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|\.|\./|\.\.|\*)(\s|$|;|&|\|)",
        "recursive rm of /, ~, the workspace or everything in it",
    ),
    (r"\brm\s+.*--recursive\b.*\s(/|~|\$HOME|\.)(\s|$)", "recursive rm of /, ~ or the workspace"),
    (r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)", "force-push rewrites shared history"),
    (r"(^|[;&|(]\s*)(sudo|doas|su)\b", "privilege escalation"),
    (r"\bmkfs(\.\w+)?\b", "formats a filesystem"),
    (r"\bdd\b.*\bof=/dev/", "writes onto a device"),
    (r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk)", "writes onto a device"),
    (r":\s*\(\s*\)\s*\{.*:\s*\|\s*:.*&", "fork bomb"),
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stops the machine"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chmod of /"),
    (r"\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of /"),
)


def catastrophic(command: str, workspace_root: str | None = None) -> str | None:
    """The reason a command is on the deny list, or None."""
    flat = " ".join(command.split())
    for pattern, why in CATASTROPHIC:
        if re.search(pattern, flat):
            return why
    if workspace_root and re.search(r"\brm\s+.*-[a-zA-Z]*[rR]", flat):
        root = workspace_root.rstrip("/")
        if re.search(rf"\s{re.escape(root)}/?(\*)?(\s|$)", flat):
            return "recursive rm of the workspace root"
    return None


def is_simple(command: str) -> bool:
    """One plain command, no operators: only such commands can be matched by a rule or an
    "always", otherwise `pytest; rm -rf x` would ride on an allow rule for pytest."""
    return words_of(command) is not None


@dataclass(frozen=True)
class Answer:
    """The user's answer. `note` is what they typed instead of a key: with a "no", it tells the
    model what to do instead."""

    value: str  # "yes" | "no" | "always"
    note: str = ""


Approver = Callable[[str], "str | Answer"]  # command -> "yes" | "no" | "always" | Answer


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


@dataclass
class Decision:
    run: bool
    reason: str


@dataclass
class ApprovalPolicy:
    allow: tuple[str, ...] = ()
    yes: bool = False
    approver: Approver | None = None
    workspace_root: str | None = None
    always: Remembered = field(default_factory=Remembered)
    sandbox: str = "off"  # "workspace-write": approved commands run in the sandbox (cast/tools/shell.py)
    sandbox_network: bool = False

    def __post_init__(self) -> None:
        shared = getattr(self.approver, "remembered", None)  # an approver that remembers across runs
        if isinstance(shared, Remembered):
            self.always = shared
        self.rules = tuple(rule for text in self.allow if (rule := Rule.parse(text)) is not None)

    def decide(self, command: str, read_only: Callable[[str], bool]) -> Decision:
        if why := catastrophic(command, self.workspace_root):
            return Decision(False, f"refused: {why}; cast never runs this, even with --yes")
        if read_only(command):
            return Decision(True, "read-only")
        if any(rule.matches(command) for rule in self.rules):
            return Decision(True, "allowed by config")
        if (scope := self.always.covering(command)) is not None:
            return Decision(True, f"allowed for this session ({scope.label()})")
        if self.yes:
            return Decision(True, "--yes")
        if self.approver is None:
            return Decision(
                False,
                (
                    "approval needed: this command is not provably read-only and cast is running "
                    "without a terminal to ask. Re-run with --yes, or add an allow rule to "
                    '.cast/config.toml (allow = ["pytest*"])'
                ),
            )
        answer = self.approver(command)
        if isinstance(answer, str):
            answer = Answer(answer)
        if answer.value == "always" and (scope := scope_of(command)) is not None:
            self.always.add(scope)
            return Decision(True, f"approved (always: {scope.label()})")
        if answer.value in ("yes", "always"):
            return Decision(True, "approved")
        if answer.note.strip():
            return Decision(False, "the user declined to run this command and said instead:\n" + answer.note.strip())
        return Decision(False, "the user declined to run this command; ask or take another approach")

    def decide_edit(self, path: str, diff: str) -> Decision:
        """A file edit: asked only when the approver asks about edits (the REPL, unless the user
        chose "edits auto-approved"); a one-shot run applies edits as it always has."""
        ask = getattr(self.approver, "approve_edit", None)
        if self.yes or ask is None:
            return Decision(True, "edits run without asking")
        answer = ask(path, diff)
        if isinstance(answer, str):
            answer = Answer(answer)
        if answer.value in ("yes", "always"):
            return Decision(True, "approved")
        if answer.note.strip():
            return Decision(False, f"the user declined this change to {path} and said instead:\n" + answer.note.strip())
        return Decision(False, f"the user declined this change to {path}; ask or take another approach")
