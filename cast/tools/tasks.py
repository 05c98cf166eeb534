"""The plan's checklist as the executor's task list, and update_task to move through it.

The plan file is the truth for what is done: `done` ticks it on disk at once, so a run killed a
moment later resumes after that item. `in_progress` and `blocked` are this run's working state and
go to the session, not into the user's file.

A tick must rest on something observed since the item went in progress (see evidence.py); without
that the tool says what is missing instead of ticking, unless the model explains in a note why
the item is done anyway, and then the report lists it as ticked without evidence.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from cast.plans.checklist import PlanError, PlanFile
from cast.plans.revisions import Revisions, item_diff, revision_id
from cast.safety.decision import ApprovalAnswer, RevisionRequest
from cast.text import plural
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError
from cast.tools.evidence import ItemEvidence, Ledger, item_body, judge, named_checks, named_files
from cast.tools.results import TaskUpdated

Row = tuple[int, str, str, str]  # number, text, status, note


class TaskBoard:
    """The executor's checklist over the plan file. Its ticks rest on the run's `ledger`, handed in
    by whoever owns the run (cast.runs): the board reads what the run observed, the report and
    the self-check read the same one, and the board never keeps a ledger of its own."""

    def __init__(self, plan_path: Path, ledger: Ledger):
        self.plan = PlanFile(plan_path)
        self.status: dict[str, tuple[str, str]] = {}  # item text -> (in_progress|blocked, note)
        self.version = 0
        self.lost = ""  # why the plan file cannot be read now, once sync has said so
        self.ledger = ledger  # the run's: fed with every tool result by the run, not by the board
        self.evidence: dict[str, ItemEvidence] = {}  # item text -> what its tick rested on
        self.on_evidence: Callable[[Mapping[str, ItemEvidence]], None] | None = None  # the session keeps it
        self._started: dict[str, int] = {}  # item text -> ledger position when it went in_progress
        self._last_tick = 0  # ledger position of the last tick: where an item never started begins
        self.revisions: Revisions | None = None  # set by the run: hand edits it notices become revisions
        # The revision the user approved (at the hand-off, by starting the run, or with --revision);
        # a plan at another one is shown and confirmed before the next item starts.
        self.approved: str | None = None
        self.pinned = False  # --revision: with nobody to ask, a changed plan stops the run
        self.confirm: Callable[[RevisionRequest], ApprovalAnswer] | None = None  # asks the user; None: nobody can be asked
        self.halted = ""  # why the run must stop now (a changed plan not approved): `take_halt` hands it on once
        # Files changed since an item's checkpoint by an earlier run (killed mid-item); set by the run.
        self.earlier: Callable[[int], list[str]] = lambda number: []
        self._lock = threading.Lock()

    def take_halt(self) -> str:
        """Why the run must stop now ("" for go on), said once: the loop's stop condition asks
        after each batch of calls (agent/tasklist.halting)."""
        with self._lock:
            halted, self.halted = self.halted, ""
        return halted

    def rows(self) -> list[Row]:
        rows = []
        for item in self.plan.items:
            status, note = ("done", "") if item.checked else self.status.get(item.text, ("pending", ""))
            rows.append((item.number, item.text, status, note))
        return rows

    def evidence_for(self, text: str) -> ItemEvidence | None:
        """What the tick of the item `text` rested on; None when it was not ticked in this session."""
        return self.evidence.get(text)

    def recall(self, recorded: Any) -> None:
        """The evidence a session's meta kept (`ItemEvidence.to_dict` per item text), when the
        session is resumed: the earlier ticks keep showing what they rested on, and the next tick's
        record keeps them. Entries that are not evidence are left out."""
        if not isinstance(recorded, dict):
            return
        for text, data in recorded.items():
            found = ItemEvidence.from_dict(data)
            if isinstance(text, str) and found is not None:
                self.evidence.setdefault(text, found)

    def checks(self, number: int) -> list[str]:
        """The verification commands item `number` names, as the plan says now."""
        item = self.plan.items[number - 1]
        raw = self.plan._raw.decode("utf-8", "replace")
        return named_checks(item.text, item_body(raw, item.line))

    def _judge(self, number: int, note: str) -> ItemEvidence:
        """What the tick of item `number` rests on; ToolError when nothing and no note."""
        item = self.plan.items[number - 1]
        since = self._started.get(item.text, self._last_tick)
        found = judge(self.ledger, since, self.checks(number), named_files(item.text))
        if found.missing:  # what an earlier run of this item left on disk counts too
            earlier = self.earlier(number)
            if earlier:
                found = judge(self.ledger, since, self.checks(number), named_files(item.text), earlier)
        found.note = note
        if found.missing and not note:
            raise ToolError(
                f"task {number} not ticked: {found.missing}. Do what is missing and tick it again; if it is "
                "done all the same, tick it with a note saying why (it is then reported as ticked without evidence)."
            )
        return found

    def remaining(self) -> list[Row]:
        return [row for row in self.rows() if row[2] != "done"]

    def listing(self) -> str:
        marks = {"done": "[x]", "pending": "[ ]", "in_progress": "[~]", "blocked": "[!]"}
        return "\n".join(
            f"{number}. {marks[status]} {text}" + (f"  (blocked: {note})" if status == "blocked" and note else "")
            for number, text, status, note in self.rows()
        )

    def sync(self) -> list[str]:
        """Pick up hand edits made to the plan file while the run goes on. A plan that vanished
        or cannot be read is reported once, not after every step; the rows stay as last read
        until it is back."""
        with self._lock:
            if not self.plan.changed_on_disk():
                if not self.lost:
                    return []
                self.lost = ""  # back exactly as it was last read
                self.version += 1
                return [f"the plan file {self.plan.path} is back, unchanged"]
            try:
                changes = self.plan.reload()
            except PlanError as exc:
                if self.lost:
                    return []
                self.lost = str(exc)
                self.version += 1
                return [f"{exc}; the task list below is as it was last read, and items cannot be ticked until the file is back"]
            if self.lost:
                self.lost = ""
                changes = [f"the plan file {self.plan.path} is back", *changes]
            if self.revisions is not None:
                revision, new = self.revisions.record("user", self.plan._raw)
                if new:
                    changes.append(f"the plan is now revision {revision.id}, written by the user")
            self.version += 1
            return changes

    def _still_approved(self) -> None:
        """Before an item starts: is the plan still at the revision the user approved? If not, ask
        (with the item diff); with nobody to ask, go on as with any hand edit, unless the run was
        pinned to the revision."""
        if self.approved is None or self.revisions is None:
            return
        try:
            data = self.plan.path.read_bytes()
        except OSError:
            return  # a lost plan is reported by sync and update
        now = revision_id(data)
        if now == self.approved:
            return
        newest = self.revisions.record("user", data)[0]
        try:
            changes = tuple(item_diff(self.revisions.text(self.approved), data))
        except PlanError:
            changes = ("(the approved revision's text is not in cast's state)",)
        request = RevisionRequest(self.plan.path.name, self.approved, now, newest.author, changes)
        answer = self.confirm(request) if self.confirm is not None else None
        agreed = answer.approved if answer is not None else not self.pinned
        if not agreed and answer is not None and answer.note:  # "no, do this instead": the model is told, the run goes on
            raise ToolError(
                f"not started: the plan changed since revision {self.approved} was approved (now {now}: {'; '.join(changes)}); "
                f"the user did not approve the change, and the user said instead: {answer.note}"
            )
        if not agreed:
            why = f"the run is pinned to revision {self.approved}" if self.confirm is None else "the user said no"
            self.halted = f"the changed plan was not approved, {why}: {'; '.join(changes)}"
            raise ToolError(
                f"not started: the plan changed since revision {self.approved} was approved (now {now}: {'; '.join(changes)}) "
                "and the user has not approved the change. Stop here and say so; do not work around it."
            )
        self.approved = now

    def update(self, number: int, status: str, note: str) -> str:
        note = " ".join(note.split())  # one line: the report and the task list print it as part of theirs
        if status == "in_progress":
            self._still_approved()
        with self._lock:
            if not 1 <= number <= len(self.plan.items):
                raise ToolError(
                    f"no task {number}: the plan has {plural(len(self.plan.items), 'item')} (ids are 1-based item numbers)"
                )
            item = self.plan.items[number - 1]
            if item.checked:  # a second tick would move where the item's change ends past later items' work
                raise ToolError(
                    f"task {number} is already ticked in the plan and stays as it was; to redo it, the user unticks it "
                    f"in {self.plan.path.name}"
                )
            judged = status == "done" and not item.checked and self.plan.path.exists()  # a lost plan says so below
            found = self._judge(number, note) if judged else None
            try:
                changes = self.plan.set_checked(number) if status == "done" else []
            except PlanError as exc:
                self.version += 1
                if not self.plan.path.exists():
                    self.lost = self.lost or str(exc)  # the model hears it here; sync need not repeat it
                raise ToolError(f"{exc}\nCurrent task list:\n{self.listing()}") from None
            if status == "done" and self.plan.last_set is not None:  # re-mapped if the file changed
                item = self.plan.last_set
            if status == "done":
                self.status.pop(item.text, None)
                self.evidence[item.text] = found or ItemEvidence()
                self._last_tick = self.ledger.mark()
            else:
                self.status[item.text] = (status, note)
                if status == "in_progress":
                    self._started[item.text] = self.ledger.mark()
            self.version += 1
            if found is not None and self.on_evidence:
                self.on_evidence(dict(self.evidence))
        text = f"task {item.number} {status}: {item.text}"
        if status == "done":
            text += f" — ticked in {self.plan.path.name}"
            if found is not None:
                text += "\n" + ("evidence: " + found.summary() if found.supported else found.summary())
        if changes:
            text += (
                "\nThe plan file was edited by hand meanwhile: " + "; ".join(changes) + f"\nCurrent task list:\n{self.listing()}"
            )
        left = self.remaining()
        text += f"\n{len(left)} of {plural(len(self.plan.items), 'item')} left" + (
            f"; next: {left[0][0]}. {left[0][1]}" if left else ""
        )
        return text


class UpdateTaskParams(Params):
    id: int = Field(ge=1, description="The item's 1-based number in the task list.")
    status: Literal["in_progress", "done", "blocked"]
    note: str = Field("", description="Why it is blocked; or, for done without the evidence asked for, why it is done anyway.")


def update_task(args: UpdateTaskParams, board: TaskBoard | None) -> Observation:
    if board is None:
        raise ToolError("there is no plan in this session; update_task works on a plan's checklist")
    number, status = args.id, args.status
    if status == "blocked" and not args.note:
        raise ToolError("say why the task is blocked in note")
    text = board.update(number, status, args.note)
    return Observation(text, summary=f"task {number} {status}", result=TaskUpdated(number, status))


def update_task_tool(board: TaskBoard | None) -> Tool[UpdateTaskParams]:
    """update_task over `board`, the checklist of the run that builds it (None: a run with no plan)."""

    def execute(args: UpdateTaskParams, ctx: ToolContext) -> Observation:
        return update_task(args, board)

    return Tool(
        "update_task",
        "Record progress on a plan item: in_progress when you start it, done when it is finished and "
        "verified (this ticks it in the plan file), blocked with a note when it cannot be done. A tick "
        "needs evidence since the item went in_progress: a file changed or a command that exited 0, and "
        "the last run of any verification the item names must have passed; otherwise the tool says what "
        "is missing.",
        UpdateTaskParams,
        execute,
        access=Access.WRITE,  # it ticks the plan file: execute mode's, never plan mode's
    )


UPDATE_TASK = update_task_tool(None)  # in no run: it says there is no plan
