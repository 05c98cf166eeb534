"""A child run's transcript, kept with the session that started it.

Why: an explore's answer is all its parent's transcript holds of it, so the reads behind that
answer must be somewhere a person can check them. Each child gets `<session>/explore/<name>/`
with the same journal and meta file a session has (`sessions.Session`: fsynced, append-only,
replayable), inside the session's own private directory (owner-only, verified when the session was
opened), so a child's transcript is as safe from the repository as its parent's. `cast sessions`
lists sessions only; a child is found through its parent.
"""

from __future__ import annotations

import os
import re
import stat
from contextlib import suppress
from pathlib import Path
from typing import Any

from cast.models.base import Usage
from cast.session_records import Message, SessionError, read_records, replay
from cast.sessions import META, TRANSCRIPT, Session, _now, read_meta, sessions_dir, valid_id, write_json_at

CHILDREN = "explore"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,120}")


def _children_dir(session_dir: Path) -> Path:
    """`<session>/explore/`, made owner-only; refused if something else (a symlink) stands there."""
    directory = session_dir / CHILDREN
    with suppress(FileExistsError):
        os.mkdir(directory, 0o700)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise SessionError(f"{directory} is not cast's own directory")
    return directory


def create(session_dir: Path, session_id: str, name: str, *, task: str, model: str, parent_call: str) -> Session:
    """A journal for one child of the session in `session_dir`; `name` is the parent's tool-use id
    (one child per call)."""
    if not _NAME.fullmatch(name):
        raise SessionError(f"invalid child name {name!r}")
    directory = _children_dir(session_dir) / name
    os.mkdir(directory, 0o700)
    now = _now()
    meta: dict[str, Any] = {
        "id": name,
        "parent": session_id,
        "parent_call": parent_call,
        "mode": "explore",
        "task": task,
        "model": model,
        "status": "running",
        "steps": 0,
        "pid": os.getpid(),
        "usage": Usage().to_dict(),
        "cost": 0.0,
        "created": now,
        "updated": now,
    }
    fd = os.open(directory / TRANSCRIPT, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    os.close(fd)
    child = Session(directory, meta)
    write_json_at(directory, META, meta)
    return child


def session_dir(root: Path, session_id: str) -> Path | None:
    """The directory of a session of this workspace, None when there is none (a run without one)."""

    if not session_id or not valid_id(session_id):
        return None
    directory = sessions_dir(root) / session_id
    return directory if directory.is_dir() and not directory.is_symlink() else None


def children(session_dir: Path) -> list[tuple[dict[str, Any], list[Message]]]:
    """Each child of a session: its meta and its conversation as the child's model last saw it,
    oldest first."""
    directory = Path(session_dir) / CHILDREN
    if not directory.is_dir() or directory.is_symlink():
        return []
    found = []
    for entry in directory.iterdir():
        with suppress(SessionError, OSError):
            meta = read_meta(entry)
            found.append((meta, replay(read_records(entry / TRANSCRIPT))))
    return sorted(found, key=lambda pair: (str(pair[0].get("created", "")), str(pair[0].get("id", ""))))
