"""A sandboxed command's scratch dir (its HOME, TMPDIR and XDG dirs): where it lives, and how big
it may grow when it lives in memory."""

from __future__ import annotations

import os
import tempfile

from cast.sandbox import limits, visible
from cast.sandbox.policy import SCRATCH_PREFIX, Layer, Policy, runs_direct


def new(policy: Policy | None, layer: Layer) -> tuple[str, int | None]:
    """The scratch dir's path and, when it lives in memory, its size. Under bubblewrap alone it
    is a private tmpfs of size(), mounted inside the hidden temp dir at a path that exists only
    in the sandbox: nothing to make or remove on the host (a directory made and removed on the
    host's disk costs milliseconds per command), it is empty for every command and vanishes with
    it. Elsewhere it is a new directory in the system temp dir, removed when the command ends."""
    base = os.path.realpath(tempfile.gettempdir())
    if runs_direct(policy, layer) and any(base == h or visible.inside(base, [h]) for h in visible.view().hidden):
        return os.path.join(base, f"{SCRATCH_PREFIX}{os.urandom(6).hex()}"), size()
    return tempfile.mkdtemp(prefix=SCRATCH_PREFIX), None


def size() -> int:
    """The in-memory scratch dir's size: room for one file at the file-size limit and some more,
    so a large file still stops at that limit (EFBIG), and a command's temp files cannot fill
    the machine's memory."""
    return (limits.settings().limits.file_size_mb + 64) * limits.MB
