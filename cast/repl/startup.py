"""What the REPL does around its first prompt: the banner, the prompt history, and the warm-up
that loads what the first task needs while the user types (the model SDK, Markdown and syntax
rendering, the file list for @ completion). The prompt comes first; nothing here may delay it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

if TYPE_CHECKING:
    from cast.repl.app import Repl
    from cast.repl.state import ReplState


def banner(state: ReplState) -> str:
    from cast.version import VERSION

    return (
        f"cast {VERSION} · {state.root} · describe a task to {state.mode} it; "
        "/help lists commands, Shift+Tab switches plan ⇄ execute"
    )


def file_history(root: Path) -> History:
    """`.cast/history` in the workspace (kept out of git: it is private), else memory only."""
    try:
        directory = root / ".cast"
        directory.mkdir(exist_ok=True)
        from cast.fsutil import ensure_gitignore

        ensure_gitignore(root)
        return FileHistory(str(directory / "history"))
    except OSError:
        return InMemoryHistory()


def warm_up(repl: Repl) -> None:
    """Called once the first prompt is drawn."""

    def load() -> None:
        try:
            if not repl.state.model_name().startswith("script:"):
                from cast.models.anthropic import preload

                preload()
            import rich.markdown  # noqa: F401
            import rich.syntax  # noqa: F401
        except Exception:
            pass

    threading.Thread(target=load, name="cast-warm-up", daemon=True).start()
    repl.files.refresh()
