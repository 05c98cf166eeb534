"""Render loop events for a one-shot run: rich in a terminal, plain text in a pipe, NDJSON with
--json. Consumes the same event stream as the REPL."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from cast.agent import events as ev
from cast.text import call_label, plural


class Printer:
    """Terminal renderer. Assistant text streams as it comes; tools are one line each. Text from
    the model or a command is never read as markup: what is shown is what ran."""

    def __init__(self, console: Any = None):
        from rich.console import Console

        self.console = console or Console(highlight=False, soft_wrap=True, markup=False, emoji=False)
        self.calls: dict[str, str] = {}
        self.in_text = False
        self.tasks_shown: tuple[int, str] | None = None

    def line(self, *parts: tuple[str, str]) -> None:
        from rich.text import Text

        self.console.print(Text.assemble(*parts))

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            self.console.print(event.text, end="", markup=False)
            self.in_text = True
            return
        if self.in_text and not isinstance(event, ev.ThinkingDelta):
            self.console.print()
            self.in_text = False
        if isinstance(event, ev.ThinkingDelta):
            return  # shown whole, as a Note, once the reply is complete
        if isinstance(event, ev.Note):
            self.line((event.text, "dim italic"))
        elif isinstance(event, ev.ToolCall):
            self.calls[event.id] = call_label(event.name, event.input)
        elif isinstance(event, ev.ToolResult):
            label = self.calls.get(event.id, event.name)
            summary = event.summary + (" (from record)" if event.cached else "")
            code = event.facts.get("exit_code")
            ok = event.ok and not (isinstance(code, int) and code != 0)  # a command that failed is no ✓
            self.line(("✓ " if ok else "✗ ", "green" if ok else "red"), (label, "bold"), (f" · {summary}", "dim"))
            first = event.text.strip().splitlines()[0] if event.text.strip() else ""
            if not event.ok and first and not first.removeprefix("error: ").startswith(event.summary.rstrip("…")):
                self.line(("  " + first[:300], "red"))
        elif isinstance(event, ev.TaskUpdate):
            self._tasks(event.tasks)
        elif isinstance(event, ev.Notice):
            self.line((f"• {event.text}", "yellow" if event.level == "warning" else "dim"))
        elif isinstance(event, ev.Stopped):
            style = "green" if event.status == "done" else "yellow" if event.status == "interrupted" else "red"
            self.line((f"■ {event.status}: {event.reason}", style), (f" ({plural(event.steps, 'step')})", "dim"))

    def _tasks(self, tasks: tuple[ev.Task, ...]) -> None:
        """One line when progress or the current item changes, not on every bookkeeping update."""
        done = sum(t.status == "done" for t in tasks)
        current = next((f"{t.id}. {t.text}" for t in tasks if t.status == "in_progress"), "")
        if (done, current) == self.tasks_shown:
            return
        self.tasks_shown = (done, current)
        self.line((f"tasks {done}/{len(tasks)} done", "cyan"), (f" · now: {current}" if current else "", "cyan"))


def json_printer(stream: Any = None) -> Callable[[ev.Event], None]:
    out = stream or sys.stdout

    def emit(event: ev.Event) -> None:
        out.write(json.dumps(ev.to_json(event), default=str) + "\n")
        out.flush()

    return emit


def terminal_approver() -> Callable[[str], str]:
    """Ask on the terminal before a command that is not provably read-only runs.
    Anything but an explicit yes, including Ctrl+C or end of input, is a no."""

    def ask(command: str) -> str:
        sys.stderr.write(f"\ncast wants to run:\n  {command}\nrun it? [y]es / [n]o / [a]lways for this command: ")
        sys.stderr.flush()
        try:
            answer = input().strip().lower()
        except (EOFError, KeyboardInterrupt):
            return "no"
        return {"y": "yes", "yes": "yes", "a": "always", "always": "always"}.get(answer, "no")

    return ask
