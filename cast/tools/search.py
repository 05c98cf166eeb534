"""list_files and grep over trees of any size, in bounded time and memory.

Both read ripgrep as a stream (tools/ripgrep.py). list_files shows every path when there are few;
past the cap it answers with an overview instead of one folder's first 500 paths: the folders at
the first level where the tree branches, each with its file count and its first files. On a big
tree the overview stops counting after a short budget and says its counts are lower bounds. grep
keeps the first matching lines and counts the rest with rg's per-file counts, so 2 million
matching lines cost a count, not a copy.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from cast.safety.paths import relative
from cast.text import clip, plural
from cast.tools import ripgrep
from cast.tools.base import Observation, ToolContext, ToolError

LIST_CAP = 500
GREP_CAP = 200
OUTPUT_CHARS = 60_000
OVERVIEW_BUDGET = 0.4  # seconds of counting once a listing is known to be over the cap
MAX_DEPTH = 3  # how far the overview descends through folders that hold everything
ROOT_FILES_SHOWN = 40


@dataclass
class Listing:
    """The walk as it goes: every path while under the cap, then counts and a bounded sample per folder."""

    top: Path
    paths: list[bytes] = field(default_factory=list)
    total: int = 0
    depth: int = 0  # 0 until over the cap; then the number of path components that name a group
    counts: dict[bytes, int] = field(default_factory=dict)
    samples: dict[bytes, list[bytes]] = field(default_factory=dict)
    loose: list[bytes] = field(default_factory=list)  # files above the grouping level
    overview_since: float = 0.0
    groups_in: Path | None = None  # the folder whose subfolders are the groups

    def add(self, path: bytes) -> bool:
        self.total += 1
        if not self.depth:
            self.paths.append(path)
            if len(self.paths) > LIST_CAP:
                self._start_overview()
            return True
        self._group(path)
        return time.monotonic() - self.overview_since < OVERVIEW_BUDGET

    def _start_overview(self) -> None:
        self.depth, self.groups_in = branching_depth(self.top)
        self.overview_since = time.monotonic()
        seen, self.paths = self.paths, []
        for path in seen:
            self._group(path)

    def _group(self, path: bytes) -> None:
        parts = path.split(b"/", self.depth)
        if len(parts) <= self.depth:
            _keep_first(self.loose, path, LIST_CAP)
            return
        key = b"/".join(parts[: self.depth]) + b"/"
        self.counts[key] = self.counts.get(key, 0) + 1
        _keep_first(self.samples.setdefault(key, []), path, LIST_CAP)


def branching_depth(top: Path) -> tuple[int, Path]:
    """1, or deeper while a folder holds nothing but one folder (a repository whose all is in src/),
    and the folder whose entries are the groups. Read from the directory itself: the first paths
    of a parallel walk say nothing about its shape."""
    depth, here = 1, top
    while depth < MAX_DEPTH:
        try:
            entries = [e for e in os.scandir(here) if not e.name.startswith(".")]
        except OSError:
            break
        if len(entries) != 1 or not entries[0].is_dir(follow_symlinks=False):
            break
        here, depth = Path(entries[0].path), depth + 1
    return depth, here


def _keep_first(bucket: list[bytes], path: bytes, n: int) -> None:
    """Keep the n smallest paths in amortised O(1): sort and cut only when the bucket doubles."""
    bucket.append(path)
    if len(bucket) >= 2 * n:
        bucket.sort()
        del bucket[n:]


def list_files(path: Path, pattern: str | None, ctx: ToolContext) -> Observation:
    where = relative(ctx.workspace.root, path)
    prefix = "" if where == "." else where + "/"
    listing = Listing(path)
    args = ["--files", *(["--glob", pattern] if pattern else [])]
    stream = ripgrep.run(ctx, args, listing.add, cwd=path)
    if stream.returncode not in (0, 1) and stream.complete and not listing.total:
        raise ToolError(f"list_files failed: {stream.stderr.strip()[:500]}")
    if not listing.total:
        return Observation(f"no files under {where}" + (f" matching {pattern!r}" if pattern else ""), summary="0 files")
    if not listing.depth:
        shown = sorted(listing.paths)
        text = f"{plural(listing.total, 'file')} under {where} (respects .gitignore)\n" + "\n".join(
            prefix + _text(p) for p in shown
        )
        return Observation(text, summary=plural(listing.total, "file"))
    return _overview(listing, where, prefix, stream)


def _overview(listing: Listing, where: str, prefix: str, stream: ripgrep.Stream) -> Observation:
    bound = "" if stream.complete else "at least "
    folders = sorted(listing.counts)
    loose = sorted(listing.loose)[: ROOT_FILES_SHOWN if folders else LIST_CAP]
    if not folders:  # one flat directory: its first files are the overview
        text = f"{bound}{plural(listing.total, 'file')} under {where} (respects .gitignore)\n" + "\n".join(
            prefix + _text(p) for p in loose
        )
        text += f"\n[truncated: showed {len(loose)} of {bound}{listing.total} files; narrow with path or pattern]"
        return Observation(text, summary=f"{bound}{plural(listing.total, 'file')}")
    head = f"{bound}{plural(listing.total, 'file')} under {where} (respects .gitignore): more than {LIST_CAP}, so an overview"
    if not stream.complete:
        why = "the deadline" if stream.timed_out else f"{OVERVIEW_BUDGET:g} s"
        head += f" (counting stopped after {why}: counts are lower bounds)"
    unreached = [] if stream.complete else _unreached(listing)
    lines = [head + f"; {plural(len(folders) + len(unreached), 'folder')}, with their file counts:"]
    lines += [f"  {prefix}{_text(f)}  {bound}{plural(listing.counts[f], 'file')}" for f in folders[:LIST_CAP]]
    lines += [f"  {prefix}{name}/  not counted: the walk stopped before reaching it" for name in unreached[:LIST_CAP]]
    lines += [f"  {prefix}{_text(p)}" for p in loose]
    outside = sum(listing.counts.values()) + len(loose)
    if listing.total - outside > 0:
        lines.append(f"  and {plural(listing.total - outside, 'more file')} beside these folders")
    budget = max(LIST_CAP - len(lines), len(folders))
    each = max(1, budget // max(1, len(folders)))
    lines.append(f"First files of each folder (list_files with its path shows more; {each} each):")
    shown = 0
    for folder in folders:
        if shown >= LIST_CAP:
            break
        for path in sorted(listing.samples[folder])[:each]:
            lines.append(prefix + _text(path))
            shown += 1
    lines.append(f"[truncated: showed {shown + len(loose)} of {bound}{listing.total} file paths; narrow with path or pattern]")
    return Observation(clip("\n".join(lines), OUTPUT_CHARS), summary=f"{bound}{plural(listing.total, 'file')}")


def _unreached(listing: Listing) -> list[str]:
    """Folders at the grouping level that the stopped walk never entered, so none goes unmentioned."""
    here = listing.groups_in or listing.top
    base = os.path.relpath(here, listing.top)
    seen = {f.decode("utf-8", "replace") for f in listing.counts}
    names = []
    with os.scandir(here) as entries:
        for entry in entries:
            name = entry.name if base == "." else f"{base}/{entry.name}"
            if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False) and name + "/" not in seen:
                names.append(name)
    return sorted(names)


def _text(path: bytes) -> str:
    return path.decode("utf-8", "surrogateescape").encode("utf-8", "replace").decode("utf-8")


@dataclass
class Matches:
    lines: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, line: bytes) -> bool:
        self.total += 1
        self.lines.append(line.decode("utf-8", "replace"))
        return len(self.lines) <= GREP_CAP


@dataclass
class Counts:
    lines: int = 0
    files: int = 0

    def add(self, line: bytes) -> bool:
        _, _, count = line.rpartition(b"\0")
        self.lines += int(count or 0)
        self.files += 1
        return True


def grep(path: Path, pattern: str, glob: str | None, ignore_case: bool, ctx: ToolContext) -> Observation:
    flags = ["--color", "never", *(["--ignore-case"] if ignore_case else []), *(["--glob", glob] if glob else [])]
    target = ["--regexp", pattern, "--", str(path)]
    found = Matches()
    listed = ripgrep.run(
        ctx, ["--line-number", "--with-filename", "--no-heading", "--max-columns", "400", *flags, *target], found.add
    )
    if listed.returncode == 2 and not found.total and listed.complete:
        raise ToolError(f"grep failed: {listed.stderr.strip()[:500]}")
    root = str(ctx.workspace.root).rstrip("/") + "/"
    matches = [m.removeprefix(root) for m in found.lines[:GREP_CAP]]
    if not matches:
        return Observation(f"no matches for {pattern!r}", summary="0 matches")
    if listed.complete:
        total, files, bound = len(matches), len({m.split(":", 1)[0] for m in matches}), ""
    else:  # over the cap: count everything without copying it
        counts = Counts()
        counted = ripgrep.run(ctx, ["--count", "--with-filename", "--null", *flags, *target], counts.add)
        total, files = max(counts.lines, len(found.lines)), counts.files
        bound = "" if counted.complete else "at least "
    text = f"{bound}{plural(total, 'matching line')} in {bound}{plural(files, 'file')}\n" + "\n".join(matches)
    if total > len(matches):
        text += f"\n[truncated: showed {len(matches)} of {bound}{total} matching lines; narrow with path or glob]"
    return Observation(clip(text, OUTPUT_CHARS), summary=f"{bound}{plural(total, 'match', 'matches')}")
