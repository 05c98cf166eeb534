"""What a run observed, kept as the loop's events arrive: the run's one ledger of tool results
(fed once, by `ledger_feed`), the task statuses, the plan's checklist as last seen. The self-check
and the evidence report both read these and never the model's own account of what it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cast.agent import events as ev
from cast.plans.checklist import PlanError, PlanFile
from cast.tools.evidence import CommandRun, Ledger, normal


def ledger_feed(ledger: Ledger) -> Any:
    """The observer that writes the loop's tool results into `ledger`. A run has one ledger and
    one feed: each result arrives typed, with what its call asked for, so nothing is re-paired."""

    def observe(event: ev.Event) -> None:
        if isinstance(event, ev.ToolResult):
            ledger.add(event.result, tuple(event.changed), event.name, event.cached)

    return observe


class Observations:
    """What the loop's events show: commands with exit codes (and the ones not run), files
    changed, task statuses. Feed it every event; SelfCheck and ReportBuilder both keep one. Given
    the run's `ledger` it reads that one from where it stands now (the run feeds it); without,
    it keeps and feeds its own."""

    def __init__(self, ledger: Ledger | None = None) -> None:
        self.ledger = ledger if ledger is not None else Ledger()
        self.start = self.ledger.mark()
        self.tasks: dict[int, str] = {}  # task id -> status
        self.stopped: ev.Stopped | None = None
        self._text: list[str] = []
        self.replied = False  # the model wrote text in this turn: its closing words are this turn's
        self.began = False  # a step started or the turn stopped: this turn's events are here
        self._feed = ledger_feed(self.ledger) if ledger is None else None

    def begin_turn(self) -> None:
        """From here on: what a new user turn observes (the ledger goes on; this reads past it)."""
        self.start, self.stopped, self._text = self.ledger.mark(), None, []
        self.replied, self.began = False, False

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, (ev.StepStarted, ev.Stopped)):
            self.began = True
        if self._feed is not None:
            self._feed(event)
        if isinstance(event, ev.StepStarted):
            self._text = []
        elif isinstance(event, ev.TextDelta):
            self._text.append(event.text)
            self.replied = True
        elif isinstance(event, ev.TaskUpdate):
            self.tasks = {task.id: task.status for task in event.tasks}
        elif isinstance(event, ev.Stopped):
            self.stopped = event

    @property
    def commands(self) -> list[CommandRun]:
        return self.ledger.commands_since(self.start)

    @property
    def changed(self) -> list[str]:
        return self.ledger.changed_since(self.start)

    @property
    def last_text(self) -> str:
        """Text streamed in the last step (the model's closing words when it finished)."""
        return "".join(self._text)

    def last_test(self) -> CommandRun | None:
        return next((c for c in reversed(self.commands) if c.is_test and c.outcome != "declined"), None)

    def failing_tests(self) -> list[CommandRun]:
        return failing_tests(self.commands)


def failing_tests(commands: list[CommandRun]) -> list[CommandRun]:
    """Test commands whose last run did not pass. A later passing run of a command whose words
    begin the failing one's (`pytest` after `pytest -x`, `pytest` after `pytest tests/a.py`)
    ran at least as much, so it settles it."""
    last: dict[str, tuple[int, CommandRun]] = {}
    for index, run in enumerate(commands):
        if run.is_test and run.outcome != "declined":
            last[normal(run.command)] = (index, run)
    failing = []
    for key, (index, run) in last.items():
        if run.passed:
            continue
        words = key.split()
        settled = any(
            later.passed and i > index and words[: len(normal(later.command).split())] == normal(later.command).split()
            for i, later in last.values()
        )
        if not settled:
            failing.append(run)
    return failing


@dataclass(frozen=True)
class PlanItem:
    number: int
    text: str
    checked: bool


class PlanState:
    """The plan's checklist as cast last saw it. The file can vanish or turn unreadable mid-run
    (moved away, a branch switched); then `items` stay as last known, from the last read or the
    task board's last update, and `lost` says what happened, so a missing plan is never taken for
    a plan with nothing left to do."""

    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self.items: list[PlanItem] = []
        self.lost = ""  # "missing" or "unreadable (...)" while the file cannot be read
        self.read()

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.TaskUpdate):  # the board's rows: the plan as it last read it
            self.items = [PlanItem(t.id, t.text, t.status == "done") for t in event.tasks]

    def read(self) -> list[PlanItem]:
        if self.path is None:
            return []

        try:
            items = PlanFile(self.path).items
        except PlanError as exc:
            self.lost = "missing" if not self.path.exists() else f"unreadable ({exc})"
            return self.items
        self.lost, self.items = "", [PlanItem(i.number, i.text, i.checked) for i in items]
        return self.items
