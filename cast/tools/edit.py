"""edit_file and write_file: the executor's writes, refused when based on a stale view.

The model edits what it saw. If the file changed since it read it (the user saved in their
editor, a formatter ran), the edit is refused and the model is told to read again, instead of
silently overwriting someone's work.
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from pathlib import Path

from pydantic import Field

from cast.fsutil import atomic_write
from cast.safety.decision import Refuse
from cast.safety.paths import relative
from cast.text import clip, plural
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError
from cast.tools.files import resolve, special
from cast.tools.results import Edited

DIFF_CHARS = 8_000
PROTECTED = {".git": "use git commands to change the repository", ".cast": "plans change only through write_plan and ticks"}
_IGNORABLE = dict.fromkeys(
    map(ord, "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\ufeff")
)


def _protected(part: str) -> str | None:
    """The protected name `part` is, on some file system: case folded (macOS, Windows), Unicode
    normalised with the characters HFS+ ignores dropped, trailing dots and spaces cut (Windows)."""
    name = unicodedata.normalize("NFC", part).translate(_IGNORABLE).casefold().rstrip(" .")
    return name if name in PROTECTED else None


def _guard_private(ctx: ToolContext, given: str, path: Path) -> None:
    """write_file and edit_file never touch `.git/` (its config and hooks run programs on the next
    git command) nor `.cast/` (cast's own config, plans and state): checked on the path as given
    and as resolved, so a symlink to either is refused too."""
    root = Path(os.path.realpath(ctx.workspace.root))
    lexical = Path(os.path.normpath(given if os.path.isabs(given) else root / given))
    for candidate in (lexical, path):
        try:
            parts = candidate.relative_to(root).parts
        except ValueError:
            continue
        for part in parts:
            name = _protected(part)
            if name is not None:
                raise ToolError(f"refusing to write {given}: write_file and edit_file never change {name}/ ({PROTECTED[name]})")


def _guard_fresh(ctx: ToolContext, path: Path, rel: str, must_have_read: bool) -> None:
    reads = ctx.workspace.reads
    if must_have_read and not reads.was_read(path):
        raise ToolError(f"{rel} has not been read in this session; read_file it first, then edit")
    if reads.is_stale(path):
        raise ToolError(f"{rel} changed on disk since you read it; read_file it again before changing it")


def _write(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    atomic_write(path, text.encode("utf-8"))
    if mode is not None:
        os.chmod(path, mode)


def _approve(ctx: ToolContext, rel: str, diff: str) -> None:
    """Execute mode's approval policy may ask the user before a file changes."""
    if ctx.sandbox.approval is not None:
        decision = ctx.sandbox.approval.decide_edit(rel, diff)
        if isinstance(decision, Refuse):
            raise ToolError(decision.reason)


def _diff(rel: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{rel}", f"b/{rel}", n=2)
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return clip(text, DIFF_CHARS)


class EditFileParams(Params):
    path: str
    old_string: str = Field(description="Exact text to replace, including indentation.")
    new_string: str
    replace_all: bool = Field(False, description="Replace every occurrence.")


class WriteFileParams(Params):
    path: str
    content: str


def edit_file(args: EditFileParams, ctx: ToolContext) -> Observation:
    path = resolve(ctx, args.path)
    _guard_private(ctx, args.path, path)
    rel = relative(ctx.workspace.root, path)
    if not path.is_file():
        raise ToolError(f"{rel} does not exist; use write_file to create a file")
    _guard_fresh(ctx, path, rel, must_have_read=True)
    old, new = args.old_string, args.new_string
    if old == new:
        raise ToolError("old_string and new_string are identical; nothing to change")
    if not old:
        raise ToolError("old_string is empty; give the exact text to replace (use write_file for new files)")
    try:
        before = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{rel} is not UTF-8 text; edit_file works on text files only") from None
    count = before.count(old)
    if count == 0:
        hint = (
            " (it matches if whitespace is ignored: copy the exact indentation from read_file)"
            if _loose_match(before, old)
            else ""
        )
        raise ToolError(f"old_string not found in {rel}{hint}")
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {rel}; include more surrounding lines to make it unique, or set replace_all"
        )
    after = before.replace(old, new) if args.replace_all else before.replace(old, new, 1)
    _approve(ctx, rel, _diff(rel, before, after))
    _write(path, after)
    ctx.workspace.reads.record(path)
    replaced = count if args.replace_all else 1
    diff = _diff(rel, before, after)
    return Observation(
        f"edited {rel}: {replaced} replacement{'s' if replaced > 1 else ''}\n{diff}",
        summary=f"{replaced} replacement{'s' if replaced > 1 else ''}",
        changed=(rel,),
        result=Edited(rel, diff),
    )


def _loose_match(text: str, fragment: str) -> bool:
    return " ".join(fragment.split()) in " ".join(text.split())


def write_file(args: WriteFileParams, ctx: ToolContext) -> Observation:
    path = resolve(ctx, args.path)
    _guard_private(ctx, args.path, path)
    rel = relative(ctx.workspace.root, path)
    if path.is_dir():
        raise ToolError(f"{rel} is a directory")
    existed = path.exists()
    special(path, rel)
    if existed:
        _guard_fresh(ctx, path, rel, must_have_read=False)
    content = args.content
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_bytes().decode("utf-8", "replace") if existed else ""
    _approve(ctx, rel, _diff(rel, before, content))
    _write(path, content)
    ctx.workspace.reads.record(path)
    size = len(content.encode("utf-8"))
    what = "replaced" if existed else "created"
    diff = _diff(rel, before, content) if existed else ""
    lines = content.count("\n") + (not content.endswith("\n") and bool(content))
    text = f"{what} {rel} ({plural(size, 'byte')}, {plural(lines, 'line')})"
    return Observation(
        text + (f"\n{diff}" if diff else ""), summary=f"{what}, {plural(size, 'byte')}", changed=(rel,), result=Edited(rel, diff)
    )


EDIT_FILE = Tool(
    "edit_file",
    "Replace an exact string in a file you have read. old_string must match exactly once (include "
    "surrounding lines to make it unique) unless replace_all is true. Returns a diff.",
    EditFileParams,
    edit_file,
    writes="path",
    access=Access.WRITE,
)
WRITE_FILE = Tool(
    "write_file",
    "Create a file, or replace a whole file's content. Parent directories are created.",
    WriteFileParams,
    write_file,
    writes="path",
    access=Access.WRITE,
)
