"""Taking checkpoints as an execute run goes: a loop observer, not a feature of the tools.

The snapshot is of the tree, not of the tools: whatever a writing call did (edit_file, write_file,
or any command through bash) is in the next snapshot. The loop tells observers about a call before
it runs and about its result before the next call runs, so:
- a run's first step, and every writing call, is preceded by a `probe` (what changed since the
  last record was changed outside cast);
- a writing call is followed by a `cast` record (cast's own work);
- `update_task in_progress` takes the item's checkpoint, `done` closes the item's diff.
Which calls write is the tool's `writes` (on its ToolCall), and a task's move is its typed result
(`TaskUpdated`): never a tool's name.
A snapshot looks at the whole tree only where cast cannot know what changed (the run's start, and
around a command); around edit_file and write_file it looks at the one path, and an item's
checkpoint or tick, taken when no writing call ran since the last record, reuses that record's
tree. What changed meanwhile outside cast is still found: by the next full look (a command, the
probe every undo starts with), which records it as changed outside cast.
A checkpoint failure (no git, a full disk) never stops the run: checkpoints turn off, and the
report says why.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from cast.agent import events as ev
from cast.checkpoints.journal import Journal
from cast.checkpoints.shadow import ShadowError
from cast.tools.results import External, TaskUpdated

LARGE = 100_000  # files: a first snapshot this big says so before it starts


class Recorder:
    def __init__(
        self,
        journal: Journal,
        session: str,
        plan: Path,
        item_text: Callable[[int], str],
        active: Callable[[], bool] = lambda: True,
        ticked: Callable[[], list[int]] = list,
    ):
        self.journal, self.session, self.plan = journal, session, journal.plan_key(plan)
        self.item_text, self.active, self.ticked = item_text, active, ticked
        self.started = False
        self.pending: list[str] | None = None  # the path the file tool about to run names
        self.writing: str | None = None  # the id of the writing call whose result comes next
        self.error = ""
        self.first: int | None = None  # seq of this run's first record: what came before is an earlier run's
        self.skipped: dict[str, int] = {}  # path -> size: files over the cap, never checkpointed
        try:
            journal.shadow.ensure()
        except (ShadowError, OSError) as exc:
            self.error = str(exc)

    def _record(
        self, kind: str, item: int | None = None, text: str = "", paths: list[str] | None = None, **extra: object
    ) -> None:
        if self.error:
            return
        try:  # the items ticked then: an undo to this point unticks only those ticked since
            ticked = self.ticked()
            record = self.journal.record(kind, self.session, self.plan, item, text, paths, ticked=ticked, **extra)
        except (ShadowError, OSError) as exc:
            self.error = str(exc)
            return
        self.skipped.update(record.get("skipped") or {})
        if self.first is None:
            self.first = record.get("seq")

    def start(self, say: Callable[[str], None], after: float = 1.0) -> None:
        """The run's first snapshot, before the first request: the one that can take long on a
        big tree, so past a second it says how far it got (`say` is the front-end's)."""
        if self.started or not self.active():
            return
        began = time.monotonic()
        shown = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - began >= after and now - shown[0] >= after:
                shown[0] = now
                say(f"recording the working tree for checkpoints: {done:,} / {total:,} files")

        tracked = self._tracked()
        if tracked >= LARGE:  # a git status of this many files takes a second or more
            say(f"recording the working tree for checkpoints ({tracked:,} files)")
            shown[0] = began
        self.journal.shadow.progress = progress
        try:
            self.started = True
            self._record("probe", text="run start")
        finally:
            self.journal.shadow.progress = None
        if shown[0]:
            say(f"working tree recorded in {time.monotonic() - began:.1f} s")

    def _tracked(self) -> int:
        """How many files the store's index lists (its header says), without running git."""
        try:
            with open(self.journal.shadow.git_dir / "index", "rb") as index:
                head = index.read(12)
        except OSError:
            return 0
        return int.from_bytes(head[8:12], "big") if head[:4] == b"DIRC" else 0

    def observe(self, event: ev.Event) -> None:
        if not self.active():
            return
        if isinstance(event, ev.StepStarted) and not self.started:
            self.started = True
            self._record("probe", text="run start")
        elif isinstance(event, ev.ToolCall) and event.writes:  # the tool says it may write, whatever its name
            self.pending = self._named(event.input) if event.writes == "path" else None
            self.writing = event.id
            self._record("probe", text=f"before {event.name}", paths=self.pending, call=event.name)
        elif isinstance(event, ev.ToolResult) and event.id == self.writing:
            paths = self.pending
            if paths is not None:
                paths = list(dict.fromkeys(paths + [p for p in event.changed if not p.startswith("..")]))
            self.pending, self.writing = None, None
            if isinstance(event.result, External):  # an MCP call: named by undo, which cannot revert it
                self._record("cast", text=event.name, paths=paths, external=event.name)
            else:
                self._record("cast", text=event.name, paths=paths)
        elif isinstance(event, ev.ToolResult) and isinstance(event.result, TaskUpdated):
            number, status = event.result.id, event.result.status
            if status in ("in_progress", "done"):
                kind = "item" if status == "in_progress" else "done"
                self._record(kind, number, self.item_text(number), paths=[])

    def earlier_changes(self, item: int) -> list[str]:
        """The files changed since item `item`'s checkpoint when an earlier run took it (a run
        killed mid-item): the evidence on disk that this run's ledger never saw."""
        if self.error or self.first is None:
            return []
        try:
            history = self.journal.history()
            checkpoint = history.checkpoint(self.plan, item) if self.plan is not None else None
            if checkpoint is None or checkpoint["seq"] >= self.first or not history.records:
                return []
            changes = self.journal.shadow.changes(checkpoint["tree"], history.records[-1]["tree"])
        except (ShadowError, OSError):
            return []
        return [change.path for change in changes]

    def _named(self, args: object) -> list[str] | None:
        """The workspace-relative path a file tool names; None (look at everything) when there is
        none or it is outside the workspace."""
        path = args.get("path") if isinstance(args, dict) else None
        if not isinstance(path, str) or not path:
            return None
        full = os.path.normpath(os.path.join(self.journal.root, path))
        # Through a symlinked directory, git would not look (`link/x` is beyond a symlink): the real path.
        real = os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))
        rels = [os.path.relpath(p, self.journal.root) for p in dict.fromkeys((full, real))]
        return None if any(r.startswith("..") or r == "." for r in rels) else rels

    def finish(self) -> None:
        """At the run's end: pack the store if it has grown."""
        if not self.error and self.started:
            try:
                self.journal.shadow.maintain()
            except (ShadowError, OSError):
                pass

    def item_stats(self) -> list[tuple[int, str, str]]:
        """Per item this session touched: its diffstat, for the closing report."""
        if self.error or not self.started:
            return []
        from cast.checkpoints.undo import item_stats  # deferred: keeps cast.checkpoints.undo off the one-shot first request

        try:
            return item_stats(self.journal, self.session, self.plan)
        except (ShadowError, OSError):
            return []

    def notes(self) -> list[str]:
        """What the report must say about the checkpoints themselves."""
        notes = []
        if self.error:
            notes.append(f"checkpoints are off for this run: {self.error}")
        if self.skipped:
            cap = self.journal.shadow.max_bytes // (1024 * 1024)
            shown = ", ".join(f"{p} ({size // (1024 * 1024)} MiB)" for p, size in sorted(self.skipped.items())[:10])
            more = f" and {len(self.skipped) - 10} more" if len(self.skipped) > 10 else ""
            notes.append(f"not checkpointed (over {cap} MiB, undo leaves them alone): {shown}{more}")
        return notes
