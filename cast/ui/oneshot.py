"""Render loop events for a one-shot run: rich in a terminal, plain text in a pipe, NDJSON with
--json. Consumes the same event stream as the REPL."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from json import dumps
from typing import TYPE_CHECKING, Any

from cast.agent import events as ev
from cast.agent.asking import Announced
from cast.safety.decision import Answers, ApprovalAnswer, ApprovalRequest, Reply, RevisionRequest
from cast.text import approval_text, call_label, command_lines, echo, plural, terminal_safe
from cast.tools.liveline import printable
from cast.tools.results import Ran

if TYPE_CHECKING:
    from cast.agent.asking import Answering
    from cast.run import Outcome, Run
    from cast.safety.decision import Approver


class Printer:
    """Terminal renderer. Assistant text streams as it comes; tools are one line each. Text from
    the model or a command is never read as markup: what is shown is what ran.

    On a terminal, a running command's newest output line is shown on one status row, redrawn in
    place and erased before anything else is printed. In a pipe (and with --json, which has its
    own printer) there is no such row: a log gets each call's one line, never a stream of redraws."""

    def __init__(self, console: Any = None):
        self._console = console
        self.calls: dict[str, str] = {}
        self.in_text = False
        self.tasks_shown: tuple[int, str] | None = None
        self._commands: dict[str, tuple[str, float]] = {}  # running bash call id -> (command, when it started)
        self._status = False  # a status row is on the terminal
        self._lock = threading.Lock()  # the status row is drawn from the threads running commands
        self._nested: Any = None  # an explore's steps, one dim line each under its call (cast.ui.nested)

    @property
    def console(self) -> Any:
        """rich's Console, made when the first thing is printed: importing rich then overlaps the
        wait for the model's first words instead of delaying the request."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)
        return self._console

    @property
    def live(self) -> bool:
        """Whether to show running commands' output: only on a terminal."""
        return bool(self.console.is_terminal)

    def _running(self, event: ev.CommandOutput) -> None:
        """A running command's newest line on the status row, on a terminal only (call with the lock held)."""
        from rich.text import Text

        if not self.live or event.call_id not in self._commands:  # a pipe, or the call has ended
            return
        seconds = time.monotonic() - self._commands[event.call_id][1]
        width = max(20, self.console.width - 1)  # one row: it is redrawn in place
        label = self.calls.get(event.call_id, "bash")
        label = label if len(label) <= width // 3 else label[: width // 3 - 1] + "…"  # the line gets the room
        row = Text.assemble((f"⋯ {label} · {seconds:.0f}s │ ", "cyan"), (printable(event.line), "dim"))
        row.truncate(width, overflow="ellipsis")
        self._erase()
        self.console.print(row, end="", no_wrap=True, crop=True)
        self._status = True

    def _erase(self) -> None:
        if self._status:
            self.console.file.write("\r\x1b[2K")
            self.console.file.flush()
            self._status = False

    def line(self, *parts: tuple[str, str]) -> None:
        from rich.text import Text

        self.console.print(Text.assemble(*((terminal_safe(text), style) for text, style in parts)))

    def __call__(self, event: ev.Event) -> None:
        with self._lock:
            if isinstance(event, ev.CommandOutput):  # from a command's own thread: only the status row changes
                self._running(event)
                return
            self._erase()
            self._show(event)

    def _show(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            self.console.print(terminal_safe(event.text), end="", markup=False)  # each piece: a split escape too
            self.in_text = True
            return
        if self.in_text and not isinstance(event, ev.ThinkingDelta):
            self.console.print()
            self.in_text = False
        if isinstance(event, ev.ThinkingDelta):
            return  # shown whole, as a Note, once the reply is complete
        if isinstance(event, ev.Nested):
            self._child(event)
            return
        if isinstance(event, ev.Note):
            self.line((event.text, "dim italic"))
        elif isinstance(event, ev.ToolCall):
            self.calls[event.id] = call_label(event.name, event.input)
            if isinstance(event.input, dict) and isinstance(event.input.get("command"), str):  # its live lines go under it
                self._commands[event.id] = (event.input["command"], time.monotonic())
        elif isinstance(event, ev.ToolResult):
            self._commands.pop(event.id, None)
            label = self.calls.get(event.id, event.name)
            summary = event.summary + (" (from record)" if event.cached else "")
            ok = event.ok and not (isinstance(event.result, Ran) and event.result.exit_code != 0)  # a failed command is no ✓
            self.line(("✓ " if ok else "✗ ", "green" if ok else "red"), (label, "bold"), (f" · {summary}", "dim"))
            first = event.text.strip().splitlines()[0] if event.text.strip() else ""
            if not event.ok and first and not same_error(first.removeprefix("error: "), event.summary):
                self.line(("  " + first, "red"))
        elif isinstance(event, ev.TaskUpdate):
            self._tasks(event.tasks)
        elif isinstance(event, ev.Notice):
            self.line((f"• {event.text}", "yellow" if event.level == "warning" else "dim"))
        elif isinstance(event, ev.Stopped):
            style = "green" if event.status == "done" else "yellow" if event.status == "interrupted" else "red"
            self.line((f"■ {event.status}: {event.reason}", style), (f" ({plural(event.steps, 'step')})", "dim"))

    def _child(self, event: ev.Nested) -> None:
        """A child run's step, indented under its parent's call (which is printed once answered)."""
        from cast.ui.nested import NestedView  # deferred: keeps cast.ui.nested off the one-shot first request

        self._nested = self._nested or NestedView()
        line = self._nested.add(event)
        if line:
            self.line(("  ↳ " + line, "dim"))

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


def approver_for(json: bool, answers: str | None) -> Approver | Answering | Announced | None:
    """Who answers a one-shot run's questions: a program's JSON lines (`--answers stdin`), the
    terminal, or nobody (a pipe: what needs an answer is refused, or goes on as without one).
    A program's questions are on stdout from the start: one asked while the run is built (an MCP
    server's approval) is printed before the run has a stream of its own."""
    if answers == "stdin":
        from cast.ui.answers import StdinAnswers  # deferred: keeps cast.ui.answers off the one-shot first request

        questions = Announced(StdinAnswers())
        questions.post = json_printer()
        return questions
    return terminal_approver() if sys.stdin.isatty() and not json else None


def terminal_approver() -> Approver:
    """Ask on the terminal before a command that is not provably read-only runs. Anything but an
    explicit yes, end of input included, is a no; Ctrl+C is what it is everywhere else, an
    interrupt: it goes up to the loop, which stops the run as interrupted by the user."""

    def ask(request: ApprovalRequest) -> ApprovalAnswer:
        if request.outside_sandbox:
            head = f"\ncast wants to run this again OUTSIDE the sandbox ({request.why}):"
        else:
            head = "\ncast wants to run:"
        always = f" / [a]lways: {request.always_label}" if request.always_label else ""
        command = approval_text(request.command).replace("\n", "\n  ")
        lines = command_lines(request.command)
        it = f"all {lines} lines of it" if lines > 10 else "it"
        sys.stderr.write(terminal_safe(f"{head}\n  {command}\nrun {it}? [y]es / [n]o{always}: "))
        sys.stderr.flush()
        try:
            typed = input().strip().lower()
        except EOFError:
            return ApprovalAnswer("no")
        except KeyboardInterrupt:
            sys.stderr.write("\n")
            raise
        words: dict[str, Reply] = {"y": "yes", "yes": "yes"}
        if always:
            words.update(a="always", always="always")
        return ApprovalAnswer(words.get(typed, "no"))

    def revision(request: RevisionRequest) -> Reply:
        changes = "".join(f"\n  {change}" for change in request.changes)
        head = (
            f"\nthe plan changed since you approved revision {request.approved} (now {request.current}, by the {request.author}):"
        )
        sys.stderr.write(terminal_safe(f"{head}{changes}\ngo on with it? [y]es / [n]o: "))
        sys.stderr.flush()
        try:
            return "yes" if input().strip().lower() in ("y", "yes") else "no"
        except EOFError:
            return "no"
        except KeyboardInterrupt:
            sys.stderr.write("\n")
            raise

    return Answers(ask, revision=revision)


def show_outcome(run: Run, outcome: Outcome, json: bool, show_report: bool) -> None:
    """The evidence report (built from observations) and, with --json, the final result object."""

    report = outcome.report
    if json:
        print(dumps(outcome.to_json(), default=str), flush=True)
        return
    if show_report and report is not None:
        echo("\n" + report.render_text())
    summary = run.usage.summary() if run.usage is not None and run.usage.records else None
    if summary:
        echo(f"usage: {summary}")


def same_error(said: str, summary: str) -> bool:
    """Whether a result's summary already says its error's first line (whole, or as far as it
    goes): the error is shown once, never cut, never twice."""
    said, summary = " ".join(said.split()), " ".join(summary.rstrip("…").split())
    return bool(summary) and (summary.startswith(said) or said.startswith(summary))
