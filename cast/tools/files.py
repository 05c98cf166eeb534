"""Read-only views of the workspace: read_file, list_files, grep.

Each observation says how much of the whole it shows ("lines 1-200 of 1830", "showed 200 of 917
matches") so the model knows when it is looking at part of something.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pydantic import Field

from cast.safety.paths import PathError, confine, relative
from cast.text import plural
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError

__all__ = ["GREP", "LIST_FILES", "READ_FILE", "resolve"]

READ_LIMIT_LINES = 2000
LINE_CHARS = 2000
OUTPUT_CHARS = 60_000


_SPECIAL = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def refuse_special(mode: int, rel: str) -> None:
    """Only regular files and directories are read: opening a named pipe waits for a writer that
    never comes, and a device can stream without end, so either would hang the tool."""
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = _SPECIAL.get(stat.S_IFMT(mode), "not a regular file")
        raise ToolError(f"{rel} is {kind}, not a file; the file tools read regular files only")


def special(path: Path, rel: str) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing or unreadable: the tool says so in its own words
    refuse_special(mode, rel)


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
    from cast.tools import pages  # deferred: a run's first request needs the tools' schemas, not their executors

    path = resolve(ctx, args.path)
    rel = relative(ctx.workspace.root, path)
    if path.is_dir():
        raise ToolError(f"{rel} is a directory; use list_files to see its contents")
    try:
        # O_NONBLOCK: a named pipe opens at once (and is refused) instead of waiting for a writer
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as handle:
            refuse_special(os.fstat(handle.fileno()).st_mode, rel)
            page = pages.read_page(handle, args.offset, args.limit, LINE_CHARS, OUTPUT_CHARS)
    except FileNotFoundError:
        raise ToolError(f"{rel} does not exist; use list_files or grep to find the right path") from None
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror}") from None
    if page.binary:
        raise ToolError(
            f"{rel} is a binary file ({plural(page.size, 'byte')}); read_file shows text only. "
            "Use bash with `file` or `xxd | head` to inspect it."
        )
    ctx.workspace.reads.record(path)
    if page.total == 0:
        return Observation(f"{rel} is empty (0 lines)", summary="0 lines")
    if not page.lines:
        raise ToolError(f"offset {args.offset} is past the end of {rel} ({plural(page.total, 'line')})")
    return Observation(pages.render(rel, page, args.offset), summary=pages.summary(page, args.offset))


def list_files(args: ListFilesParams, ctx: ToolContext) -> Observation:
    from cast.tools import search  # deferred: a run's first request needs the tools' schemas, not their executors

    path = resolve(ctx, args.path)
    if not path.is_dir():
        raise ToolError(f"{relative(ctx.workspace.root, path)} is not a directory")
    return search.list_files(path, args.pattern, ctx)


def grep(args: GrepParams, ctx: ToolContext) -> Observation:
    from cast.tools import search  # deferred: a run's first request needs the tools' schemas, not their executors

    path = resolve(ctx, args.path)
    special(path, relative(ctx.workspace.root, path))
    return search.grep(path, args.pattern, args.glob, args.ignore_case, ctx)


READ_FILE = Tool(
    "read_file",
    "Read a text file with numbered lines. Long files come in pages: pass offset (1-based line) and limit.",
    ReadFileParams,
    read_file,
    read_only=True,
    access=Access.READ,
)
LIST_FILES = Tool(
    "list_files",
    "List files under a directory (default: the workspace root), skipping what .gitignore ignores.",
    ListFilesParams,
    list_files,
    read_only=True,
    access=Access.READ,
)
GREP = Tool(
    "grep",
    "Search file contents with a regular expression (ripgrep syntax). Returns path:line:text.",
    GrepParams,
    grep,
    read_only=True,
    access=Access.READ,
)
