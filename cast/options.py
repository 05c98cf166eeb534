"""What the command line (or the REPL) may override, in a module that imports nothing heavy: the
REPL holds these from its first frame, long before a run (and the tools, pydantic, the SDK) exists."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.agent.asking import Answering
    from cast.safety.approval import Approver


@dataclass
class Options:
    model: str | None = None
    max_steps: int | None = None
    json: bool = False
    yes: bool = False
    cwd: Path | None = None
    approver: Approver | Answering | None = None  # asks the user; None means nobody can be asked
    revision: str | None = None  # `cast execute --revision`: the run is pinned to the approved revision
