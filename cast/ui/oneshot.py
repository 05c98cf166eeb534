"""Render loop events for a one-shot run: rich in a terminal, plain text in a pipe, NDJSON with
--json. Consumes the same event stream as the REPL."""
from __future__ import annotations

import json
import sys
from typing import Any, Callable

from cast.agent import events as ev

TOOL_ARG_KEYS = ("path", "pattern", "command", "name", "id")


def call_label(name: str, arguments: Any) -> str:
    """`read_file src/app.py` — the one argument a reader needs to recognise the call."""
    if isinstance(arguments, dict):
        for key in TOOL_ARG_KEYS:
            if key in arguments:
                value = str(arguments[key]).replace("\n", " ")
                return f"{name} {value[:100]}" + ("…" if len(value) > 100 else "")
    return name


class Printer:
    """Terminal renderer. Assistant text streams as it comes; tools are one line each."""

    def __init__(self, console: Any = None):
        from rich.console import Console

        self.console = console or Console(highlight=False, soft_wrap=True)
        self.calls: dict[str, str] = {}
        self.in_text = False

    def __call__(self, event: ev.Event) -> None:
        c = self.console
        if isinstance(event, ev.TextDelta):
            c.print(event.text, end="", markup=False)
            self.in_text = True
            return
        if self.in_text:
            c.print()
            self.in_text = False
        if isinstance(event, ev.ThinkingDelta):
            c.print(f"[dim italic]{_escape(event.text)}[/]")
        elif isinstance(event, ev.ToolCall):
            self.calls[event.id] = call_label(event.name, event.input)
        elif isinstance(event, ev.ToolResult):
            label = self.calls.get(event.id, event.name)
            mark = "[green]✓[/]" if event.ok else "[red]✗[/]"
            summary = event.summary + (" (from record)" if event.cached else "")
            c.print(f"{mark} [bold]{_escape(label)}[/] [dim]· {_escape(summary)}[/]")
            if not event.ok:
                c.print(f"  [red]{_escape(event.text.splitlines()[0][:300] if event.text else '')}[/]")
        elif isinstance(event, ev.TaskUpdate):
            done = sum(t.status == "done" for t in event.tasks)
            c.print(f"[cyan]tasks {done}/{len(event.tasks)}[/]")
        elif isinstance(event, ev.Notice):
            style = "yellow" if event.level == "warning" else "dim"
            c.print(f"[{style}]• {_escape(event.text)}[/]")
        elif isinstance(event, ev.Stopped):
            style = "green" if event.status == "done" else "yellow" if event.status == "interrupted" else "red"
            c.print(f"[{style}]■ {event.status}: {_escape(event.reason)}[/] [dim]({event.steps} steps)[/]")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


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
