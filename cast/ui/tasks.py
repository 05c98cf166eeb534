"""The task list as a checklist that ticks: one line per task, the current one highlighted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from cast.agent.events import Task
from cast.text import path_label

if TYPE_CHECKING:
    from cast.tools.evidence import ItemEvidence

MARKS = {
    "done": ("✓", "green"),
    "in_progress": ("▸", "bold yellow"),
    "blocked": ("✗", "red"),
    "pending": ("○", "dim"),
}
WINDOW = 12  # at most this many lines live; long lists show the part around the current task


def progress(tasks: Sequence[Task]) -> str:
    done = sum(t.status == "done" for t in tasks)
    blocked = sum(t.status == "blocked" for t in tasks)
    text = f"{done}/{len(tasks)} done"
    return text + (f", {blocked} blocked" if blocked else "")


def checklist(tasks: Sequence[Task], window: int | None = WINDOW) -> RenderableType:
    """The checklist, an item's wrapped text indented under its first line. With `window`, long
    lists are cut around the first unfinished task."""
    shown = list(tasks)
    before = after = 0
    if window and len(shown) > window:
        current = next((i for i, t in enumerate(shown) if t.status not in ("done",)), len(shown) - 1)
        start = max(0, min(current - window // 3, len(shown) - window))
        before, after = start, len(shown) - start - window
        shown = shown[start : start + window]
    rows = Table.grid()
    rows.add_column(no_wrap=True)
    rows.add_column()
    if before:
        rows.add_row("", Text(f"… {before} earlier", style="dim"))
    for task in shown:
        mark, style = MARKS.get(task.status, MARKS["pending"])
        label_style = "dim" if task.status == "done" else ("bold" if task.status == "in_progress" else "")
        label = Text(f"{task.id}. {task.text}", style=label_style)
        if task.note:
            label.append(f" — {task.note}", style="italic dim")
        if window is None and task.evidence is not None:  # the full list (/tasks): what each tick rested on
            style_ = "dim" if task.evidence.supported else "yellow"
            label.append("\n  " + evidence_line(task.evidence), style=style_)
        rows.add_row(Text(f"  {mark} ", style=style), label)
    if after:
        rows.add_row("", Text(f"… {after} more", style="dim"))
    return Group(Text(f"Tasks {progress(tasks)}", style="bold"), rows)


def evidence_line(evidence: ItemEvidence) -> str:
    """One line for what a tick rested on (see cast/tools/evidence.py)."""
    if not evidence.supported:
        note = evidence.note
        return f"ticked without evidence: {evidence.missing}" + (f"; note: {note}" if note else "")
    shown = [*evidence.commands, *(f"{path_label(path)} changed" for path in evidence.files)]
    return "evidence: " + ("; ".join(shown) if shown else "none recorded")


def plain_checklist(tasks: Sequence[Task]) -> str:
    """The same list as plain text, `[x]`-style, for pipes and logs."""
    boxes = {"done": "x", "in_progress": ">", "blocked": "!", "pending": " "}
    lines = [f"Tasks {progress(tasks)}"]
    lines += [f"  [{boxes.get(t.status, ' ')}] {t.id}. {t.text}" + (f" — {t.note}" if t.note else "") for t in tasks]
    return "\n".join(lines)
