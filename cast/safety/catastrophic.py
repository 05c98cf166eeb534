"""Commands cast never runs: no answer, no flag and no sandbox makes them useful.

Two tables of (pattern, why), matched against the command with runs of whitespace collapsed.
`NEVER` holds in every mode, --yes included. `NEVER_IN_PLAN` adds what could only be an attack
in plan mode, where a command the checker cannot prove may still run sandboxed: there is no
network there, so fetch-and-run can do nothing useful, and its only purpose would be harm.
"""

from __future__ import annotations

import re

NEVER: tuple[tuple[str, str], ...] = (
    (
        r"\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z-]+\s+)*(/|/\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|\.|\./|\.\.|\*)(\s|$|;|&|\|)",
        "recursive rm of /, ~, the workspace or everything in it",
    ),
    (r"\brm\s+.*--recursive\b.*\s(/|~|\$HOME|\.)(\s|$)", "recursive rm of /, ~ or the workspace"),
    (
        r"\bfind\s+(-[HLP]\s+)*(/|~|\$HOME)/?\s+(-(depth|mindepth\s+\d+|xdev|mount)\s+)*(-delete\b|-exec(dir)?\s+rm\b)",
        "deletes everything under / or ~",
    ),
    (r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)", "force-push rewrites shared history"),
    (r"(^|[;&|(]\s*)(sudo|doas|su)\b", "privilege escalation"),
    (r"\bmkfs(\.\w+)?\b", "formats a filesystem"),
    (r"\b(mkswap|wipefs|fdisk|sfdisk|parted|blkdiscard)\b", "rewrites a disk or partition table"),
    (r"\bdd\b.*\bof=/dev/", "writes onto a device"),
    (r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk|dm-|loop|disk)", "writes onto a device"),
    (r"\b(shred|wipe)\b.*\s/dev/", "overwrites a device"),
    (r":\s*\(\s*\)\s*\{.*:\s*\|\s*:.*&", "fork bomb"),
    (r"\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\b[^}]*&", "fork bomb"),
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stops the machine"),
    (r"\bsystemctl\s+(poweroff|reboot|halt|kexec|suspend|hibernate)\b", "stops the machine"),
    (r"\binit\s+[06]\b", "stops the machine"),
    (r"\bkill\s+(-\S+\s+)*-1\s*($|[;&|)])", "signals every process the user owns"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chmod of /"),
    (r"\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of /"),
)

NEVER_IN_PLAN: tuple[tuple[str, str], ...] = (
    (
        r"\b(curl|wget|fetch)\b[^|;&]*\|\s*(sudo\s+)?(ba|z|da|k|fi)?sh\b",
        "downloads code and runs it (plan mode has no network, and this is never part of planning)",
    ),
    (
        r"\b(ba|z|da)?sh\s+(-c\s+)?[\"']?\$\(\s*(curl|wget)\b",
        "downloads code and runs it (plan mode has no network, and this is never part of planning)",
    ),
    (r"(^|[;&|(]\s*)(nc|ncat|netcat|socat)\b", "opens network connections (plan mode has no network)"),
)


def _first(table: tuple[tuple[str, str], ...], flat: str) -> str | None:
    return next((why for pattern, why in table if re.search(pattern, flat)), None)


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
    flat = " ".join(command.split())
    if why := _first(NEVER, flat) or _first(NEVER, plain := _plain(flat)):
        return why
    flat = plain
    if workspace_root and re.search(r"\brm\s+.*-[a-zA-Z]*[rR]", flat):
        root = workspace_root.rstrip("/")
        if re.search(rf"\s{re.escape(root)}/?(\*)?(\s|$)", flat):
            return "recursive rm of the workspace root"
    return None


def never_in_plan(command: str, workspace_root: str | None = None) -> str | None:
    """Why plan mode refuses `command` before any sandbox is considered, or None."""
    return catastrophic(command, workspace_root) or _first(NEVER_IN_PLAN, " ".join(command.split()))
