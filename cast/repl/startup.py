"""What the REPL does around its first prompt: the banner, the prompt history, and the warm-up
that loads what the first task needs while the user types (the model SDK, Markdown and syntax
rendering, the file list for @ completion). The prompt comes first; nothing here may delay it.
"""

from __future__ import annotations

import datetime
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from cast.fsutil import O_CLOEXEC, read_regular
from cast.state import StateError, private_dir

if TYPE_CHECKING:
    from cast.repl.complete import FileIndex
    from cast.repl.state import ReplState


def banner(state: ReplState, resuming: bool = False) -> Phrases:
    """What to do first, true for the mode the REPL opens in (a resumed session says its own)."""
    from cast.version import VERSION  # deferred: keeps cast.version off the REPL's first prompt

    first = [] if resuming else ["describe a task to plan it"] if state.mode == "plan" else ["/execute runs a plan"]
    return Phrases([f"cast {VERSION}", state.root, *first, "/help lists commands", "Shift+Tab switches plan ⇄ execute"])


class Phrases:
    """Phrases joined by " · ", a line broken only between two of them, at the width it is drawn
    at; a path among them is shortened (`~` for home, `…` for the middle) to fit on its line."""

    def __init__(self, phrases: list[str | Path], style: str = "dim"):
        self.phrases, self.style = phrases, style

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        width = options.max_width
        lines: list[str] = []
        for phrase in self.phrases:
            room = width - len(lines[-1]) - 3 if lines else width
            text = shown_path(phrase, room if room >= 20 else width) if isinstance(phrase, Path) else phrase
            if lines and len(lines[-1]) + 3 + len(text) <= width:
                lines[-1] += f" · {text}"
            else:
                lines.append(text)
        yield Text("\n".join(lines), style=self.style)


def shown_path(path: Path, limit: int) -> str:
    """The path in at most `limit` characters: under home as `~/…`, then its start and as many of
    its last names as fit with `…` between; a last name too long on its own is cut in the middle."""
    text, home = str(path), str(Path.home())
    if text == home or text.startswith(home + os.sep):
        text = "~" + text[len(home) :]
    if len(text) <= limit:
        return text
    parts = text.split(os.sep)
    head, tail = os.sep.join(parts[:2]), parts[-1]
    for name in reversed(parts[2:-1]):
        if len(head) + len(tail) + len(name) + 4 > limit:
            break
        tail = name + os.sep + tail
    short = f"{head}{os.sep}…{os.sep}{tail}"
    if len(short) <= limit:
        return short
    keep = max(limit - 1, 2)
    return text[: keep // 2] + "…" + text[len(text) - (keep - keep // 2) :]


class PrivateHistory(FileHistory):
    """prompt_toolkit's file format, opened without following a symlink at the file."""

    def load_history_strings(self) -> Iterable[str]:
        try:
            data = read_regular(os.fsdecode(self.filename))
        except FileNotFoundError:
            return []
        strings: list[str] = []
        lines: list[str] = []
        for line in data.decode("utf-8", "replace").splitlines(keepends=True):
            if line.startswith("+"):
                lines.append(line[1:])
            elif lines:
                strings.append("".join(lines)[:-1])
                lines = []
        if lines:
            strings.append("".join(lines)[:-1])
        return reversed(strings)

    def store_string(self, string: str) -> None:
        text = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in string.split("\n"))
        fd = os.open(self.filename, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | O_CLOEXEC, 0o600)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)


def file_history(root: Path) -> History:
    """The prompts typed in this workspace, in its private state dir (never the repository, where a
    committed `.cast/history` symlink would receive them); memory only when that is unusable."""

    try:
        return PrivateHistory(str(private_dir(root, "history") / "prompts"))
    except (OSError, StateError):
        return InMemoryHistory()


def warm_up(state: ReplState, files: FileIndex) -> None:
    """Called once the first prompt is drawn: the model's SDK, rich and the sandbox probe load in
    the background, and the @-completion file index is refreshed."""

    def load() -> None:
        try:
            if not state.model_name().startswith("script:"):
                from cast.models.loading import preload  # deferred: the warm-up, after the first prompt

                preload()
            import rich.syntax  # noqa: F401

            import cast.runs  # noqa: F401  (deferred: warmed after the first prompt; what the first task builds its run with)
            import cast.ui.markdown  # noqa: F401  (deferred, warmed: rich.markdown, with cast's headings and code spans)
            from cast.sandbox.policy import isolation  # deferred: the warm-up, after the first prompt

            isolation()  # the bubblewrap probe, cached for the first run
        except Exception:
            pass

    threading.Thread(target=load, name="cast-warm-up", daemon=True).start()
    files.refresh()
