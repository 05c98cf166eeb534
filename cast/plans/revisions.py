"""Plan revisions: every version of a plan's text that anyone wrote, kept where a clone cannot reach.

A plan is a contract, so "the plan" must name one exact text. A revision id is a hash of the plan
file with every checkbox cleared: ticking an item (cast's or the user's) is progress, not a new
plan, and makes no revision; rewording, adding, removing or reordering an item, or editing the
prose, does. Each revision is stored once, with when it was first seen and who wrote it (`model`
through write_plan, `user` for an edit cast noticed), in cast's private state for the workspace
(state.private_dir), one directory per planning session. Approval binds to a revision id, and
`cast execute --revision` compares against it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cast.fsutil import O_CLOEXEC, write_at
from cast.plans.checklist import PlanError, describe_changes, parse
from cast.state import open_private_dir

ID_CHARS = 12
MIN_PREFIX = 6  # a revision named on the command line: at least this many characters of its id
LOG = "revisions.jsonl"


@dataclass(frozen=True)
class Revision:
    id: str
    time: str
    author: str  # "model" (write_plan) or "user" (an edit cast noticed)
    items: int


def normalised(data: bytes) -> bytes:
    """The plan with every checkbox cleared: what a revision id is a hash of."""
    text = data.decode("utf-8", "surrogateescape")
    raw = bytearray(data)
    for item in parse(text):
        raw[item.offset] = ord(" ")
    return bytes(raw)


def revision_id(data: bytes) -> str:
    return hashlib.sha256(normalised(data)).hexdigest()[:ID_CHARS]


def _plan_key(plan: Path) -> str:
    """The store's directory for a plan: its session directory's name, plus its file name when it
    is not the usual plan.md (a session may write more than one plan)."""
    session, stem = plan.parent.name, plan.stem
    key = session if stem == "plan" else f"{session}.{stem}"
    return key if key and not key.startswith(".") else "plan"


class Revisions:
    """The revisions of one plan file, oldest first."""

    def __init__(self, root: Path, plan: Path) -> None:
        self.root, self.plan, self.key = root, plan, _plan_key(plan)

    def _dir(self) -> int:
        base = open_private_dir(self.root, "revisions")
        try:
            with suppress(FileExistsError):
                os.mkdir(self.key, 0o700, dir_fd=base)
            return os.open(self.key, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | O_CLOEXEC, dir_fd=base)
        finally:
            os.close(base)

    def history(self) -> list[Revision]:
        fd = self._dir()
        try:
            raw = _read_at(fd, LOG) or b""
        finally:
            os.close(fd)
        revisions = []
        for line in raw.decode("utf-8", "replace").splitlines():
            with suppress(ValueError, KeyError, TypeError):
                entry = json.loads(line)
                revisions.append(Revision(str(entry["id"]), str(entry["time"]), str(entry["author"]), int(entry["items"])))
        return revisions

    def current(self) -> Revision | None:
        found = self.history()
        return found[-1] if found else None

    def record(self, author: str, data: bytes | None = None) -> tuple[Revision, bool]:
        """Keep the plan's text as it is now (or `data`) as a revision by `author`, unless it is the
        newest one already. Returns the revision and whether it is new."""
        if data is None:
            data = _read_plan(self.plan)
        rev = revision_id(data)
        newest = self.current()
        if newest is not None and newest.id == rev:
            return newest, False
        kept = Revision(
            rev, datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), author, len(parse(data.decode("utf-8", "surrogateescape")))
        )
        fd = self._dir()
        try:
            if _read_at(fd, f"{rev}.md") is None:
                write_at(fd, f"{rev}.md", normalised(data))
            log = (_read_at(fd, LOG) or b"") + (json.dumps(kept.__dict__) + "\n").encode()
            write_at(fd, LOG, log)
        finally:
            os.close(fd)
        return kept, True

    def text(self, rev: str) -> bytes:
        """The text of revision `rev` (an id or a prefix of at least MIN_PREFIX characters)."""
        full = self.resolve(rev)
        fd = self._dir()
        try:
            data = _read_at(fd, f"{full}.md")
        finally:
            os.close(fd)
        if data is None:
            raise PlanError(f"revision {full} of {self.plan} is listed but its text is missing from cast's state")
        return data

    def resolve(self, rev: str) -> str:
        known = [r.id for r in self.history()]
        matches = sorted({r for r in known if r.startswith(rev)}) if len(rev) >= MIN_PREFIX else []
        if len(matches) == 1:
            return matches[0]
        listed = ", ".join(known[-5:]) or "none yet"
        why = "is ambiguous" if matches else "is not a revision of this plan"
        raise PlanError(f"{rev!r} {why} (newest revisions: {listed}; cast plans --history lists them)")


def current_id(path: Path | None) -> str | None:
    """The revision id of the plan file as it is now (None without a readable plan)."""
    try:
        return revision_id(path.read_bytes()) if path is not None else None
    except OSError:
        return None


def item_diff(old: bytes, new: bytes) -> list[str]:
    """What changed between two plan texts, item by item (added, removed, reworded, moved);
    ticks do not count."""
    before, after = (normalised(x).decode("utf-8", "surrogateescape") for x in (old, new))
    notes = describe_changes(parse(before), parse(after))
    if not notes and before != after:
        return ["the plan's text was edited (checklist unchanged)"]
    return notes


def text_diff(old: bytes, new: bytes, old_name: str, new_name: str) -> str:
    a, b = (normalised(x).decode("utf-8", "replace").splitlines(keepends=True) for x in (old, new))
    return "".join(difflib.unified_diff(a, b, old_name, new_name))


def _read_plan(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PlanError(f"cannot read plan file {path}: {exc.strerror or exc}") from None


def _read_at(dir_fd: int, name: str) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read()
