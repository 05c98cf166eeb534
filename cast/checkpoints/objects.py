"""git's object format, for the few objects a snapshot of cast's own edits writes itself.

A snapshot of a path or two needs one blob, the trees along its path and a commit: written here
as loose objects in the store, the format every git reads (`<type> <size>\\0<body>`, zlib at
git's loose-object level, named by the SHA-1 of the whole), with no git process and no index
(path_snapshot.py says why). Objects are only ever added, and only to the store: an object
already there is not rewritten, and the user's objects (the alternate) are only read, by git.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import zlib
from pathlib import Path

from cast.fsutil import write_at

TREE_MODE = b"40000"
LOOSE_LEVEL = 1  # core.looseCompression's default: git writes loose objects for speed
Entries = dict[bytes, tuple[bytes, bytes]]  # one tree: name -> (mode, raw 20-byte id)
_HEADER = re.compile(rb"([0-9a-f]{40}) (\w+) (\d+)\n")


def object_id(kind: str, body: bytes) -> bytes:
    """The raw id git gives an object of this type and body."""
    return hashlib.sha1(b"%s %d\0" % (kind.encode(), len(body)) + body).digest()


def write(objects: Path, kind: str, body: bytes) -> bytes:
    """Store a loose object (unless the store already holds it loose); returns its raw id."""
    oid = object_id(kind, body)
    name = oid.hex()
    folder = objects / name[:2]
    if os.path.exists(folder / name[2:]):
        return oid
    folder.mkdir(exist_ok=True)
    data = zlib.compress(b"%s %d\0" % (kind.encode(), len(body)) + body, LOOSE_LEVEL)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        write_at(fd, name[2:], data, durable=False)  # as git: loose objects are not fsynced by default
    finally:
        os.close(fd)
    return oid


def tree_body(entries: Entries) -> bytes:
    """A tree's body, its entries in git's order (a subtree sorts as if its name ended in '/')."""

    def order(name: bytes) -> bytes:
        return name + b"/" if entries[name][0] == TREE_MODE else name

    return b"".join(entries[n][0] + b" " + n + b"\0" + entries[n][1] for n in sorted(entries, key=order))


def parse_tree(body: bytes) -> Entries:
    entries: Entries = {}
    at = 0
    while at < len(body):
        space = body.index(b" ", at)
        nul = body.index(b"\0", space)
        entries[body[space + 1 : nul]] = (body[at:space], body[nul + 1 : nul + 21])
        at = nul + 21
    return entries


def parse_batch(out: bytes, asked: list[bytes]) -> list[tuple[str, bytes] | None]:
    """`git cat-file --batch` output for the names asked, in order: (type, body) or None (missing)."""
    found: list[tuple[str, bytes] | None] = []
    at = 0
    for name in asked:
        header = _HEADER.match(out, at)
        if header is None:
            line_end = out.index(b"\n", at)
            if out[at:line_end] != name + b" missing":
                raise ValueError(f"unexpected cat-file output: {out[at:line_end][:80]!r}")
            found.append(None)
            at = line_end + 1
            continue
        size = int(header.group(3))
        start = header.end()
        found.append((header.group(2).decode(), out[start : start + size]))
        at = start + size + 1
    return found


def commit_body(tree: str) -> bytes:
    """What `git commit-tree TREE -m 'cast checkpoint'` writes with cast's identity."""
    when = b"%d +0000" % int(time.time())
    who = b"cast <cast@localhost> " + when
    return b"tree %s\nauthor %s\ncommitter %s\n\ncast checkpoint\n" % (tree.encode(), who, who)
