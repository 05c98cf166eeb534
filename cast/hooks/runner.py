"""Run one hook: the user's own program, given one JSON object on stdin, outside the model's sandbox.

A hook runs with the user's environment in the workspace root, like a command the user typed, in a
process group of its own under cast's launcher (the subreaper that finds whatever leaves the group),
so a hook that hangs is killed, all of it, at its timeout. Its stdin and output are temp files, not
pipes: a hook that never reads its input cannot block cast, and a grandchild that keeps an output
open cannot make cast wait. What it printed is kept up to a cap, with a marker when cut.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cast.hooks.config import Hook
from cast.sandbox.policy import wrap
from cast.text import clip

OUTPUT_CAP = 16 * 1024  # characters kept of each of stdout and stderr
BLOCK = 2  # the exit status that blocks


@dataclass(frozen=True)
class HookRun:
    """How a hook ended: its exit status (None when killed at its timeout or on Ctrl+C, or it never
    started: `error`), and what it printed."""

    hook: Hook
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""

    @property
    def blocked(self) -> bool:
        return self.exit_code == BLOCK

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def problem(self) -> str:
        """The warning for anything but 0 and 2, said in one line."""
        first = next((line.strip() for line in self.stderr.splitlines() if line.strip()), "")
        said = f": {first[:200]}" if first else ""
        if self.error:
            return f"hook {self.hook.name} ({self.hook.event}) did not start: {self.error}"
        if self.timed_out:
            return f"hook {self.hook.name} ({self.hook.event}) ran past its timeout of {self.hook.timeout:g}s and was killed"
        if self.exit_code is None:
            return f"hook {self.hook.name} ({self.hook.event}) was stopped"
        return f"hook {self.hook.name} ({self.hook.event}) exited {self.exit_code}{said}"


def run(hook: Hook, payload: dict[str, Any], cwd: Path, cancel: threading.Event | None = None) -> HookRun:
    # deferred: keeps cast.tools.process (6 modules) off the one-shot first request
    from cast.tools.process import _ExitWaiter, _kill_group

    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
    env = {**os.environ, "CAST_HOOK_EVENT": hook.event, "CAST_WORKSPACE": str(cwd)}
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        stdin.write(data)
        stdin.seek(0)
        argv = wrap(["bash", "--noprofile", "--norc", "-c", hook.command], None, None)
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=True, env=env)
        except OSError as exc:
            return HookRun(hook, None, error=exc.strerror or str(exc))
        started, timed_out, stopped, waiter = time.monotonic(), False, False, _ExitWaiter(proc.pid)
        try:
            while proc.poll() is None:
                left = hook.timeout - (time.monotonic() - started)
                timed_out = left <= 0
                stopped = cancel is not None and cancel.is_set()
                if timed_out or stopped:
                    break
                waiter.wait(min(0.05, left))
        finally:
            waiter.close()
            _kill_group(proc)  # the launcher kills every descendant, wherever it moved
        code = None if timed_out or stopped else proc.returncode
        return HookRun(hook, code, _text(stdout), _text(stderr), timed_out)


def _text(file: Any) -> str:
    file.seek(0)
    raw = file.read(OUTPUT_CAP * 4 + 1).decode("utf-8", "replace")
    return clip(raw, OUTPUT_CAP)
