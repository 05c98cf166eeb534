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
from typing import TYPE_CHECKING

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

if TYPE_CHECKING:
    from cast.repl.complete import FileIndex
    from cast.repl.state import ReplState


def banner(state: ReplState, resuming: bool = False) -> str:
    """What to do first, true for the mode the REPL opens in (a resumed session says its own)."""
    from cast.version import VERSION

    first = "" if resuming else "describe a task to plan it; " if state.mode == "plan" else "/execute runs a plan; "
    return f"cast {VERSION} · {state.root} · {first}/help lists commands, Shift+Tab switches plan ⇄ execute"


class PrivateHistory(FileHistory):
    """prompt_toolkit's file format, opened without following a symlink at the file."""

    def load_history_strings(self) -> Iterable[str]:
        from cast.fsutil import read_regular

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
        from cast.fsutil import O_CLOEXEC

        text = f"\n# {datetime.datetime.now()}\n" + "".join(f"+{line}\n" for line in string.split("\n"))
        fd = os.open(self.filename, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | O_CLOEXEC, 0o600)
        try:
            os.write(fd, text.encode("utf-8"))
        finally:
            os.close(fd)


def file_history(root: Path) -> History:
    """The prompts typed in this workspace, in its private state dir (never the repository, where a
    committed `.cast/history` symlink would receive them); memory only when that is unusable."""
    from cast.state import StateError, private_dir

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
                from cast.models.loading import preload

                preload()
            import rich.markdown  # noqa: F401
            import rich.syntax  # noqa: F401

            import cast.runs  # noqa: F401  (what the first task builds its run with)
            from cast.sandbox.policy import isolation

            isolation()  # the bubblewrap probe, cached for the first run
        except Exception:
            pass

    threading.Thread(target=load, name="cast-warm-up", daemon=True).start()
    files.refresh()
