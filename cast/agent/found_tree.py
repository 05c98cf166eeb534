"""The tree as a run found it: git's baseline (`git_baseline.py`) or, outside git, a snapshot
(`tools/snapshot.py`), for the report's "what this run changed".

A run starts recording it on a thread of its own (`Taking`) as soon as it knows its workspace, so
the git processes (a `git status` takes seconds on a big tree) run while the run is built and its
first request goes out. The report waits for it before anything may change the tree: the first
tool call, or the user's hooks (watchers.py).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from cast.agent.git_baseline import GitBaseline

if TYPE_CHECKING:
    from cast.tools.snapshot import Snapshot


class Found(NamedTuple):
    baseline: GitBaseline | None  # in a git work tree
    snapshot: Snapshot | None  # outside one


NOTHING = Found(None, None)  # a report that compares no tree


def take(root: Path) -> Found:
    """The tree at `root` now: git's baseline, or a snapshot where git has none."""
    baseline = GitBaseline.take(root)
    if baseline is not None:
        return Found(baseline, None)
    from cast.tools.snapshot import Snapshot  # deferred: keeps the snapshot's walk off a git run's first request

    return Found(None, Snapshot.take(root))


def again(found: Found, root: Path) -> Found:
    """The same kind of record taken anew, for the next turn: git's if the run began with git's."""
    if found.baseline is not None:
        return Found(GitBaseline.take(root), None)
    return Found(None, type(found.snapshot).take(root)) if found.snapshot is not None else NOTHING


class Taking:
    """`take(root)` on a daemon thread started at once; `result()` waits for it (Ctrl+C still
    interrupts the wait) and raises what the thread raised."""

    def __init__(self, root: Path) -> None:
        self._done = threading.Event()
        self._found = NOTHING
        self._error: BaseException | None = None
        threading.Thread(target=self._take, args=(Path(root),), name="cast-found-tree", daemon=True).start()

    def _take(self, root: Path) -> None:
        try:
            self._found = take(root)
        except BaseException as exc:  # noqa: BLE001 — the waiter raises it, on its own thread
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> Found:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._found
