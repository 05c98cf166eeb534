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
from cast.config import ConfigError, config_dir
from cast.fsutil import read_regular

AGENTS_FILE = "AGENTS.md"
AGENTS_CAP = 32 * 1024


def find_root(start: Path) -> Path:
    """The git work tree containing `start`, else `start` itself."""
    top = git.toplevel(start)
    return top.resolve() if top is not None else start.resolve()


class NotAProject(ConfigError):
    """A run refused where the workspace would be `/` or the home directory (exit 2, like a config error)."""


def refuse_broad(start: Path | None = None) -> None:
    """A run from `/` or from the home directory itself, outside any git repository, would make
    the whole filesystem or home its workspace and write `.cast/` there: refuse, in one line.
    Every other directory outside git stays a workspace of its own."""
    here = os.path.realpath(start or Path.cwd())
    home = os.path.realpath(Path.home())
    if here not in ("/", home) or git.toplevel(Path(here)) is not None:
        return
    what = "your home directory" if here == home else "the filesystem root"
    raise NotAProject(
        f"not starting in {what} ({here}): cast would take all of it as the workspace and write .cast/ there; "
        "cd into a project, or run `git init` in one, and start cast there"
    )


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


STALE_WATCH = 64  # most recently read files checked for changes before every request
STALE_SWEEP = 16  # older reads checked per request, in turn


class ReadTracker:
    """Files the model has read, as they were when read. Thread-safe: reads run concurrently.

    Every read file is remembered, so an edit based on a stale view is always refused; but the
    check before each request looks at the `STALE_WATCH` most recently read ones and, in turn,
    `STALE_SWEEP` of the older ones, so its cost does not grow with the session while every read
    file is still looked at every few requests (older reads have mostly aged out of the context)."""

    def __init__(self, watch: int = STALE_WATCH, sweep: int = STALE_SWEEP) -> None:
        self._seen: dict[Path, Snapshot] = {}
        self._recent: dict[Path, None] = {}  # insertion-ordered: oldest read first
        self._older: dict[Path, None] = {}  # read before the recent ones; rotated by the sweep
        self.watch, self.sweep = watch, sweep
        self._lock = threading.Lock()

    def record(self, path: Path) -> None:
        snap = snapshot(path)
        with self._lock:
            self._recent.pop(path, None)
            self._older.pop(path, None)
            if snap:
                self._seen[path] = snap
                self._recent[path] = None
                while len(self._recent) > self.watch:
                    oldest = next(iter(self._recent))
                    del self._recent[oldest]
                    self._older[oldest] = None
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
        """Recently read files that changed since they were read; each is reported once, then
        forgotten until it is read again."""
        with self._lock:
            paths = list(self._recent)
            for _ in range(min(self.sweep, len(self._older))):
                path = next(iter(self._older))
                del self._older[path]
                self._older[path] = None  # to the back of the queue
                paths.append(path)
        changed = [p for p in paths if self.is_stale(p)]
        with self._lock:
            for p in changed:
                self._seen.pop(p, None)
                self._recent.pop(p, None)
                self._older.pop(p, None)
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
    def discover(cls, start: Path | None = None) -> Workspace:
        cwd = (start or Path.cwd()).resolve()
        return cls(root=find_root(cwd), cwd=cwd)

    @property
    def cast_dir(self) -> Path:
        return self.root / ".cast"

    def instructions(self) -> str:
        """AGENTS.md files, global first, then from the root down to the cwd; capped so a huge file
        cannot crowd out the task. The result is byte-stable while the files are unchanged. Each
        file is read confined (`read_instructions`): one that is not a regular file inside its own
        tree is skipped, and the user is told."""
        directory = self.cwd if self.cwd and (self.cwd == self.root or self.root in self.cwd.parents) else self.root
        chain = [directory, *directory.parents]
        sources = [(config_dir(), config_dir() / AGENTS_FILE, "global")]
        sources += [(self.root, d / AGENTS_FILE, "") for d in reversed(chain) if d == self.root or self.root in d.parents]
        parts, used = [], 0
        for tree, source, label in sources:
            label = label or os.path.relpath(source, self.root)
            text = read_instructions(source, tree, AGENTS_CAP - used, str(source) if label == "global" else label)
            if text is None:
                continue
            block = f'<instructions source="{label}">\n{text.strip()}\n</instructions>'
            if used + len(block) > AGENTS_CAP:
                block = block[: max(0, AGENTS_CAP - used)] + f"\n[truncated: AGENTS.md content is capped at {AGENTS_CAP} bytes]"
                parts.append(block)
                break
            parts.append(block)
            used += len(block)
        return "\n\n".join(parts)


def read_instructions(path: Path, tree: Path, cap: int, shown: str) -> str | None:
    """The text of an instruction file (at most `cap` + 1 bytes of it), or None when there is
    none or it may not be read: it must resolve inside `tree` (a committed `AGENTS.md ->
    ~/.ssh/id_rsa` or `-> /proc/self/environ` would send a secret to the API) and be a regular
    file (`/dev/zero` or a FIFO must neither fill memory nor hang), checked on the opened file."""
    from cast.state import announce  # deferred: keeps cast.state off the REPL's first prompt

    if not os.path.lexists(path):
        return None
    real_tree = os.path.realpath(tree)
    real = os.path.realpath(path)
    shown = _printable(shown)
    if os.path.commonpath([real, real_tree]) != real_tree:
        announce(
            f"skipped {shown}: it leads outside {_printable(real_tree)} through a symlink; instructions are read only from files inside it"
        )
        return None
    try:
        data = read_regular(real, max(cap, 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        announce(f"skipped {shown}: {exc.strerror or exc}; instructions are read only from regular files")
        return None
    return data.decode("utf-8", "replace")


def _printable(text: str) -> str:
    """A repository's file names may carry terminal control sequences: shown escaped."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
