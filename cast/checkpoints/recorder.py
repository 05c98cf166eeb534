"""Taking checkpoints as an execute run goes: a loop observer, not a feature of the tools.

The snapshot is of the tree, not of the tools: whatever a writing call did (edit_file, write_file,
or any command through bash) is in the next snapshot. The loop tells observers about a call before
it runs and about its result before the next call runs, so:
- a run's first step, and every writing call, is preceded by a `probe` (what changed since the
  last record was changed outside cast);
- a writing call is followed by a `cast` record (cast's own work);
- `update_task in_progress` takes the item's checkpoint, `done` closes the item's diff.
A checkpoint failure (no git, a full disk) never stops the run: checkpoints turn off, and the
report says why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cast.agent import events as ev
from cast.checkpoints.journal import Journal
from cast.checkpoints.shadow import ShadowError

WRITING_TOOLS = frozenset({"edit_file", "write_file", "bash"})


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
        self.error = ""
        self.skipped: dict[str, int] = {}  # path -> size: files over the cap, never checkpointed
        try:
            journal.shadow.ensure()
        except (ShadowError, OSError) as exc:
            self.error = str(exc)

    def _record(self, kind: str, item: int | None = None, text: str = "", **extra: object) -> None:
        if self.error:
            return
        try:  # the items ticked then: an undo to this point unticks only those ticked since
            record = self.journal.record(kind, self.session, self.plan, item, text, ticked=self.ticked(), **extra)
        except (ShadowError, OSError) as exc:
            self.error = str(exc)
            return
        self.skipped.update(record.get("skipped") or {})

    def observe(self, event: ev.Event) -> None:
        if not self.active():
            return
        if isinstance(event, ev.StepStarted) and not self.started:
            self.started = True
            self._record("probe", text="run start")
        elif isinstance(event, ev.ToolCall) and event.name in WRITING_TOOLS:
            self._record("probe", text=f"before {event.name}", call=event.name)
        elif isinstance(event, ev.ToolResult) and event.name in WRITING_TOOLS and not event.cached:
            self._record("cast", text=event.name)
        elif isinstance(event, ev.ToolResult) and event.name == "update_task" and event.ok:
            number, status = (event.facts or {}).get("task"), (event.facts or {}).get("status")
            if isinstance(number, int) and status in ("in_progress", "done"):
                self._record("item" if status == "in_progress" else "done", number, self.item_text(number))

    def item_stats(self) -> list[tuple[int, str, str]]:
        """Per item this session touched: its diffstat, for the closing report."""
        if self.error or not self.started:
            return []
        from cast.checkpoints.undo import item_stats

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
