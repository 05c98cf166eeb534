"""Undo, redo and diff of plan items, for the CLI and the REPL alike.

An undo is prepared first (what would change, what is refused and why) and applied only after the
user saw it, so both front-ends can show the diffstat and ask. The tree and the plan file must
agree afterwards: the files go back to the checkpoint before the item, and that item and every
later one ticked since the checkpoint are unticked, byte for byte (the plan's other bytes, hand
edits included, stay; a later item that was already ticked at the checkpoint keeps its tick, as
its work is older than the checkpoint and stays in the tree).

Files changed outside cast since the checkpoint (the journal's `outside` paths) are refused unless
forced: an undo must never throw away a user's own edit without being told to. Files over the
size cap were never snapshotted and are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cast.agent.git_baseline import format_stat
from cast.checkpoints.journal import History, Journal, Record
from cast.checkpoints.shadow import Change
from cast.plans.checklist import PlanError, PlanFile
from cast.plans.store import find_plan

CHANGE_NAMES = {"A": "removed", "D": "recreated", "M": "restored", "T": "restored"}  # what restoring does to each path


class UndoError(Exception):
    """Nothing can be undone or redone as asked; the message says why and what can be. `exit_code`
    2 when what was asked names nothing (no such plan, no such item): a usage error."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _no_checkpoint(journal: Journal, key: str, item: int, known: str = "") -> UndoError:
    """Item `item` has no checkpoint: a usage error when the plan has no such item."""
    count = len(_checks(journal.plan_path(key)))
    if count and item > count:
        return UndoError(f"{key} has no item {item}: it has {count} item{'s' * (count != 1)}", 2)
    history = journal.history()
    if any(r["kind"] == "undo" and r.get("plan") == key and r.get("item", item + 1) <= item for r in history.records):
        redo = " (cast redo puts it back)" if history.redo else ""
        return UndoError(f"item {item} of {key} was undone: its changes are no longer in the tree{redo}")
    return UndoError(f"item {item} of {key} has no checkpoint" + (f" (items with one: {known})" if known else ""))


@dataclass
class Restore:
    """A prepared undo or redo: apply it with `apply`."""

    kind: str  # "undo" or "redo"
    plan: str
    item: int
    target: Record  # the record whose tree the files go back to
    now: Record  # the probe taken while preparing
    changes: list[Change]
    refused: list[str]
    uncovered: list[str]  # over the size cap: never touched
    items: list[int] = field(default_factory=list)  # unticked (undo) or ticked again (redo)
    stat: str = ""
    undo_seq: int | None = None  # for redo: the undo it reverses
    external: list[str] = field(default_factory=list)  # MCP calls since the checkpoint: outside the tree

    @property
    def applied(self) -> list[Change]:
        refused = set(self.refused)
        return [c for c in self.changes if c.path not in refused]

    def to_json(self, status: str) -> dict[str, object]:
        """`cast undo --json` / `cast redo --json`'s object; `status` is "done", "preview" (not
        applied: --yes was not given) or "nothing_to_change"."""
        return {
            "type": self.kind,
            "status": status,
            "plan": self.plan,
            "item": self.item,
            "checkpoint": self.target["time"],
            "files": [{"path": c.path, "change": CHANGE_NAMES.get(c.status, c.status)} for c in self.applied],
            "refused": self.refused,
            "uncovered": self.uncovered,
            "external": self.external,
            "unticked" if self.kind == "undo" else "ticked": self.items,
        }

    def preview(self) -> str:
        verb = "undo" if self.kind == "undo" else "redo"
        marks = ", ".join(str(n) for n in self.items) or "none"
        head = (
            f"{verb} item {self.item} of {self.plan}: restore files to the checkpoint of "
            f"{self.target['time']}; {'untick' if verb == 'undo' else 'tick again'} items: {marks}"
        )
        lines = [head, self.stat or "  no file changes"]
        if self.refused:
            lines.append(
                "refused (changed outside cast since the checkpoint; --force restores them too): " + ", ".join(self.refused)
            )
        if self.uncovered:
            lines.append("not covered (over the checkpoint size cap, left as they are): " + ", ".join(self.uncovered))
        if self.external:
            lines.append("cannot revert (MCP calls act outside the workspace): " + ", ".join(self.external))
        return "\n".join(lines)


def _plan(journal: Journal, history: History, plan: str | None) -> str:
    if plan is not None:
        key = journal.plan_key(Path(plan)) if Path(plan).exists() else plan
        if key in history.starts:
            return key

        try:
            key = journal.plan_key(find_plan(journal.root, plan))
        except PlanError as exc:
            raise UndoError(str(exc), 2) from None
        if key not in history.starts:
            raise UndoError(f"no checkpoints for {key}")
        return str(key)
    last = history.last_plan()
    if last is None:
        raise UndoError("no checkpoints in this workspace yet: they are taken as cast execute works through a plan")
    return last


def _prepare(
    journal: Journal, kind: str, plan: str, item: int, target: Record, since: int, force: bool, session: str | None
) -> Restore:
    now = journal.record("probe", session, plan, None, f"before {kind}")
    uncovered = sorted(set(now.get("skipped", {})) | set(target.get("skipped", {})))
    changes = [c for c in journal.shadow.changes(target["tree"], now["tree"]) if c.path not in uncovered]
    paths = {c.path for c in changes}
    refused = [] if force else sorted(journal.history().outside_since(since) & paths)
    rows = [row for row in journal.shadow.numstat(now["tree"], target["tree"]) if row[0] in paths]
    stat = format_stat(rows, dict.fromkeys(refused, "refused"))
    return Restore(kind, plan, item, target, now, changes, refused, [u for u in uncovered], stat=stat)


def prepare_undo(
    journal: Journal, item: int | None = None, plan: str | None = None, force: bool = False, session: str | None = None
) -> Restore:
    history = journal.history()
    key = _plan(journal, history, plan)
    if item is None:
        item = history.last_item(key)
        if item is None:
            raise UndoError(f"nothing to undo in {key}: no item with a checkpoint (undone items can be redone: cast redo)")
    target = history.checkpoint(key, item)
    if target is None:
        known = ", ".join(str(k) for k in sorted(history.starts.get(key, {}))) or "none"
        raise _no_checkpoint(journal, key, item, known)
    restore = _prepare(journal, "undo", key, item, target, target["seq"], force, session)
    restore.external = history.external_between(key, target["seq"])
    before = set(target.get("ticked") or [])  # ticked already at the checkpoint: not this undo's to untick
    restore.items = [
        n for n, checked in _checks(journal.plan_path(key)) if n >= item and checked and (n == item or n not in before)
    ]
    return restore


def prepare_redo(journal: Journal, force: bool = False, session: str | None = None) -> Restore:
    history = journal.history()
    if not history.redo:
        raise UndoError("nothing to redo: no undo since cast last changed files")
    undo = history.by_seq[history.redo[-1].undo]
    before = history.by_seq[undo["from"]]
    restore = _prepare(journal, "redo", undo["plan"], undo["item"], before, undo["seq"], force, session)
    restore.items, restore.undo_seq = list(undo.get("unticked", [])), undo["seq"]
    return restore


def _checks(path: Path) -> list[tuple[int, bool]]:
    try:
        return [(i.number, i.checked) for i in PlanFile(path).items]
    except PlanError:
        return []


def apply(journal: Journal, restore: Restore, session: str | None = None) -> Record:
    """Restore the files, set the plan's ticks, and journal it (a redo needs the record)."""

    journal.shadow.restore(restore.target["tree"], restore.applied)
    path, done = journal.plan_path(restore.plan), []
    if restore.items:
        try:
            plan = PlanFile(path)
            for number in restore.items:
                plan.set_checked(number, restore.kind == "redo")
                done.append(number)
        except PlanError as exc:
            raise UndoError(f"files restored, but the plan file could not be updated: {exc}") from None
    extra = {
        "from": restore.now["seq"],
        "target": restore.target["seq"],
        "refused": restore.refused,
        "restored": [c.path for c in restore.applied],
    }
    if restore.kind == "undo":
        extra["unticked"] = done
    else:
        extra["undo"], extra["reticked"] = restore.undo_seq, done
    restored = [c.path for c in restore.applied]  # all that changed: the snapshot looks at those alone
    return journal.record(restore.kind, session, restore.plan, restore.item, "", paths=restored, **extra)


@dataclass
class Span:
    """What `cast diff` shows: from one record's tree to another's, an item's or a run's."""

    title: str
    start: Record
    end: Record
    plan: str | None = None
    item: int | None = None

    def to_json(self, journal: Journal) -> dict[str, object]:
        """`cast diff --json`'s object: what changed, file by file, and the patch."""
        files: list[dict[str, object]] = [
            {"path": path, "binary": True}
            if isinstance(counts, str)
            else {"path": path, "added": counts[0], "removed": counts[1]}
            for path, counts in journal.shadow.numstat(self.start["tree"], self.end["tree"])
        ]
        return {
            "type": "diff",
            "plan": self.plan,
            "item": self.item,
            "text": str(self.start.get("text") or "") if self.item is not None else "",
            "session": self.start.get("session"),
            "from": self.start["time"],
            "to": self.end["time"],
            "files": files,
            "patch": journal.shadow.patch(self.start["tree"], self.end["tree"], stat=False),
        }


def span(journal: Journal, item: int | None = None, plan: str | None = None) -> Span:
    """An item's checkpoint to its tick (or to now), or the newest run's first record to its last."""
    history = journal.history()
    if not history.records:
        raise UndoError("no checkpoints in this workspace yet: they are taken as cast execute works through a plan")
    if item is None:
        records = history.session_records()
        return Span(f"run {records[0].get('session')}", records[0], records[-1])
    key = _plan(journal, history, plan)
    found = history.checkpoint(key, item)
    if found is None:
        raise _no_checkpoint(journal, key, item)
    title = f"item {item}: {found.get('text') or ''}".rstrip(": ")
    return Span(title, found, history.item_end(key, item), key, item)


def diff(journal: Journal, item: int | None = None, plan: str | None = None, color: bool = False) -> str:
    """What an item changed (its checkpoint to when it was ticked), or the newest run."""
    shown = span(journal, item, plan)
    text = journal.shadow.patch(shown.start["tree"], shown.end["tree"], color=color)
    return f"{shown.title}\n{text}" if text.strip() else f"{shown.title}\nno file changes"


def item_stats(journal: Journal, session: str, plan_key: str | None = None) -> list[tuple[int, str, str]]:
    """(item, text, diffstat) for each item this session started or ticked, for the closing report;
    with `plan_key`, of that plan only (another plan's item may end where this session began)."""
    history = journal.history()
    rows = []
    for plan, starts in history.starts.items():
        if plan_key is not None and plan != plan_key:
            continue
        for item, seq in starts.items():
            start, end = history.by_seq[seq], history.item_end(plan, item)
            if session not in (start.get("session"), end.get("session")):
                continue
            text = start.get("text") if start.get("item") == item else end.get("text")
            numbers = journal.shadow.numstat(start["tree"], end["tree"])
            rows.append((item, str(text or ""), format_stat(numbers) or " no file changes"))
    return sorted(rows)
