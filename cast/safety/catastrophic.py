"""Commands cast never runs: no answer, no flag and no sandbox makes them useful.

Two tables of (pattern, why), matched against the command with runs of whitespace collapsed. A
pattern given as a tuple is a sequence: each part searched after the end of the part before, which
is what `A.*B` means, found in one pass (as one regex, every later A re-scans the rest: seconds on
a long command that a Ctrl+C cannot cut short). Commands over MAX_CHECKED characters are refused
before any table: none of the patterns is linear, and no useful command line is that long.
`NEVER` holds in every mode, --yes included. `NEVER_IN_PLAN` adds what could only be an attack
in plan mode, where a command the checker cannot prove may still run sandboxed: there is no
network there, so fetch-and-run can do nothing useful, and its only purpose would be harm.
"""

from __future__ import annotations

import re

MAX_CHECKED = 16_384  # characters; a longer command goes to a file (write_file) and runs from there

Pattern = str | tuple[str, ...]

NEVER: tuple[tuple[Pattern, str], ...] = (
    (
        r"\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z-]+\s+)*(/|/\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|\.|\./|\.\.|\*)(\s|$|;|&|\|)",
        "recursive rm of /, ~, the workspace or everything in it",
    ),
    ((r"\brm\s+", r"--recursive\b", r"\s(/|~|\$HOME|\.)(\s|$)"), "recursive rm of /, ~ or the workspace"),
    (
        r"\bfind\s+(-[HLP]\s+)*(/|~|\$HOME)/?\s+(-(depth|mindepth\s+\d+|xdev|mount)\s+)*(-delete\b|-exec(dir)?\s+rm\b)",
        "deletes everything under / or ~",
    ),
    (r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)", "force-push rewrites shared history"),
    (r"(^|[;&|(]\s*)(sudo|doas|su)\b", "privilege escalation"),
    (r"\bmkfs(\.\w+)?\b", "formats a filesystem"),
    (r"\b(mkswap|wipefs|fdisk|sfdisk|parted|blkdiscard)\b", "rewrites a disk or partition table"),
    ((r"\bdd\b", r"\bof=/dev/"), "writes onto a device"),
    (r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk|dm-|loop|disk)", "writes onto a device"),
    ((r"\b(shred|wipe)\b", r"\s/dev/"), "overwrites a device"),
    ((r":\s*\(\s*\)\s*\{", r":\s*\|\s*:", r"&"), "fork bomb"),
    (r"\b(\w+)\s*\(\s*\)\s*\{[^}]{0,200}?\b\1\s*\|\s*\1\b[^}]{0,200}&", "fork bomb"),  # a body that short
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stops the machine"),
    (r"\bsystemctl\s+(poweroff|reboot|halt|kexec|suspend|hibernate)\b", "stops the machine"),
    (r"\binit\s+[06]\b", "stops the machine"),
    (r"\bkill\s+(-\S+\s+)*-1\s*($|[;&|)])", "signals every process the user owns"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chmod of /"),
    (r"\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of /"),
)

NEVER_IN_PLAN: tuple[tuple[Pattern, str], ...] = (
    (
        r"\b(curl|wget|fetch)\b[^|;&]{0,2000}\|\s*(sudo\s+)?(ba|z|da|k|fi)?sh\b",
        "downloads code and runs it (plan mode has no network, and this is never part of planning)",
    ),
    (
        r"\b(ba|z|da)?sh\s+(-c\s+)?[\"']?\$\(\s*(curl|wget)\b",
        "downloads code and runs it (plan mode has no network, and this is never part of planning)",
    ),
    (r"(^|[;&|(]\s*)(nc|ncat|netcat|socat)\b", "opens network connections (plan mode has no network)"),
)


Compiled = tuple[tuple[tuple[re.Pattern[str], ...], str], ...]
_COMPILED: list[tuple[object, Compiled]] = []  # each table once compiled, found by identity


def _first(table: tuple[tuple[Pattern, str], ...], flat: str) -> str | None:
    return next((why for parts, why in _compiled(table) if _found_parts(parts, flat)), None)


def _compiled(table: tuple[tuple[Pattern, str], ...]) -> Compiled:
    """A table's patterns compiled on its first use (not at import: cast's start-up does not
    check commands), so each command is spared a lookup in re's cache per pattern."""
    for known, compiled in _COMPILED:
        if known is table:
            return compiled
    compiled = tuple(
        (tuple(re.compile(p) for p in ((pattern,) if isinstance(pattern, str) else pattern)), why) for pattern, why in table
    )
    _COMPILED.append((table, compiled))
    return compiled


def _found(pattern: Pattern, flat: str) -> bool:
    return _found_parts(tuple(re.compile(p) for p in ((pattern,) if isinstance(pattern, str) else pattern)), flat)


def _found_parts(parts: tuple[re.Pattern[str], ...], flat: str) -> bool:
    at = 0
    for part in parts:
        match = part.search(flat, at)
        if match is None:
            return False
        at = match.end()
    return True


# Spellings bash reads as the ones the table names: quotes and backslashes removed (`"rm" -rf ~`,
# `r''m`, `r\\m` are rm; a quoted rm in a message is refused too, the price of not being fooled),
# `${HOME}` as `$HOME`, the working directory as `.`, and `$HOME/*` as `$HOME` (the glob is everything in it).
_SAME = (
    (r"[\"'\\]", ""),
    (r"\$\{(HOME|PWD)\}", r"$\1"),
    (r"\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`", "."),
    (r"(~|\$HOME|\.)/\*", r"\1"),
)


def _plain(flat: str) -> str:
    for pattern, repl in _SAME:
        flat = re.sub(pattern, repl, flat)
    return flat


def catastrophic(command: str, workspace_root: str | None = None) -> str | None:
    """Why `command` is on the deny list of every mode, or None. Matched as written and with
    quotes and other spellings undone, so `"rm" -rf "$HOME"` is `rm -rf $HOME`."""
    if len(command) > MAX_CHECKED:
        return f"{len(command):,} characters is more than cast checks ({MAX_CHECKED:,}): write it to a file and run that"
    flat = " ".join(command.split())
    if why := _first(NEVER, flat) or _first(NEVER, plain := _plain(flat)):
        return why
    flat = plain
    if workspace_root and _found((r"\brm\s+", r"-[a-zA-Z]*[rR]"), flat):
        root = workspace_root.rstrip("/")
        if re.search(rf"\s{re.escape(root)}/?(\*)?(\s|$)", flat):
            return "recursive rm of the workspace root"
    return None


def never_in_plan(command: str, workspace_root: str | None = None) -> str | None:
    """Why plan mode refuses `command` before any sandbox is considered, or None."""
    return catastrophic(command, workspace_root) or _first(NEVER_IN_PLAN, " ".join(command.split()))
