"""Loop events → rich renderables, split into what is final and what is still changing.

`Renderer` is front-end agnostic: every finished piece (a paragraph, a closed code fence, a tool
call with its result, a diff, the stop line) goes to `commit` exactly once, in order; `live()`
returns the part still in motion (the unfinished Markdown block, calls still running, the task
list). The REPL draws `live()` above its prompt; a plain pipe simply never draws it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from cast.agent import events as ev
from cast.text import call_label, terminal_safe
from cast.tools.liveline import printable
from cast.tools.results import Edited, Ran
from cast.ui.nested import NestedView
from cast.ui.oneshot import same_error
from cast.ui.stream import MarkdownStream
from cast.ui.tasks import checklist, plain_checklist

DIFF_LINES = 60  # longer diffs are cut, saying how much was left out
CHANGED_SHOWN = 3  # files a command changed, named on its line
LIVE_LINES = 20  # the unfinished block shows its last lines only
RUNNING_LINES = 2000  # what Ctrl+O shows of a command still running: its newest lines
CODE_THEME = "ansi_dark"
STATUS_STYLE = {"done": "green", "interrupted": "yellow", "stopped": "yellow", "failed": "red"}


def _is_fence(block: str) -> bool:
    return block.lstrip().startswith(("```", "~~~"))


def clip_lines(text: str, limit: int, keep: str = "head") -> tuple[str, int]:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= limit:
        return "\n".join(lines), 0
    kept = lines[:limit] if keep == "head" else lines[-limit:]
    return "\n".join(kept), len(lines) - limit


DIFF_STYLE = {"+": "green", "-": "red", "@": "cyan"}


class DiffView:
    """A diff that wraps without losing its markers: every row of a long line starts with the
    line's own `+`, `-` or space, so a wrapped added line still reads as added."""

    def __init__(self, text: str):
        self.lines = text.splitlines()

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.cells import chop_cells

        width = max(10, options.max_width)
        for line in self.lines:
            header = line.startswith(("+++ ", "--- ", "@@"))
            marker = "" if header or line[:1] not in ("+", "-", " ") else line[:1]
            style = "bold" if line.startswith(("+++ ", "--- ")) else DIFF_STYLE.get(line[:1], "")
            body = line[len(marker) :]
            rows = chop_cells(body, width - len(marker)) if body else [""]
            for row in rows:
                yield Text(marker + row, style=style, no_wrap=True, overflow="crop")


class Renderer:
    """Consumes events (from one thread at a time); `live()` may be called from another."""

    def __init__(
        self, commit: Callable[[RenderableType], None], *, plain: bool = False, on_change: Callable[[], None] | None = None
    ):
        self.commit = commit
        self.plain = plain
        self.on_change = on_change or (lambda: None)
        self._lock = threading.Lock()
        self._stream = MarkdownStream()
        self._thinking: list[str] = []
        self._running: dict[str, str] = {}  # tool call id -> label, for calls not answered yet
        self._started: dict[str, float] = {}  # tool call id -> when it started (the live view's clock)
        self._held = False  # a question waits for the user: the clocks do not count
        self._shown_diffs: set[str] = set()  # diffs shown at an approval: the result does not repeat them
        self._commands: dict[str, str] = {}  # bash call id -> its command, to place the lines it prints
        self._lines: dict[str, str] = {}  # bash call id -> the newest line it printed
        self._printed: dict[str, list[str]] = {}  # bash call id -> the lines it printed so far (Ctrl+O)
        self.last_output: tuple[str, str] | None = None  # the last command's label and output
        self.nested = NestedView()  # a running call's child run (an explore): its steps, under the call
        self._tasks: tuple[ev.Task, ...] = ()
        self._blocks = 0  # Markdown blocks committed in the current reply (for spacing)
        self._last_fence = False
        self.working = False
        self.checking = ""  # what cast checks after the model's last words (ev.Checking), until the next event

    # -- events ---------------------------------------------------------------------------
    def handle(self, event: ev.Event) -> None:
        if isinstance(event, ev.CommandOutput):  # from a call's own thread: only the live view changes
            with self._lock:
                if event.call_id in self._running:
                    self._lines[event.call_id] = printable(event.line)
                    printed = self._printed.setdefault(event.call_id, [])
                    printed.append(self._lines[event.call_id])
                    del printed[:-RUNNING_LINES]
            return  # drawn at the REPL's next tick (about eight a second), never once per line
        if isinstance(event, ev.Nested):  # from a tool thread too: under its call while it runs
            self.nested.add(event)
            self.on_change()
            return
        if isinstance(event, ev.Asked | ev.Answered):  # the REPL's own approver shows and answers them
            return
        if isinstance(event, ev.TextDelta):
            self._end_thinking()
            with self._lock:
                blocks = self._stream.feed(event.text)
            for block in blocks:
                self._commit_block(block)
        elif isinstance(event, ev.ThinkingDelta):
            self._thinking.append(event.text)
        else:
            self._end_thinking()
            self._end_text()
            self._other(event)
        self.on_change()

    def _other(self, event: ev.Event) -> None:
        self.checking = event.what if isinstance(event, ev.Checking) else ""
        if isinstance(event, ev.StepStarted):
            self.working = True
        elif isinstance(event, ev.ToolCall):
            with self._lock:
                self._running[event.id] = call_label(event.name, event.input)
                self._started[event.id] = time.monotonic()
                if isinstance(event.input, dict) and isinstance(event.input.get("command"), str):  # its live lines go under it
                    self._commands[event.id] = event.input["command"]
        elif isinstance(event, ev.ToolResult):
            with self._lock:
                label = self._running.pop(event.id, None) or event.name
                self._started.pop(event.id, None)
                self._commands.pop(event.id, None)
                self._lines.pop(event.id, None)
                self._printed.pop(event.id, None)
            if isinstance(event.result, Ran):
                self.last_output = (label, event.text)  # for the key that shows it whole
            steps = self.nested.done(event.id)
            if steps:  # one line now; Ctrl+O shows the child's steps and the answer
                self.last_output = (label, "\n".join([*steps, "", event.text]))
            self.commit(self.tool_line(label, event))
            diff = event.result.diff if isinstance(event.result, Edited) and event.ok else ""
            with self._lock:
                seen = diff in self._shown_diffs
                self._shown_diffs.discard(diff)
            if diff and not seen:
                self.commit(self.diff(diff))
        elif isinstance(event, ev.TaskUpdate):
            with self._lock:
                self._tasks = event.tasks
        elif isinstance(event, ev.Notice):
            style = "yellow" if event.level == "warning" else "dim"
            self.commit(Text(f"• {event.text}", style=style))
        elif isinstance(event, ev.Stopped):
            with self._lock:
                tasks, self._tasks, self._running = self._tasks, (), {}
                self.nested = NestedView()
                self._commands, self._lines, self._printed = {}, {}, {}
            self.working = False
            if tasks:
                self.commit(Text(plain_checklist(tasks)) if self.plain else checklist(tasks, window=None))
            self.commit(self.status_line(event))

    def _commit_block(self, block: str) -> None:
        fence = _is_fence(block)
        if self._blocks and not (fence or self._last_fence) or (self.plain and self._blocks):
            self.commit(Text(""))  # rich pads code blocks itself
        self._blocks += 1
        self._last_fence = fence
        self.commit(self.markdown(block))

    def _end_text(self) -> None:
        with self._lock:
            rest = self._stream.flush()
        if rest:
            self._commit_block(rest)
        self._blocks = 0

    def _end_thinking(self) -> None:
        if not self._thinking:
            return
        text, self._thinking = "".join(self._thinking).strip(), []
        if text:
            self.commit(Text(text, style="dim italic"))

    def finish(self) -> None:
        """Commit anything still open (the run ended without a Stopped event)."""
        self._end_thinking()
        self._end_text()
        self.on_change()

    # -- pieces ---------------------------------------------------------------------------
    def markdown(self, source: str) -> RenderableType:
        source = terminal_safe(source)  # before rich lays it out, so widths are right (console.TextOnly is the net)
        if self.plain:
            return Text(source.rstrip("\n"))
        from cast.ui.markdown import CastMarkdown  # deferred: imported on first use, it costs start-up time

        return CastMarkdown(source, code_theme=CODE_THEME, hyperlinks=False)

    def tool_line(self, label: str, event: ev.ToolResult) -> Text:
        failed_command = event.ok and isinstance(event.result, Ran) and event.result.exit_code != 0
        mark, style = ("✓", "green") if event.ok and not failed_command else ("✗", "red")
        line = Text()
        line.append(f"{mark} ", style=style)
        line.append(label, style="bold")
        summary = event.summary + (" (from record)" if event.cached else "")
        if event.changed and not isinstance(event.result, Edited):  # an edit shows its diff instead
            shown = ", ".join(event.changed[:CHANGED_SHOWN])
            more = len(event.changed) - CHANGED_SHOWN
            summary += f" · changed {shown}" + (f" and {more} more" if more > 0 else "")
        if summary:
            line.append(f" · {summary}", style="dim")
        if not event.ok and event.text:
            first = event.text.strip().splitlines()[0] if event.text.strip() else ""
            said = first.removeprefix("error: ")
            if first and not same_error(said, event.summary):  # the error once, not twice
                line.append(f"\n  {first}", style="red")
        return line

    def diff(self, diff: str) -> RenderableType:
        """A diff to show; one shown before the edit ran (at its approval) is not shown again after."""
        with self._lock:
            self._shown_diffs.add(diff)
        body, cut = clip_lines(diff, DIFF_LINES)
        parts: list[RenderableType] = [Text(body) if self.plain else DiffView(body)]
        if cut:
            parts.append(Text(f"  … {cut} more diff lines", style="dim"))
        return Group(*parts)

    @staticmethod
    def status_line(event: ev.Stopped) -> Text:
        style = STATUS_STYLE.get(event.status, "red")
        line = Text()
        line.append(f"■ {event.status}", style=f"bold {style}")
        line.append(f": {event.reason}", style=style)
        line.append(f" ({event.steps} step{'s' if event.steps != 1 else ''})", style="dim")
        return line

    # -- live -----------------------------------------------------------------------------
    def restart_clocks(self) -> None:
        """The running calls start now: they waited for an answer (an approval) until now."""
        with self._lock:
            now = time.monotonic()
            self._started = {key: now for key in self._started}
            self._held = False

    def hold_clocks(self) -> None:
        """A question waits for the user: the calls shown have not started, so no clock counts."""
        with self._lock:
            self._held = True

    def running_output(self) -> tuple[str, str] | None:
        """The newest running command's label and what it printed so far (its newest lines), or
        None when no command runs: Ctrl+O while it runs shows this one, not the previous one."""
        with self._lock:
            call = next((key for key in reversed(self._commands) if key in self._running), None)
            if call is None:
                child = next((key for key in reversed(self._running) if self.nested.lines(key)), None)
                return None if child is None else (f"{self._running[child]} · running", "\n".join(self.nested.lines(child)))
            seconds = time.monotonic() - self._started.get(call, time.monotonic())
            return f"{self._running[call]} · running {seconds:.0f}s", "\n".join(self._printed.get(call, []))

    def live(self) -> RenderableType | None:
        """What is still changing, or None when nothing is."""
        with self._lock:
            pending = self._stream.pending
            now = time.monotonic()
            running = [
                (
                    f"{label} · " + ("waiting for you" if self._held else f"{now - self._started.get(key, now):.0f}s"),
                    self._lines.get(key, "") or self.nested.newest(key),
                )
                for key, label in self._running.items()
            ]
            tasks = self._tasks
            thinking = bool(self._thinking)
        parts: list[RenderableType] = []
        if tasks:
            parts.append(checklist(tasks))
        if thinking:
            parts.append(Text("thinking…", style="dim italic"))
        if pending.strip():
            source, cut = clip_lines(pending, LIVE_LINES, keep="tail")
            if cut and source.count("```") % 2 == 0 and pending.count("```") % 2 == 1:
                source = "```\n" + source  # keep an open code block looking like code
            parts.append(self.markdown(source))
        for label, line in running:
            parts.append(Text(f"⋯ {label}", style="cyan"))
            if line:  # one row, cut at the terminal's width; Text is never read as markup
                parts.append(Text(f"  {line}", style="dim", no_wrap=True, overflow="ellipsis"))
        return Group(*parts) if parts else None
