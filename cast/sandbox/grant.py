"""What a sandboxed command is granted besides reading (a Policy: where it may write, whether it
may use the network, what it writes into a throwaway overlay). Below policy.py, which picks the
layer that enforces it, and the layers themselves (bwrap.py, macos.py), which turn it into argv."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Policy:
    """What a sandboxed command may do besides reading: write beneath `writable` (the scratch dir
    is always added), and use the network only when `network`. Writes beneath an `overlay` path
    seem to succeed but land in a tmpfs that vanishes with the command (bubblewrap only)."""

    writable: tuple[str, ...] = ()
    network: bool = False
    name: str = "read-only"
    overlay: tuple[str, ...] = ()


READ_ONLY = Policy()


def workspace_write(root: Path, network: bool = False) -> Policy:
    return Policy((os.path.realpath(root),), network, "workspace-write")
