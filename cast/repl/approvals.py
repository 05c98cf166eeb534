"""The REPL's side of command approval: ask at the prompt, echo the answer, remember "always".

What "always" approved belongs to the interactive session, not to one run: a later /execute or
/clear keeps it, and `/permissions` (permissions.py) lists it and takes it back. The policy itself (deny list,
scopes, allow rules) lives in `cast.safety.approval`; this module only asks and remembers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cast.repl.ask import Question, approval_question, edit_question, revision_question, tall_command
from cast.safety.decision import Abilities, ApprovalAnswer, ApprovalRequest, EditRequest, Remembered, RevisionRequest
from cast.text import approval_text, command_lines

if TYPE_CHECKING:
    from cast.repl.ask import View
    from cast.repl.state import ReplState


class ReplApprover:
    """The approver a run's policy asks from the worker thread. It asks about edits too, and its
    `remembered` is picked up by every ApprovalPolicy built with it, so all runs of the session
    share it."""

    def __init__(self, view: View, state: ReplState):
        self.view = view
        self.state = state  # whose run's interrupt leaves a question
        self.remembered = Remembered()
        self.abilities = Abilities(edits=True, remembered=self.remembered)
        self.edits_auto = False  # "execute, edits auto-approved", or "all edits" at an edit question

    def ask_edit(self, request: EditRequest) -> ApprovalAnswer:
        """Apply this change? The diff goes into the scrollback first, so the answer is about
        what the user saw."""
        if self.edits_auto:
            return ApprovalAnswer("yes")
        if request.diff.strip():
            self.view.show(self.view.diff(request.diff))
        answer = self._ask(edit_question(request.path), request.path, "edit approved", "edit declined")
        if answer.value == "always":
            self.edits_auto = True
            self.view.say(f"✓ edit approved, and edits from now on in this session: {request.path}", "green")
        return answer

    def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        approved = "approved outside the sandbox" if request.outside_sandbox else "approved once"
        if tall_command(request.command):  # whole, into the scrollback: the question shows its start
            text = approval_text(request.command).replace("\n", "\n  ")
            self.view.say(f"The command to approve, all {command_lines(request.command)} lines:\n  {text}", "yellow")
        answer = self._ask(approval_question(request), request.command, approved, "declined")
        if answer.value == "always":
            reach = request.always_label or "exactly this command"
            self.view.say(f"✓ approved for this session ({reach}): {request.command}", "green")
        return answer

    def ask_revision(self, request: RevisionRequest) -> ApprovalAnswer:
        """The plan changed since it was approved: its item diff into the scrollback, then the question."""
        self.view.say(
            "\n".join(
                [
                    f"The plan changed since you approved it (now revision {request.current}, by the {request.author}):",
                    *(f"  {c}" for c in request.changes),
                ]
            ),
            "yellow",
        )
        subject = f"revision {request.current} of {request.plan}"
        answer = self._ask(revision_question(request.approved), subject, "plan revision approved", "plan revision not approved")
        return ApprovalAnswer("yes" if answer.approved else "no", answer.note)

    def _ask(self, question: Question, subject: str, approved: str, declined: str) -> ApprovalAnswer:
        """Ask at the prompt (an interrupt leaves the question) and echo every answer but
        "always" into the scrollback; the caller says what "always" now covers."""
        view = self.view
        run = self.state.run
        reply = view.ask(question, run.cancelled if run is not None else None)
        if reply.value == "yes":
            view.say(f"✓ {approved}: {subject}", "green")
        elif reply.value != "always" and reply.text:
            view.say(f"✗ {declined}: {subject}\n  told the agent instead: {reply.text}", "red")
        elif reply.value != "always":
            view.say(f"✗ {declined}{' (left the question)' if reply.left else ''}: {subject}", "red")
        return ApprovalAnswer("always" if reply.value == "always" else "yes" if reply.value == "yes" else "no", reply.text)
