"""Who decides whether a command runs, and in which sandbox.

Policy as data: the deny lists (`catastrophic.py`) no flag or answer can unlock, then a fixed
order of reasons to run without asking (proven read-only, an allow rule, an "always" answer
given earlier, --yes), then the user. Allow rules and "always" answers reach exactly as far as
`approval_scope` says, and no further. Without a terminal and without --yes, the answer is no:
a headless run must never wait on a prompt nobody sees.

Plan mode asks nobody: a command runs when the checker proves it read-only, or, where the strong
sandbox holds it and the user has not said `plan_commands = "proven"`, sandboxed and unverified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cast.safety.approval_scope import Rule, scope_of, words_of
from cast.safety.catastrophic import catastrophic, never_in_plan
from cast.safety.decision import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Ask,
    Decision,
    EditRequest,
    Refuse,
    Remembered,
    Run,
    SandboxKind,
)

if TYPE_CHECKING:
    from cast.safety.bash_check import Verdict

__all__ = ["ApprovalPolicy", "Approver", "PlanCommands", "Remembered", "catastrophic", "decide_plan", "is_simple"]


def is_simple(command: str) -> bool:
    """One plain command, no operators: only such commands can be matched by a rule or an
    "always", otherwise `pytest; rm -rf x` would ride on an allow rule for pytest."""
    return words_of(command) is not None


@dataclass(frozen=True)
class PlanCommands:
    """Whether plan mode runs commands the checker cannot prove, and why (not)."""

    unverified: bool
    why: str


def decide_plan(command: str, verdict: Verdict, plan: PlanCommands, workspace_root: str | None = None) -> Run | Refuse:
    if why := never_in_plan(command, workspace_root):
        return Refuse(f"command refused in plan mode: {why}; cast never runs this")
    if verdict.allowed:
        return Run(SandboxKind.PROVEN, "read-only")
    if verdict.secret:
        return Refuse(f"command refused: {verdict.reason}")
    if plan.unverified:
        return Run(SandboxKind.UNVERIFIED, f"sandboxed, unverified: {verdict.reason}")
    return Refuse(
        f"command blocked in plan mode: {verdict.reason}. Plan mode here runs only commands proven read-only. "
        "Use read_file, list_files or grep, a read-only form of the command, or put the command in the plan "
        "as a step for execution.",
        f"[plan mode runs only commands the checker proves read-only: {plan.why}]",
    )


@dataclass
class ApprovalPolicy:
    allow: tuple[str, ...] = ()
    yes: bool = False
    approver: Approver | None = None
    workspace_root: str | None = None
    always: Remembered = field(default_factory=Remembered)
    sandbox: str = "off"  # "workspace-write": approved commands run in the sandbox where a layer exists
    sandbox_network: bool = False

    def __post_init__(self) -> None:
        if self.approver is not None and self.approver.abilities.remembered is not None:
            self.always = self.approver.abilities.remembered  # shared by every run of the session
        self.rules = tuple(rule for text in self.allow if (rule := Rule.parse(text)) is not None)

    @property
    def approved_sandbox(self) -> SandboxKind:
        return SandboxKind.WORKSPACE_WRITE if self.sandbox == "workspace-write" else SandboxKind.NONE

    def decide(self, command: str, verdict: Verdict) -> Decision:
        """`verdict` is the checker's on `command`. Never asks: an `Ask` is the question to put."""
        if why := catastrophic(command, self.workspace_root):
            return Refuse(f"refused: {why}; cast never runs this, even with --yes")
        if verdict.allowed:
            return Run(SandboxKind.PROVEN, "read-only")
        if verdict.secret:  # asking would let an approval, or --yes, run it outside the sandbox
            return Refuse(f"refused: {verdict.reason}, even with --yes")
        approved = self.approved_sandbox
        if any(rule.matches(command) for rule in self.rules):
            return Run(approved, "allowed by config")
        if (scope := self.always.covering(command)) is not None:
            return Run(approved, f"allowed for this session ({scope.label()})")
        if self.yes:
            return Run(approved, "--yes")
        if self.approver is None:
            return Refuse(
                "approval needed: this command is not provably read-only and cast is running "
                'without a terminal to ask. Re-run with --yes, or add an allow rule (allow = ["pytest*"]) to '
                "~/.config/cast/config.toml, or to .cast/config.toml in a workspace you trust (cast trust)"
            )
        why = f"not provably read-only: {verdict.reason}"
        return Ask(ApprovalRequest(command, self.workspace_root or "", why, scope_of(command)))

    def outside(self, command: str, denied: str) -> Ask | Refuse:
        """The sandbox seems to have denied `denied`: only the user may let the command run again
        with no sandbox. --yes and earlier "always" answers do not cover it."""
        if self.approver is None:
            return Refuse("only the user can let it run outside the sandbox (in an interactive session)")
        why = f"in the sandbox it failed on {denied}"
        return Ask(ApprovalRequest(command, self.workspace_root or "", why, None, outside_sandbox=True))

    def settle(self, decision: Decision) -> Run | Refuse:
        """Put an `Ask` to the approver and read its answer; a `Run` or `Refuse` stands."""
        if not isinstance(decision, Ask):
            return decision
        if self.approver is None:
            return Refuse("approval needed and nobody can be asked")
        return self.resolve(decision.request, self.approver.ask(decision.request))

    def resolve(self, request: ApprovalRequest, answer: ApprovalAnswer) -> Run | Refuse:
        if request.outside_sandbox:
            if answer.approved:
                return Run(SandboxKind.NONE, "re-run outside the sandbox, approved")
            return Refuse("only the user can let it run outside the sandbox (they declined)")
        if answer.value == "always" and request.always is not None:
            self.always.add(request.always)
            return Run(self.approved_sandbox, f"approved (always: {request.always.label()})")
        if answer.approved:
            return Run(self.approved_sandbox, "approved")
        if answer.note.strip():
            return Refuse("the user declined to run this command and said instead:\n" + answer.note.strip())
        return Refuse("the user declined to run this command; ask or take another approach")

    def decide_edit(self, path: str, diff: str) -> Run | Refuse:
        """A file edit: asked only when the approver asks about edits (the REPL, unless the user
        chose "edits auto-approved"); a one-shot run applies edits as it always has."""
        approver = self.approver
        if self.yes or approver is None or not approver.abilities.edits:
            return Run(SandboxKind.NONE, "edits run without asking")
        answer = approver.ask_edit(EditRequest(path, diff))
        if answer.approved:
            return Run(SandboxKind.NONE, "approved")
        if answer.note.strip():
            return Refuse(f"the user declined this change to {path} and said instead:\n" + answer.note.strip())
        return Refuse(f"the user declined this change to {path}; ask or take another approach")
