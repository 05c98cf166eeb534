"""Is the process that last wrote a session still that process?

A session's meta.json says `running` with the writer's pid until the run ends; a run that was
killed (kill -9, a crash, a power cut) leaves it so. Its pid alone does not say the run lives on:
the process may be a zombie (killed, not reaped yet), or, after a reboot or enough time, the pid
may belong to another process altogether. A process that started after the session's last write
cannot be its writer (the writer updates meta.json while it runs, so it started before that).
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Any

SLACK = 1.0  # seconds: clock ticks and a write timestamped just before a fast start


def alive(pid: Any, written_at: float | None = None) -> bool:
    """True while `pid` runs and (where the kernel says when it started) started no later than
    `written_at` (seconds since the epoch of the writer's last write; None: not checked)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: alive
    with suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        if fields[0] == "Z":
            return False  # a zombie is gone
        if written_at is not None:
            return _started_at(int(fields[19])) <= written_at + SLACK
    return True


def _started_at(ticks: int) -> float:
    """A process's start time (field 22 of /proc/PID/stat: clock ticks since boot) in epoch seconds."""
    boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime "))
    return boot + ticks / os.sysconf("SC_CLK_TCK")
