"""Finding a workspace's sessions: the listing (`cast sessions`, `/resume`), the next free id, and
the execute runs of a plan alive in another process now. Reads each session's meta only; a
session that cannot be read is left out, never repaired here."""

from __future__ import annotations

import os
import re
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from cast.session_records import SessionError
from cast.sessions import SESSIONS, legacy_notice, read_meta, sessions_dir
from cast.state import existing_private_dir


def executing(root: Path, plan_path: Path) -> list[tuple[str, int]]:
    """(session, pid) of every execute run of `plan_path` alive in another process now."""
    base, found = existing_private_dir(Path(root), SESSIONS), []
    for directory in sorted(base.iterdir()) if base is not None else []:
        with suppress(SessionError, OSError):
            meta = read_meta(directory)  # a "running" one whose process is gone reads as interrupted
            live = meta.get("status") == "running" and meta.get("pid") != os.getpid()
            if live and meta.get("mode") == "execute" and meta.get("plan_path") == str(plan_path):
                found.append((str(meta["id"]), int(meta["pid"])))
    return found


EXEC_SUFFIX = "-exec"


def execute_id(root: Path, plan_session: str) -> str:
    """The session id for executing the plan written by `plan_session`: `<plan session>-exec`,
    then `-exec-2`, `-exec-3` for later executions. A plan written from an execute session
    (`X-exec`) executes as `X-exec-N`, never `X-exec-exec`."""
    base = re.sub(rf"(?:{EXEC_SUFFIX}(?:-\d+)?)+$", "", plan_session) or plan_session
    return next_id(root, base + EXEC_SUFFIX)


def format_sessions(found: list[SessionInfo], task_width: int = 60) -> list[str]:
    """One aligned line per session: id, mode, status, steps, task."""
    if not found:
        return []
    id_width = max(len(info.id) for info in found)
    status_width = max(len(info.status) for info in found)
    lines = []
    for info in found:
        task = " ".join(info.task.split())
        task = task if len(task) <= task_width else task[: task_width - 1] + "…"
        steps = f"{info.steps} step{'' if info.steps == 1 else 's'}"
        lines.append(f"{info.id:<{id_width}}  {info.mode:<7}  {info.status:<{status_width}}  {steps:>9}  {task}".rstrip())
    return lines


def next_id(root: Path, base: str) -> str:
    """`base` if no session has it yet, else `base-2`, `base-3`, ...: one session per run. An
    execute run of plan session X can use `next_id(root, X + "-exec")`."""
    candidate, n = base, 1
    while os.path.lexists(sessions_dir(root) / candidate):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


@dataclass(frozen=True)
class SessionInfo:
    id: str
    mode: str
    status: str
    task: str
    steps: int
    updated: str


def list_sessions(root: Path) -> list[SessionInfo]:
    """Every readable session, most recently updated first."""
    legacy_notice(root)
    base = existing_private_dir(Path(root), SESSIONS)
    found = []
    for directory in sorted(base.iterdir()) if base is not None else []:
        try:
            meta = read_meta(directory)
        except (SessionError, NotADirectoryError):
            continue
        info = SessionInfo(
            str(meta.get("id", directory.name)),
            str(meta.get("mode", "")),
            str(meta.get("status", "")),
            str(meta.get("task", "")),
            int(meta.get("steps") or 0),
            str(meta.get("updated", "")),
        )
        found.append(((info.updated, int(meta.get("updated_ns") or 0), directory.stat().st_mtime, info.id), info))
    return [info for _, info in sorted(found, key=lambda entry: entry[0], reverse=True)]
