"""ripgrep as a stream: list_files and grep read its output as it comes and stop it when they have enough.

A monorepo can make rg print hundreds of megabytes (every line of every file matches `e`). Holding
that in memory, or even splitting it into Python strings, costs more than the search; so output is
read in chunks of bytes, lines are only decoded while a caller still wants them, and the process is
killed as soon as the caller says stop or the deadline passes. The deadline covers cast's reading
too, not only rg's own work.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sysconfig
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cast.tools.base import ToolContext, ToolError

CHUNK = 1 << 16
DEADLINE = 30.0  # seconds for one rg call, reading included
# Never searched or listed: git's own store and cast's state (plans are read with read_file by path).
EXCLUDED = ("!.git", "!.cast")


@lru_cache(maxsize=1)
def rg_binary() -> str:
    """ripgrep from the `ripgrep` package, installed next to this interpreter's scripts."""
    name = "rg.exe" if os.name == "nt" else "rg"
    schemes = [sysconfig.get_path("scripts")]
    try:
        schemes.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:
        pass
    for directory in schemes:
        candidate = Path(directory) / name
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    raise ToolError("ripgrep (rg) is not installed; reinstall cast so its `ripgrep` dependency is present")


@dataclass
class Stream:
    """What one rg call produced: whether it ran to its end, and what it said on stderr."""

    complete: bool = True  # False: stopped by the caller or the deadline; counts are lower bounds
    timed_out: bool = False
    returncode: int = 0
    stderr: str = ""


def run(ctx: ToolContext, args: list[str], on_line: Callable[[bytes], bool], cwd: Path | None = None) -> Stream:
    """Run rg with `args` and hand every output line (bytes, without its newline) to `on_line`,
    which returns False to stop. rg runs in its own process group so stopping it stops its threads."""
    argv = [rg_binary(), "--no-config", "--hidden", "--no-require-git", *(f"--glob={g}" for g in EXCLUDED), *args]
    proc = subprocess.Popen(
        argv,
        cwd=cwd or ctx.workspace.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "RIPGREP_CONFIG_PATH": ""},
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    result = Stream()
    deadline = time.monotonic() + DEADLINE
    wanted = True
    try:
        for line in _lines(proc.stdout.fileno()):
            if not on_line(line):
                wanted = False
                break
            if time.monotonic() > deadline or (ctx.cancel is not None and ctx.cancel.is_set()):
                result.timed_out = time.monotonic() > deadline
                wanted = False
                break
    finally:
        if not wanted:
            result.complete = False
            _stop(proc)
        result.stderr = proc.stderr.read(4096).decode("utf-8", "replace")
        result.returncode = proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return result


def _lines(fd: int) -> Iterable[bytes]:
    pending = b""
    while chunk := os.read(fd, CHUNK):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from complete
    if pending:
        yield pending


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
