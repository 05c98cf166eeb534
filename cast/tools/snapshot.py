"""The tree outside git: a walk that honours ignore files, and a snapshot to compare against.

Without git there is no index to ask what changed, and a tool's own list of changed paths misses
what a command did on the side. So a run records every file's size, mtime and content digest
when it starts and compares at the end. Ignored paths are left out the way git would leave them
out: `.gitignore` files anywhere in the tree (git's pattern rules: `!` negation, `dir/`, anchored
`a/b`, `*`, `?`, `[..]`, `**`), cast's own `.cast/`, and caches no one means to change
(`.pytest_cache/` carries its own `.gitignore` of `*`; `__pycache__/` does not). A tree too big to
walk is cut at a cap, and the snapshot says so rather than report a partial answer as whole.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 20_000
HASH_FILE_BYTES = 8 * 1024 * 1024  # bigger files are compared by size and mtime
HASH_TOTAL_BYTES = 128 * 1024 * 1024
KEEP_FILE_BYTES = 256 * 1024  # small files are kept to count changed lines
KEEP_TOTAL_BYTES = 32 * 1024 * 1024
DEFAULT_IGNORES = (
    ".git/",
    ".cast/",
    "__pycache__/",
    "*.py[co]",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".tox/",
    ".nox/",
    "node_modules/",
    ".venv/",
    "venv/",
    ".DS_Store",
)


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[i + 1 : end]
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        elif char == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def parse_rules(lines: list[str]) -> list[Rule]:
    rules = []
    for raw in lines:
        line = raw.rstrip("\n\r")
        if not line.strip() or line.startswith("#"):
            continue
        line = re.sub(r"(?<!\\)\s+$", "", line)
        negate = line.startswith("!")
        line = line[1:] if negate else line  # `\!` and `\#` are escapes, undone by _translate
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
        rules.append(Rule(regex, negate, dir_only))
    return rules


class Ignores:
    """Rule sets by the directory they apply under; the last matching rule decides, as in git."""

    def __init__(self, defaults: tuple[str, ...] = DEFAULT_IGNORES):
        self.sets: dict[str, list[Rule]] = {"": parse_rules(list(defaults))}

    def load(self, root: Path, rel_dir: str) -> None:
        try:
            text = (root / rel_dir / ".gitignore").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        rules = parse_rules(text.splitlines())
        key = rel_dir
        self.sets[key] = self.sets.get(key, []) + rules

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict = False
        for base, rules in self.sets.items():
            if base and not rel.startswith(base + "/"):
                continue
            sub = rel[len(base) + 1 :] if base else rel
            for rule in rules:
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(sub):
                    verdict = not rule.negate
        return verdict


def walk(root: Path, limit: int = MAX_FILES) -> tuple[list[tuple[str, os.stat_result]], bool]:
    """Files under `root` that ignore rules keep, sorted, with their lstat; and whether the walk
    stopped at `limit` files."""
    root = Path(root)
    ignores = Ignores()
    found: list[tuple[str, os.stat_result]] = []
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        ignores.load(root, rel_dir)
        try:
            names = sorted(os.listdir(root / rel_dir))
        except OSError:
            continue
        subdirs = []
        for name in names:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                info = os.lstat(root / rel)
            except OSError:
                continue
            is_dir = stat.S_ISDIR(info.st_mode)
            if ignores.ignored(rel, is_dir):
                continue
            if is_dir:
                subdirs.append(rel)
                continue
            if len(found) >= limit:
                return found, True
            found.append((rel, info))
        stack.extend(reversed(subdirs))
    return found, False


@dataclass
class Snapshot:
    """Each file's (size, mtime_ns, digest or None), and the bytes of small ones."""

    root: Path
    files: dict[str, tuple[int, int, str | None]] = field(default_factory=dict)
    kept: dict[str, bytes] = field(default_factory=dict)
    capped: bool = False
    limit: int = MAX_FILES

    @classmethod
    def take(cls, root: Path, limit: int = MAX_FILES) -> Snapshot:
        entries, capped = walk(root, limit)
        snap = cls(Path(root), capped=capped, limit=limit)
        hashed = kept = 0
        for rel, info in entries:
            digest = None
            if stat.S_ISREG(info.st_mode) and info.st_size <= HASH_FILE_BYTES and hashed + info.st_size <= HASH_TOTAL_BYTES:
                data = _read(snap.root / rel)
                if data is not None:
                    digest, hashed = hashlib.sha256(data).hexdigest(), hashed + len(data)
                    if len(data) <= KEEP_FILE_BYTES and kept + len(data) <= KEEP_TOTAL_BYTES:
                        snap.kept[rel], kept = data, kept + len(data)
            elif stat.S_ISLNK(info.st_mode):
                digest = "link:" + _readlink(snap.root / rel)
            snap.files[rel] = (info.st_size, info.st_mtime_ns, digest)
        return snap

    def changes(self) -> tuple[list[tuple[str, str]], bool]:
        """(path, "added" | "deleted" | "modified") for what differs now, sorted; and whether
        either walk hit the cap (then changes past it are not listed)."""
        now, capped = walk(self.root, self.limit)
        seen = {rel: info for rel, info in now}
        rows = []
        for rel in sorted(set(self.files) | set(seen)):
            before, info = self.files.get(rel), seen.get(rel)
            if before is None:
                if info is not None:
                    rows.append((rel, "added"))
                continue
            if info is None:
                if not capped:  # past the cap, absent from the walk is not gone
                    rows.append((rel, "deleted"))
                continue
            size, mtime, digest = before
            if (info.st_size, info.st_mtime_ns) == (size, mtime):
                continue
            if digest is not None and info.st_size == size and _digest(self.root / rel, info) == digest:
                continue  # rewritten with the same bytes
            rows.append((rel, "modified"))
        return rows, capped or self.capped


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _readlink(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _digest(path: Path, info: os.stat_result) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        return "link:" + _readlink(path)
    data = _read(path) if info.st_size <= HASH_FILE_BYTES else None
    return hashlib.sha256(data).hexdigest() if data is not None else None
