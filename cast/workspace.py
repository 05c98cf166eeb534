"""The repository cast works in: where its root is, what instructions it carries, and which files
the model has seen.

The transcript is a cache of the files without invalidation. `ReadTracker` is the invalidation:
it remembers what each file looked like when the model read it, so cast can refuse an edit based on
a stale view and tell the model which of its reads went stale.
"""
from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from cast import git
from cast.config import config_dir

AGENTS_FILE = "AGENTS.md"
AGENTS_CAP = 32 * 1024


def find_root(start: Path) -> Path:
    """The git work tree containing `start`, else `start` itself."""
    top = git.toplevel(start)
    return top.resolve() if top is not None else start.resolve()


@dataclass(frozen=True)
class Snapshot:
    mtime_ns: int
    size: int
    digest: str


def snapshot(path: Path) -> Snapshot | None:
    try:
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return Snapshot(stat.st_mtime_ns, stat.st_size, digest)


class ReadTracker:
    """Files the model has read, as they were when read. Thread-safe: reads run concurrently."""

    def __init__(self) -> None:
        self._seen: dict[Path, Snapshot] = {}
        self._lock = threading.Lock()

    def record(self, path: Path) -> None:
        snap = snapshot(path)
        with self._lock:
            if snap:
                self._seen[path] = snap
            else:
                self._seen.pop(path, None)

    def was_read(self, path: Path) -> bool:
        with self._lock:
            return path in self._seen

    def is_stale(self, path: Path) -> bool:
        with self._lock:
            seen = self._seen.get(path)
        if seen is None:
            return False
        try:
            stat = path.stat()
        except OSError:
            return True
        if (stat.st_mtime_ns, stat.st_size) == (seen.mtime_ns, seen.size):
            return False
        current = snapshot(path)
        return current is None or current.digest != seen.digest

    def stale(self) -> list[Path]:
        """Read files that changed since they were read; each is reported once, then forgotten
        until it is read again."""
        with self._lock:
            paths = list(self._seen)
        changed = [p for p in paths if self.is_stale(p)]
        with self._lock:
            for p in changed:
                self._seen.pop(p, None)
        return changed


@dataclass
class Workspace:
    root: Path
    cwd: Path | None = None
    reads: ReadTracker = field(default_factory=ReadTracker)

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))
        self.cwd = Path(os.path.realpath(self.cwd or self.root))

    @classmethod
    def discover(cls, start: Path | None = None) -> "Workspace":
        cwd = (start or Path.cwd()).resolve()
        return cls(root=find_root(cwd), cwd=cwd)

    @property
    def cast_dir(self) -> Path:
        return self.root / ".cast"

    def instructions(self) -> str:
        """AGENTS.md files, global first, then from the root down to the cwd; capped so a huge file
        cannot crowd out the task. The result is byte-stable while the files are unchanged."""
        sources = [config_dir() / AGENTS_FILE]
        directory = self.cwd if self.cwd and (self.cwd == self.root or self.root in self.cwd.parents) else self.root
        chain = [directory, *directory.parents]
        sources += [d / AGENTS_FILE for d in reversed(chain) if d == self.root or self.root in d.parents]
        parts, used = [], 0
        for source in sources:
            try:
                text = source.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            label = "global" if source.parent == config_dir() else os.path.relpath(source, self.root)
            block = f"<instructions source=\"{label}\">\n{text.strip()}\n</instructions>"
            if used + len(block) > AGENTS_CAP:
                block = block[: max(0, AGENTS_CAP - used)] + f"\n[truncated: AGENTS.md content is capped at {AGENTS_CAP} bytes]"
                parts.append(block)
                break
            parts.append(block)
            used += len(block)
        return "\n\n".join(parts)
