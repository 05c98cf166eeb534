"""Read-only views of the workspace: read_file, list_files, grep.

Each observation says how much of the whole it shows ("lines 1-200 of 1830", "showed 200 of 917
matches") so the model knows when it is looking at part of something.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from functools import lru_cache
from pathlib import Path

from pydantic import Field

from cast.safety.paths import PathError, confine, relative
from cast.text import clip, plural
from cast.tools.base import Observation, Params, Tool, ToolContext, ToolError

READ_LIMIT_LINES = 2000
LINE_CHARS = 2000
OUTPUT_CHARS = 60_000
LIST_CAP = 500
GREP_CAP = 200
BINARY_SNIFF = 8192


def resolve(ctx: ToolContext, path: str) -> Path:
    try:
        return confine(ctx.workspace.root, path)
    except PathError as exc:
        raise ToolError(str(exc)) from exc


class ReadFileParams(Params):
    path: str = Field(description="Path relative to the workspace root.")
    offset: int = Field(1, ge=1, description="First line to show (1-based).")
    limit: int = Field(READ_LIMIT_LINES, ge=1, description=f"Number of lines (default {READ_LIMIT_LINES}).")


class ListFilesParams(Params):
    path: str = Field(".", description="Directory relative to the workspace root.")
    pattern: str | None = Field(None, description="Glob to filter by, e.g. '*.py' or 'src/**/test_*'.")


class GrepParams(Params):
    pattern: str = Field(description="Regular expression.")
    path: str = Field(".", description="File or directory to search (default: workspace root).")
    glob: str | None = Field(None, description="Only search files matching this glob, e.g. '*.py'.")
    ignore_case: bool = False


def read_file(args: ReadFileParams, ctx: ToolContext) -> Observation:
    path = resolve(ctx, args.path)
    rel = relative(ctx.workspace.root, path)
    if path.is_dir():
        raise ToolError(f"{rel} is a directory; use list_files to see its contents")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ToolError(f"{rel} does not exist; use list_files or grep to find the right path") from None
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror}") from None
    if b"\x00" in data[:BINARY_SNIFF]:
        raise ToolError(
            f"{rel} is a binary file ({len(data)} bytes); read_file shows text only. "
            "Use bash with `file` or `xxd | head` to inspect it."
        )
    text = data.decode("utf-8", errors="replace")
    note = "" if "\ufffd" not in text or _is_utf8(data) else " (not valid UTF-8: undecodable bytes shown as \ufffd)"
    lines = text.splitlines()
    total = len(lines)
    offset, limit = args.offset, args.limit
    if total and offset > total:
        raise ToolError(f"offset {offset} is past the end of {rel} ({total} lines)")
    chosen = lines[offset - 1 : offset - 1 + limit]
    last = offset + len(chosen) - 1
    body = "\n".join(f"{n:>6}\t{_cap_line(line)}" for n, line in enumerate(chosen, offset))
    ctx.workspace.reads.record(path)
    if total == 0:
        return Observation(f"{rel} is empty (0 lines)", summary="0 lines")
    header = f"{rel}: lines {offset}-{last} of {total}{note}"
    more = f"\n[truncated: showed lines {offset}-{last} of {total}; continue with offset={last + 1}]" if last < total else ""
    return Observation(clip(f"{header}\n{body}{more}", OUTPUT_CHARS), summary=f"lines {offset}-{last} of {total}")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _cap_line(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return line[:LINE_CHARS] + f" [truncated: line has {len(line)} chars]"


@lru_cache(maxsize=1)
def rg_binary() -> str:
    """ripgrep from the `ripgrep` package, installed next to this interpreter's scripts."""
    name = "rg.exe" if os.name == "nt" else "rg"
    schemes = [sysconfig.get_path("scripts")]
    try:
        schemes.append(sysconfig.get_path("scripts", f"{os.name}_user"))
    except KeyError:
        pass
    for directory in schemes:
        candidate = Path(directory) / name
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name)
    if found:
        return found
    raise ToolError("ripgrep (rg) is not installed; reinstall cast so its `ripgrep` dependency is present")


def _rg(ctx: ToolContext, args: list[str]) -> subprocess.CompletedProcess[str]:
    command = [rg_binary(), "--no-config", "--hidden", "--no-require-git", "--glob", "!.git", *args]
    return subprocess.run(
        command,
        cwd=ctx.workspace.root,
        capture_output=True,
        text=True,
        errors="replace",
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={**os.environ, "RIPGREP_CONFIG_PATH": ""},
    )


def list_files(args: ListFilesParams, ctx: ToolContext) -> Observation:
    path = resolve(ctx, args.path)
    if not path.is_dir():
        raise ToolError(f"{relative(ctx.workspace.root, path)} is not a directory")
    rg_args = ["--files", "--sort", "path"]
    if pattern := args.pattern:
        rg_args += ["--glob", pattern]
    result = _rg(ctx, [*rg_args, "--", str(path)])
    if result.returncode not in (0, 1):
        raise ToolError(f"list_files failed: {result.stderr.strip()}")
    files = [relative(ctx.workspace.root, Path(line)) for line in result.stdout.splitlines()]
    shown = files[:LIST_CAP]
    where = relative(ctx.workspace.root, path)
    if not files:
        return Observation(f"no files under {where}" + (f" matching {pattern!r}" if pattern else ""), summary="0 files")
    text = f"{plural(len(files), 'file')} under {where} (respects .gitignore)\n" + "\n".join(shown)
    if len(files) > LIST_CAP:
        text += f"\n[truncated: showed {LIST_CAP} of {len(files)} files; narrow with path or pattern]"
    return Observation(text, summary=plural(len(files), "file"))


def grep(args: GrepParams, ctx: ToolContext) -> Observation:
    path = resolve(ctx, args.path)
    rg_args = ["--line-number", "--with-filename", "--no-heading", "--color", "never", "--max-columns", "400"]
    if args.ignore_case:
        rg_args.append("--ignore-case")
    if glob := args.glob:
        rg_args += ["--glob", glob]
    result = _rg(ctx, [*rg_args, "--regexp", args.pattern, "--", str(path)])
    if result.returncode == 2 and not result.stdout:
        raise ToolError(f"grep failed: {result.stderr.strip()[:500]}")
    root = str(ctx.workspace.root) + os.sep
    matches = [line.removeprefix(root) for line in result.stdout.splitlines()]
    if not matches:
        return Observation(f"no matches for {args.pattern!r}", summary="0 matches")
    files = len({m.split(":", 1)[0] for m in matches})
    text = f"{plural(len(matches), 'matching line')} in {plural(files, 'file')}\n" + "\n".join(matches[:GREP_CAP])
    if len(matches) > GREP_CAP:
        text += f"\n[truncated: showed {GREP_CAP} of {len(matches)} matching lines; narrow with path or glob]"
    return Observation(clip(text, OUTPUT_CHARS), summary=plural(len(matches), "match", "matches"))


READ_FILE = Tool(
    "read_file",
    "Read a text file with numbered lines. Long files come in pages: pass offset (1-based line) and limit.",
    ReadFileParams,
    read_file,
    read_only=True,
)
LIST_FILES = Tool(
    "list_files",
    "List files under a directory (default: the workspace root), skipping what .gitignore ignores.",
    ListFilesParams,
    list_files,
    read_only=True,
)
GREP = Tool(
    "grep",
    "Search file contents with a regular expression (ripgrep syntax). Returns path:line:text.",
    GrepParams,
    grep,
    read_only=True,
)
