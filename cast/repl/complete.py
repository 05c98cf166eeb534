"""Completion at the prompt: slash commands by name, and `@path` mentions of workspace files,
matched fuzzily against the file list ripgrep gives (so .gitignore is respected)."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")
MAX_FILES = 50_000
MAX_SHOWN = 30
REFRESH_SECONDS = 30.0


class FileIndex:
    """The workspace's files, listed once in the background and refreshed when stale."""

    def __init__(self, root: Path, lister: Callable[[Path], list[str]] | None = None):
        self.root = root
        self.lister = lister or list_files
        self._files: list[str] = []
        self._stamp = 0.0
        self._loading: threading.Thread | None = None
        self._lock = threading.Lock()

    def files(self) -> list[str]:
        if time.monotonic() - self._stamp > REFRESH_SECONDS:
            self.refresh()
        return self._files

    def refresh(self, wait: bool = False) -> None:
        with self._lock:
            if self._loading is None or not self._loading.is_alive():
                self._stamp = time.monotonic()
                self._loading = threading.Thread(target=self._load, name="cast-file-index", daemon=True)
                self._loading.start()
            thread = self._loading
        if wait:
            thread.join(10)

    def _load(self) -> None:
        try:
            self._files = self.lister(self.root)
        except Exception:
            pass  # completion is a convenience: no list, no suggestions


def list_files(root: Path) -> list[str]:
    from cast.tools.ripgrep import rg_binary  # deferred: keeps cast.tools.ripgrep off the REPL's first prompt

    result = subprocess.run(
        [rg_binary(), "--no-config", "--files", "--hidden", "--glob", "!.git", "--sort", "path"],
        cwd=root,
        capture_output=True,
        text=True,
        errors="replace",
        stdin=subprocess.DEVNULL,
        timeout=20,
    )
    return result.stdout.splitlines()[:MAX_FILES]


def fuzzy_score(query: str, path: str) -> float | None:
    """None when `query`'s characters are not in `path` in order; higher is better otherwise.
    Rewards matches in the file name, contiguous runs, and matches at word starts."""
    if not query:
        return 0.0
    q, p = query.lower(), path.lower()
    name_start = p.rfind("/") + 1
    if q in p[name_start:]:
        return 1000.0 - len(p) + (200.0 if p[name_start:].startswith(q) else 0.0)
    if q in p:
        return 500.0 - len(p)
    score, position, run = 0.0, 0, 0
    for char in q:
        found = p.find(char, position)
        if found < 0:
            return None
        run = run + 1 if found == position else 0
        score += 1 + run * 2 + (3 if found == 0 or p[found - 1] in "/_-. " else 0) + (2 if found >= name_start else 0)
        position = found + 1
    return score - len(p) * 0.01


def fuzzy_filter(query: str, paths: Iterable[str], limit: int = MAX_SHOWN) -> list[str]:
    scored = [(s, path) for path in paths if (s := fuzzy_score(query, path)) is not None]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [path for _, path in scored[:limit]]


class ReplCompleter(Completer):
    def __init__(
        self,
        commands: Callable[[], Sequence[tuple[str, str]]],
        files: FileIndex | None,
        arguments: Callable[[str, str], Iterable[tuple[str, str]]] | None = None,
    ):
        self.commands = commands  # (name, help) pairs
        self.index = files
        self.arguments = arguments  # (command, typed) -> (value, meta) suggestions

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and "\n" not in before:
            yield from self._slash(before)
            return
        mention = MENTION.search(before)
        if mention and self.index is not None:
            typed, files = mention.group(1), self.index.files()
            if typed in files:  # a mention already complete: no menu reopening for Enter to apply again
                return
            for path in fuzzy_filter(typed, files):
                yield Completion(path, start_position=-len(typed), display=path)

    def _slash(self, before: str) -> Iterator[Completion]:
        if " " not in before:
            typed = before[1:]
            for name, help_text in self.commands():
                if name.startswith(typed):
                    yield Completion(name, start_position=-len(typed), display="/" + name, display_meta=help_text)
            return
        if self.arguments is None:
            return
        command, _, typed = before[1:].partition(" ")
        if " " in typed:
            return
        for value, meta in self.arguments(command, typed):
            if value.startswith(typed) or (typed and typed in value):
                yield Completion(value, start_position=-len(typed), display_meta=meta)
