"""Starting a checkpoint store from the user's repository, so that its first snapshot costs
about a `git status` rather than a re-hash of the tree (shadow.py says why a store borrows).

The store copies the user's index (its stat data says which files are unchanged) and reads
their objects through an alternate. Its first HEAD is the user's HEAD tree when the copied index
needed no cleaning: no tree is written before the first `git status`, which then also lists what
the index stages against HEAD, each such path read from the work tree. Nothing is written to the
user's `.git`.
"""

from __future__ import annotations

import os
import re

from cast import git
from cast.checkpoints import store
from cast.checkpoints.store import Shadow, ShadowError
from cast.gitdir import belongs

_LOWER_TAG = re.compile(rb"\0[a-z] ")  # a literal first byte: the engine skips to each NUL in C


def _worth_a_look(listing: bytes) -> bool:
    """Could `ls-files -s -v -z` hold a record `_clean_index` acts on: assume-unchanged (a
    lowercase tag), a submodule, or one under .cast/? A superset (a name may hold those bytes),
    checked without a loop in Python: the loop then decides."""
    if b"\t.cast/" in listing or b" 160000 " in listing or listing[:1].islower():
        return True
    return _LOWER_TAG.search(listing) is not None


def borrow(shadow: Shadow) -> None:
    """Start from the user's index and read their objects, when the workspace is the top of a
    sha1 repository: the first snapshot then hashes only what differs from the index. The
    store's first HEAD holds the user's HEAD tree when the copied index needed no cleaning, so
    no tree is written before the first `git status` (which lists what the index stages too)."""
    if not os.path.lexists(shadow.root / ".git"):
        return
    found = (
        "--path-format=absolute",
        "--show-toplevel",
        "--git-path",
        "objects",
        "--git-path",
        "index",
        "--show-object-format",
    )
    out = os.fsdecode(
        git.run(shadow.root, "rev-parse", *found, "HEAD^{tree}") or git.run(shadow.root, "rev-parse", *found) or b""
    )
    lines = out.splitlines()
    if len(lines) < 4 or os.path.realpath(lines[0]) != str(shadow.root) or not os.path.isdir(lines[1]) or lines[3] != "sha1":
        return
    if not (belongs(str(shadow.root), lines[1]) and belongs(str(shadow.root), lines[2])):
        return  # a `.git` file naming another repository: its index and objects are not this tree's
    store.write_own(shadow.dir / store.BORROW, lines[1] + "\n")
    shadow.borrowed = lines[1]
    try:
        with open(lines[2], "rb") as source:
            data, copied = source.read(), os.fstat(source.fileno())
    except OSError:
        return
    index = shadow.git_dir / "index"
    index.write_bytes(data)
    os.utime(index, ns=(copied.st_atime_ns, copied.st_mtime_ns))  # git's racy-entry check compares with the index's time
    try:
        cleaned = _clean_index(shadow)
        shadow._commit(lines[4] if len(lines) == 5 and not cleaned else shadow.git("write-tree").decode().strip())
    except ShadowError:  # an index this git cannot use alone (a split index): start empty
        index.unlink(missing_ok=True)


def _clean_index(shadow: Shadow) -> bool:
    """What the store never records (`.cast/`, submodules) leaves the copied index, and no
    entry is taken as unchanged on the user's word (assume-unchanged). True if any was there."""
    gone, trusted = [], []
    listing = shadow.git("ls-files", "-s", "-v", "-z")
    if not _worth_a_look(listing):  # most indexes have none: 50,000 records need no loop in Python
        return False
    for record in listing.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if not path:
            continue
        if path.startswith(b".cast/") or meta[2:8] == b"160000":
            gone.append(path)
        elif meta[:1].islower():
            trusted.append(path)
    if gone:
        shadow.git("update-index", "--force-remove", "-z", "--stdin", data=b"".join(p + b"\0" for p in gone))
    if trusted:
        shadow.git("update-index", "--no-assume-unchanged", "-z", "--stdin", data=b"".join(p + b"\0" for p in trusted))
    return bool(gone)
