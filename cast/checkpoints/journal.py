"""The checkpoint journal: every snapshot cast took of the workspace, in order, and what it meant.

`journal.jsonl` in the store's directory (store.py) holds one JSON record per snapshot, fsynced as it is written, so
a run killed with kill -9 keeps every checkpoint it took and a resumed session (or tomorrow's
`cast execute`) can still undo its items. Records carry the session and plan they belong to.

Kinds of record, and why there are so many:
- `probe`: the tree as cast finds it before it acts (a run starts, a writing tool is about to run,
  an undo is about to restore). Whatever differs from the record before it was changed while cast
  was not acting, by hand or by another program; the paths are kept in `outside`, because undo
  must not silently overwrite a user's edit. (Unless the record before is the probe of a writing
  call that never got its `cast` record: the process died during the call, and the changes are
  taken to be the call's.)
- `item`: a probe taken when a plan item goes in_progress: the checkpoint an undo returns to.
- `done`: a probe taken when an item is ticked; it ends the item's diff.
- `cast`: the tree right after a writing tool ran (edit_file, write_file, bash): cast's own work.
- `undo` / `redo`: the tree after cast restored files, with what was unticked or ticked again.

`History` folds the records into the questions undo, redo and diff ask.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cast.checkpoints.shadow import Shadow

Record = dict[str, Any]
PROBES = {"probe", "item", "done"}
ACTIVITY = {"item", "done", "cast"}  # cast did something: what an undo undid can no longer be redone


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Journal:
    """The shadow repository and its journal. Every snapshot and append happens under an
    exclusive lock, so two cast processes in one workspace take turns."""

    def __init__(self, root: Path, max_bytes: int | None = None, directory: Path | None = None):
        self.shadow = Shadow(root, directory=directory) if max_bytes is None else Shadow(root, max_bytes, directory)
        self.root = self.shadow.root
        self.path = self.shadow.dir / "journal.jsonl"

    def plan_key(self, plan: Path | str | None) -> str | None:
        if plan is None:
            return None
        path = Path(os.path.abspath(plan))
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def plan_path(self, key: str) -> Path:
        return self.root / key if not os.path.isabs(key) else Path(key)

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.shadow.ensure()
        with open(self.shadow.dir / "lock", "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def records(self) -> list[Record]:
        if self.shadow.exists():
            self.shadow.ensure()  # a store is read only as cast left it (store.verify)
        try:
            lines = self.path.read_bytes().split(b"\n")
        except FileNotFoundError:
            return []
        records = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn last line from a crash
            if isinstance(record, dict) and "seq" in record:
                records.append(record)
        return records

    def last(self) -> Record | None:
        """The newest record, read from the end of the file (the journal only grows)."""
        try:
            with open(self.path, "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - 65536))
                tail = handle.read()
        except FileNotFoundError:
            return None
        for line in reversed(tail.split(b"\n")):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and "seq" in record:
                return record
        return self.records()[-1] if size > 65536 and self.records() else None

    def record(
        self,
        kind: str,
        session: str | None,
        plan: Path | str | None = None,
        item: int | None = None,
        text: str = "",
        paths: list[str] | None = None,
        **extra: Any,
    ) -> Record:
        """Snapshot the tree now and append a record of it; returns the record. `paths`: only
        these can have changed since the last record, as far as cast knows (None: look at all)."""
        with self.locked():
            return self._append(kind, session, plan, item, text, extra, paths)

    def _append(
        self,
        kind: str,
        session: str | None,
        plan: Path | str | None,
        item: int | None,
        text: str,
        extra: dict[str, Any],
        paths: list[str] | None = None,
    ) -> Record:
        last = self.last()
        snap = self.shadow.snapshot(paths if last is not None else None)
        self.shadow.keep(snap.tree)
        outside: list[str] = []
        # A probe taken before a writing call and never followed by the call's result means the
        # process died while the call ran (kill -9): what changed since is that call's doing.
        in_flight = last is not None and bool(last.get("call"))
        if kind in PROBES and last is not None and last["tree"] != snap.tree and not in_flight:
            outside = [c.path for c in self.shadow.changes(last["tree"], snap.tree)]
        record: Record = {
            "seq": (last["seq"] + 1) if last else 1,
            "time": _now(),
            "kind": kind,
            "session": session,
            "plan": self.plan_key(plan) if isinstance(plan, Path) else plan,
            "item": item,
            "text": text,
            "tree": snap.tree,
            "skipped": snap.skipped,
            "outside": outside,
            **extra,
        }
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
        if self.path.exists() and self.path.stat().st_size:
            with open(self.path, "rb") as handle:  # cut a torn last line before appending
                handle.seek(-1, os.SEEK_END)
                torn = handle.read(1) != b"\n"
            if torn:
                data = self.path.read_bytes()
                with open(self.path, "r+b") as handle:
                    handle.truncate(data.rfind(b"\n") + 1)
        with open(self.path, "ab") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())
        return record

    def history(self) -> History:
        return History(self.records())


@dataclass
class _Saved:
    undo: int
    starts: dict[int, int]
    done: dict[int, int]
    touched: dict[int, int]


@dataclass
class History:
    """The journal folded: for each plan, each item's checkpoint (the first `item` record since
    the item was last finished or undone), its `done` record, and which undos can be redone."""

    records: list[Record]
    starts: dict[str, dict[int, int]] = field(default_factory=dict)  # plan -> item -> seq of its checkpoint
    done: dict[str, dict[int, int]] = field(default_factory=dict)  # plan -> item -> seq when ticked
    touched: dict[str, dict[int, int]] = field(default_factory=dict)  # plan -> item -> seq of last activity
    redo: list[_Saved] = field(default_factory=list)  # undos that can still be reversed, newest last

    def __post_init__(self) -> None:
        self.by_seq = {r["seq"]: r for r in self.records}
        boundary: dict[str | None, int] = {}  # session -> seq of its last boundary (first record, or a done)
        for record in self.records:
            seq, kind, plan, item = record["seq"], record["kind"], record.get("plan"), record.get("item")
            boundary.setdefault(record.get("session"), seq)
            if kind in ACTIVITY:
                self.redo.clear()
            if plan is None:
                continue
            starts, done, touched = (
                self.starts.setdefault(plan, {}),
                self.done.setdefault(plan, {}),
                self.touched.setdefault(plan, {}),
            )
            if kind == "item" and item is not None:
                if item not in starts or done.get(item, -1) > starts[item]:
                    starts[item] = seq
                    done.pop(item, None)
                touched[item] = seq
            elif kind == "done" and item is not None:
                if item not in starts:  # ticked without going in_progress: it began at the last boundary
                    starts[item] = boundary[record.get("session")]
                done[item], touched[item] = seq, seq
                boundary[record.get("session")] = seq
            elif kind == "undo":
                gone = [k for k in starts if k >= record["item"]]
                saved = _Saved(
                    seq,
                    {k: starts.pop(k) for k in gone},
                    {k: done.pop(k) for k in gone if k in done},
                    {k: touched.pop(k) for k in gone if k in touched},
                )
                self.redo.append(saved)
            elif kind == "redo" and self.redo and self.redo[-1].undo == record.get("undo"):
                saved = self.redo.pop()
                starts.update(saved.starts)
                done.update(saved.done)
                touched.update(saved.touched)

    def last_plan(self) -> str | None:
        return next((r["plan"] for r in reversed(self.records) if r.get("plan")), None)

    def last_item(self, plan: str) -> int | None:
        """The item touched last that can still be undone, among those ticked or changing something
        (an item just started has nothing to undo while the one before it still has its edit)."""
        touched = self.touched.get(plan, {})
        candidates = [k for k in self.starts.get(plan, {}) if k in touched]
        done = self.done.get(plan, {})
        undoable = [
            k
            for k in candidates
            if k in done or self.by_seq[self.starts[plan][k]].get("tree") != self.item_end(plan, k).get("tree")
        ]
        pool = undoable or candidates
        return max(pool, key=lambda k: touched[k]) if pool else None

    def checkpoint(self, plan: str, item: int) -> Record | None:
        seq = self.starts.get(plan, {}).get(item)
        return self.by_seq.get(seq) if seq is not None else None

    def item_end(self, plan: str, item: int) -> Record:
        """Where an item's changes end: when it was ticked, else the newest record."""
        seq = self.done.get(plan, {}).get(item)
        return self.by_seq[seq] if seq is not None else self.records[-1]

    def external_between(self, plan: str, first: int, last: int | None = None) -> list[str]:
        """The MCP calls recorded for `plan` after seq `first` (up to `last`): effects no undo reverts."""
        calls = [
            r["external"]
            for r in self.records
            if r.get("external") and r.get("plan") == plan and r["seq"] > first and (last is None or r["seq"] <= last)
        ]
        return list(dict.fromkeys(calls))

    def outside_since(self, seq: int) -> set[str]:
        return {path for r in self.records if r["seq"] > seq for path in r.get("outside", [])}

    def session_records(self, session: str | None = None) -> list[Record]:
        """The records of one session (default: the newest session that has any)."""
        if session is None:
            session = next((r["session"] for r in reversed(self.records) if r.get("session")), None)
        return [r for r in self.records if r.get("session") == session]
