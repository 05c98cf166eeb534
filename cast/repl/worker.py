"""One job at a time in a background thread, so the prompt stays usable while the agent works.

Each job has its own interrupt flag. Ctrl+C can come before the job has anything to interrupt
(building a run takes git calls and loading the model SDK); the flag keeps it until the job can
act on it, and a new job starts with a clear one."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable


class Worker:
    def __init__(
        self,
        on_error: Callable[[str], None],
        on_change: Callable[[], None] = lambda: None,
        on_idle: Callable[[], None] = lambda: None,
    ):
        self.on_error = on_error
        self.on_change = on_change
        self.on_idle = on_idle  # called from the worker thread once a job has ended
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.interrupted = threading.Event()  # the running job's; replaced when a job starts

    @property
    def busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self, job: Callable[[], None], name: str = "cast-agent") -> bool:
        """Run `job` in the background; False (and nothing started) if a job is still running."""
        with self._lock:
            if self.busy:
                return False
            self.interrupted = threading.Event()
            self._thread = threading.Thread(target=self._run, args=(job,), name=name, daemon=True)
            self._thread.start()
        self.on_change()
        return True

    def _run(self, job: Callable[[], None]) -> None:
        try:
            job()
        except Exception as exc:  # a bug in a job must not leave the REPL without a worker
            self.on_error(f"internal error: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")
        finally:
            self._thread = None
            self.on_change()
            self.on_idle()

    def interrupt(self) -> bool:
        """Mark the running job as interrupted; False when no job is running."""
        with self._lock:
            if not self.busy:
                return False
            self.interrupted.set()
            return True

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the running job; True when none is left."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.busy
