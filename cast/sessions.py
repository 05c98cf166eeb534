"""Sessions on disk: the transcript as an append-only journal, and a small meta file beside it.

Why a journal and not a snapshot: a session can die at any instant (Ctrl+C, a closed terminal,
kill -9), and everything before that instant must survive. So every message the `Transcript`
emits is one JSON line, written through to the kernel before the loop moves on: a killed process
loses nothing. The fsync that also survives a machine crash runs on a background thread (at most
one pending at a time, and a last one on close), because a step must not wait for the disk. The journal records
exactly what the listener saw, including partial appends to the last message (`"merged": true`),
whole-history rewrites (`{"role": "meta", "replace": [...]}` from aging and compaction) and the
conversation's declared prefix (`{"role": "meta", "prefix": {...}}`: system prompt, tools,
drop_block, server-side context management); `load` replays those records to rebuild the very
list the model last saw, and `resume` hands back the last prefix, so a resumed request is the
same bytes as the one before it.

A kill mid-write can leave a torn last line. Loading ignores it, and the next append cuts it off
before writing, so one crash never poisons the file. The rebuilt transcript is then made valid
for the API (tool calls left without results get "[interrupted: not run]"), so a resumed
session can be sent as is.

Layout: `<workspace state>/sessions/<id>/transcript.jsonl` and `meta.json` (written atomically),
in the workspace's private state dir (cast/state.py: owner-only, verified on every open), never in
the repository, where a committed symlink could send transcripts anywhere. Files are opened
without following symlinks. A `.cast/sessions/` left by an older cast is not read (a clone can
commit a forged one); `legacy_notice` tells the user once how to move theirs.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from cast.agent import events as ev
from cast.fsutil import O_CLOEXEC, read_regular, write_at
from cast.liveness import alive
from cast.models.base import Usage
from cast.session_records import Message, SessionError, last_prefix, make_valid, read_records, replay
from cast.state import announce, private_dir, workspace_state

SESSIONS = "sessions"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_ID = 200
TRANSCRIPT = "transcript.jsonl"
META = "meta.json"
MAX_META = 1 << 20


def sessions_dir(root: Path) -> Path:
    """The verified private directory of this workspace's sessions (StateError if unsafe)."""
    return private_dir(Path(root), SESSIONS)


def valid_id(id: str) -> bool:
    """A name a session directory may have, with room for `-exec-N` (a plan's front matter is the clone's text)."""
    return bool(_ID.fullmatch(id)) and ".." not in id and len(id) <= MAX_ID


def _session_dir(root: Path, id: str, reading: bool = True) -> Path:
    if not _ID.fullmatch(id) or ".." in id:
        raise SessionError(f"invalid session id {id!r}")
    directory = sessions_dir(root) / id
    if reading and not os.path.lexists(directory) and os.path.lexists(Path(root) / ".cast" / SESSIONS / id):
        raise SessionError(f"no session {id} in {directory.parent}: {_moved(root, directory.parent)}")
    return directory


def _moved(root: Path, directory: Path) -> str:
    return (
        f"cast no longer reads {Path(root) / '.cast' / SESSIONS} (a repository could plant sessions there); "
        f"to resume your own from there, move them: mv {Path(root) / '.cast' / SESSIONS}/* {directory}/"
    )


def legacy_notice(root: Path) -> None:
    """Once per workspace, ever: say that a `.cast/sessions/` an older cast left is not read.
    Not migrated: a clone can commit one, and nothing tells a planted transcript from the user's
    own (git makes both files owned by the user), so resuming it would put the repository's words
    in the user's mouth. Moving them is the user's call; the format is unchanged."""
    if not os.path.isdir(Path(root) / ".cast" / SESSIONS):
        return
    marker = "legacy-sessions-noticed"
    try:
        fd = os.open(
            workspace_state(Path(root)) / marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | O_CLOEXEC, 0o600
        )
    except OSError:
        return  # said before
    os.close(fd)
    announce(_moved(root, sessions_dir(root)))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json_at(directory: Path, name: str, data: dict[str, Any], durable: bool = True) -> None:
    """Atomically, in `directory` entered without following a symlink."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | O_CLOEXEC)
    try:
        write_at(fd, name, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"), durable)
    finally:
        os.close(fd)


class Session:
    """One session directory. `append` is the `Transcript.on_append` listener; `observe` takes
    loop events and keeps meta.json's status, steps and usage current, and journals each question
    the run asked and its answer (`{"role": "meta", "question": <the asked/answered event>}`)."""

    def __init__(self, directory: Path, meta: dict[str, Any]):
        self.dir = directory
        self.meta = meta
        self._lock = threading.Lock()
        self._file: Any = None
        self._dirty = threading.Event()  # the journal has bytes not yet fsynced
        self.prefix: dict[str, Any] | None = None  # the conversation's last declared prefix (set by resume)
        self._syncer: threading.Thread | None = None

    @property
    def id(self) -> str:
        return str(self.meta["id"])

    @classmethod
    def create(cls, root: Path, id: str, *, mode: str, task: str, model: str, plan_path: Path | str | None = None) -> Session:
        directory = _session_dir(root, id, reading=False)
        directory.mkdir(mode=0o700)
        now = _now()
        meta = {
            "id": id,
            "mode": mode,
            "task": task,
            "model": model,
            "plan_path": str(plan_path) if plan_path else None,
            "status": "running",
            "steps": 0,
            "pid": os.getpid(),
            "usage": Usage().to_dict(),
            "cost": 0.0,
            "created": now,
            "updated": now,
        }
        os.close(os.open(directory / TRANSCRIPT, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | O_CLOEXEC, 0o600))
        session = cls(directory, meta)
        write_json_at(directory, META, meta)
        return session

    @classmethod
    def open(cls, root: Path, id: str) -> Session:
        """Reopen an existing session to append to it; prefer `resume`, which also repairs."""
        directory = _session_dir(root, id)
        meta = read_meta(directory)
        session = cls(directory, meta)
        session.update(status="running", pid=os.getpid())
        return session

    @classmethod
    def resume(cls, root: Path, id: str) -> tuple[Session, list[Message]]:
        """Reopen a session and return the messages to continue from. If they had to be made
        valid (calls left unanswered by a crash), the repaired list is journalled as a replace
        record first, so the file keeps matching what the model will be sent."""
        directory = sessions_dir(root) / id
        read_meta(directory)
        records = read_records(directory / TRANSCRIPT)
        replayed = replay(records)
        messages = make_valid(replayed)
        session = cls.open(root, id)
        session.prefix = last_prefix(records)
        if messages != replayed:
            session.append({"role": "meta", "replace": messages})
        return session, messages

    # -- journal ----------------------------------------------------------------------------
    def append(self, message: Message) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            data = line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: \u escapes keep it, so replay stays exact
            data = (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
        with self._lock:
            out = self._file or self._open_journal()
            out.write(data)
            out.flush()
            if self._syncer is None:
                self._syncer = threading.Thread(target=self._sync_loop, args=(out,), name="cast-journal-sync", daemon=True)
                self._syncer.start()
        self._dirty.set()

    def _sync_loop(self, out: Any) -> None:
        """fsync whenever the journal has new bytes; ends when the journal is closed."""
        while True:
            self._dirty.wait()
            self._dirty.clear()
            if out.closed:
                return
            with suppress(OSError, ValueError):
                os.fsync(out.fileno())

    def _open_journal(self) -> BinaryIO:
        """Open for appending, first cutting off a torn last line left by a crash."""
        fd = os.open(self.dir / TRANSCRIPT, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | O_CLOEXEC, 0o600)
        out = os.fdopen(fd, "a+b")
        size = out.seek(0, os.SEEK_END)
        if size:
            out.seek(0)
        keep = out.read().rfind(b"\n") + 1 if size else 0  # up to the last complete line
        if keep != size:
            out.truncate(keep)
            out.seek(keep)
        self._file = out
        return out

    def close(self) -> None:
        with self._lock:
            if self._file:
                with suppress(OSError):
                    os.fsync(self._file.fileno())
                self._file.close()
                self._file = None
            syncer, self._syncer = self._syncer, None
        if syncer is not None:
            self._dirty.set()  # wakes it to see the closed file and end
            syncer.join(timeout=5)

    def discard_if_unused(self) -> bool:
        """Remove a session that holds nothing to go back to: no message at all (built, never
        driven), or a run that failed before the model ever replied (a missing key, a bad URL).
        Listing such sessions would only bury the real ones. True when it was removed."""
        import shutil

        try:
            records = read_records(self.dir / TRANSCRIPT)
        except SessionError:
            return False
        replied = any(record.get("role") == "assistant" for record in records)
        messages = [record for record in records if record.get("role") != "meta"]  # a declared prefix is no message
        if replied or (messages and self.meta.get("status") != "failed"):
            return False
        self.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return True

    # -- meta -------------------------------------------------------------------------------
    def update(self, durable: bool = True, **fields: Any) -> None:
        with self._lock:
            self.meta.update(fields)
            self.meta["updated"] = _now()
            self.meta["updated_ns"] = time.time_ns()  # orders updates within one second (writes may land later)
            write_json_at(self.dir, META, self.meta, durable)

    def observe(self, event: ev.Event) -> None:
        """Keep meta.json current from the loop's events (one write per step, not per delta)."""
        if isinstance(event, ev.UsageUpdate):
            self.update(
                durable=False, usage=event.usage.to_dict(), cost=round(event.cost, 6), context=event.context_tokens
            )  # every step: not worth a disk sync; context: what a resume shows until the next request
        elif isinstance(event, ev.StepStarted):
            self.meta["steps"] = self.meta.get("steps", 0) + 1  # written with the next usage/stop
        elif isinstance(event, ev.Stopped):
            self.update(status=event.status, reason=event.reason)
        elif isinstance(event, ev.Asked | ev.Answered):  # which approvals the run rests on: replay skips meta records
            self.append({"role": "meta", "question": json.loads(json.dumps(ev.to_json(event), default=str))})


def read_meta(directory: Path) -> dict[str, Any]:
    try:
        meta = json.loads(read_regular(directory / META, MAX_META).decode("utf-8"))
    except FileNotFoundError:
        raise SessionError(f"no session {directory.name!r} in this workspace (cast sessions lists them)") from None
    except (OSError, ValueError) as exc:
        raise SessionError(f"cannot read {directory / META}: {exc}") from None
    if not isinstance(meta, dict):
        raise SessionError(f"{directory / META} is not a JSON object")
    meta.setdefault("id", directory.name)
    if meta.get("status") == "running" and not alive(meta.get("pid"), _written_at(directory, meta)):
        meta["status"] = "interrupted"  # the process that wrote it is gone (its pid may be another's now): it was killed
    return meta


def _written_at(directory: Path, meta: dict[str, Any]) -> float | None:
    if isinstance(meta.get("updated_ns"), int):
        return float(meta["updated_ns"]) / 1e9
    with suppress(OSError):
        return (directory / META).stat().st_mtime
    return None


def load(root: Path, id: str) -> tuple[dict[str, Any], list[Message]]:
    """(meta, messages) of a session: the transcript as the model last saw it, made API-valid."""
    directory = _session_dir(root, id)
    meta = read_meta(directory)
    return meta, make_valid(replay(read_records(directory / TRANSCRIPT)))
