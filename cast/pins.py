"""What the user approved in a workspace, keyed by a hash of what it is.

A repository may declare programs that would run as the user (an MCP server, a hook). cast runs one
only after the user approved that very thing: the approval is a pin on the digest of its defining
fields (a server's command, args, env names and url; a hook's event, matcher, command and timeout),
so a clone that changes one byte of it is asked about again, and an approval never carries over to
something else under the same name.

The pins live in cast's private state for the workspace (`state.private_dir`: owner-only, outside
the repository, verified on every open), where neither the repository nor a command the model runs
under workspace-write can plant one. One file, `pins/pins.json`, rewritten atomically under a lock
so two cast processes approving at once both keep their answer. A file cast cannot read is an
error that names it, never "nothing approved" written over the user's other answers.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from cast.fsutil import NotRegularFile, read_regular, write_at
from cast.state import StateError, existing_private_dir, open_private_dir

DIRECTORY = "pins"
FILE = "pins.json"
VERSION = 1
_KIND = re.compile(r"[a-z][a-z0-9_]*")
_LIMIT = 4 << 20  # thousands of pins; anything larger is not a file cast wrote
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class PinsError(StateError):
    """The pins file cannot be read as cast wrote it; the message names it and the fix."""


@dataclass(frozen=True)
class Pin:
    """One approval: `kind` ("mcp_server", "hook", ...), the thing's `name`, the `digest` approved,
    the day it was, and a `label` for listings (what the user saw when they said yes)."""

    kind: str
    name: str
    digest: str
    since: str
    label: str = ""


def digest(obj: object) -> str:
    """sha256 of `obj` as canonical JSON (sorted keys, no spaces, UTF-8): the same fields in any
    order give the same digest; any changed value, key or type gives another. Not JSON: TypeError."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def approved(workspace_root: Path, kind: str, name: str, digest: str) -> bool:
    """Whether the user approved exactly `digest` for `kind`/`name` in this workspace. Reading
    creates nothing: a workspace cast never wrote pins for has none."""
    _check_kind(kind)
    pin = _load_existing(workspace_root).get(kind, {}).get(name)
    return pin is not None and pin.digest == digest


def approve(workspace_root: Path, kind: str, name: str, digest: str, label: str = "") -> Pin:
    """Pin `digest` for `kind`/`name` (replacing an earlier pin of the same name); returns the pin."""
    _check_kind(kind)
    if not isinstance(digest, str) or not digest:
        raise ValueError("a pin needs a digest")
    pin = Pin(kind, name, digest, date.today().isoformat(), label)
    with _locked(workspace_root) as fd:
        pins = _read(fd)
        pins.setdefault(kind, {})[name] = pin
        _write(fd, pins)
    return pin


def revoke(workspace_root: Path, kind: str, name: str) -> bool:
    """Forget the approval of `kind`/`name`; whether there was one."""
    _check_kind(kind)
    if _existing_dir(workspace_root) is None:
        return False
    with _locked(workspace_root) as fd:
        pins = _read(fd)
        if pins.get(kind, {}).pop(name, None) is None:
            return False
        if not pins[kind]:
            del pins[kind]
        _write(fd, pins)
    return True


def listing(workspace_root: Path, kind: str | None = None) -> list[Pin]:
    """Every pin of the workspace (of one kind), sorted by kind and name."""
    if kind is not None:
        _check_kind(kind)
    pins = _load_existing(workspace_root)
    return [pin for k in sorted(pins) if kind in (None, k) for _, pin in sorted(pins[k].items())]


def _check_kind(kind: str) -> None:
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        raise ValueError(f"not a pin kind: {kind!r}")


def _existing_dir(root: Path) -> Path | None:
    return existing_private_dir(root, DIRECTORY)


def _load_existing(root: Path) -> dict[str, dict[str, Pin]]:
    path = _existing_dir(root)
    if path is None:
        return {}
    fd = os.open(path, _DIR_FLAGS)
    try:
        return _read(fd)
    finally:
        os.close(fd)


@contextmanager
def _locked(root: Path) -> Iterator[int]:
    """The pins directory, created and verified, held under an exclusive lock for a read-modify-write."""

    fd = open_private_dir(root, DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _read(dir_fd: int) -> dict[str, dict[str, Pin]]:
    shown = f"{DIRECTORY}/{FILE} in cast's state directory"
    try:
        data = read_regular(FILE, _LIMIT, dir_fd=dir_fd)
    except FileNotFoundError:
        return {}
    except NotRegularFile:
        raise PinsError(f"{shown} is not a regular file: remove it (cast asks for each approval again)") from None
    except OSError as exc:
        raise PinsError(f"cannot read {shown}: {exc.strerror}") from None
    if len(data) > _LIMIT:
        raise PinsError(f"{shown} is larger than {_LIMIT >> 20} MB, so not a file cast wrote: remove it")
    try:
        doc = json.loads(data.decode("utf-8"))
        return _parse(doc)
    except (UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
        raise PinsError(f"{shown} is damaged ({exc}): remove it, and cast asks for each approval again") from None


def _parse(doc: object) -> dict[str, dict[str, Pin]]:
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("pins"), list):
        raise ValueError(f"not version {VERSION} of cast's pins")
    pins: dict[str, dict[str, Pin]] = {}
    for entry in doc["pins"]:
        fields = {key: entry[key] for key in ("kind", "name", "digest", "since")}
        if not all(isinstance(value, str) for value in fields.values()) or not _KIND.fullmatch(fields["kind"]):
            raise ValueError("a pin's kind, name, digest and since must be strings")
        label = entry.get("label", "")
        pins.setdefault(fields["kind"], {})[fields["name"]] = Pin(**fields, label=label if isinstance(label, str) else "")
    return pins


def _write(dir_fd: int, pins: dict[str, dict[str, Pin]]) -> None:
    entries = [
        {"kind": pin.kind, "name": pin.name, "digest": pin.digest, "since": pin.since, "label": pin.label}
        for kind in sorted(pins)
        for _, pin in sorted(pins[kind].items())
    ]
    text = json.dumps({"version": VERSION, "pins": entries}, indent=1) + "\n"  # ASCII: any name survives the trip
    try:
        write_at(dir_fd, FILE, text.encode("ascii"))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PinsError(f"{DIRECTORY}/{FILE} in cast's state directory is a symlink: remove it") from None
        raise PinsError(f"cannot write {DIRECTORY}/{FILE} in cast's state directory: {exc.strerror}") from None
