"""Who decides whether an execute-mode command runs.

Policy as data: a deny list of catastrophic commands no flag or answer can unlock, then a fixed
order of reasons to run without asking (proven read-only, an allow rule, an "always" answer
given earlier, --yes), then the user. Without a terminal and without --yes, the answer is no:
a headless run must never wait on a prompt nobody sees.
"""
from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from typing import Callable

# (pattern, why). Matched against the command with runs of whitespace collapsed.
CATASTROPHIC: tuple[tuple[str, str], ...] = (
    (r"\brm\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-[a-zA-Z-]+\s+)*(/|/\*|~|~/|~/\*|\$HOME/?|\$\{HOME\}/?|\.|\./|\.\.|\*)(\s|$|;|&|\|)",
     "recursive rm of /, ~, the workspace or everything in it"),
    (r"\brm\s+.*--recursive\b.*\s(/|~|\$HOME|\.)(\s|$)", "recursive rm of /, ~ or the workspace"),
    (r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)", "force-push rewrites shared history"),
    (r"(^|[;&|(]\s*)(sudo|doas|su)\b", "privilege escalation"),
    (r"\bmkfs(\.\w+)?\b", "formats a filesystem"),
    (r"\bdd\b.*\bof=/dev/", "writes onto a device"),
    (r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk)", "writes onto a device"),
    (r":\s*\(\s*\)\s*\{.*:\s*\|\s*:.*&", "fork bomb"),
    (r"\b(shutdown|reboot|halt|poweroff)\b", "stops the machine"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chmod of /"),
    (r"\bchown\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of /"),
)

SHELL_SYNTAX = re.compile(r"[;&|`$<>()\n\\]")


def catastrophic(command: str, workspace_root: str | None = None) -> str | None:
    """The reason a command is on the deny list, or None."""
    flat = " ".join(command.split())
    for pattern, why in CATASTROPHIC:
        if re.search(pattern, flat):
            return why
    if workspace_root and re.search(r"\brm\s+.*-[a-zA-Z]*[rR]", flat):
        root = workspace_root.rstrip("/")
        if re.search(rf"\s{re.escape(root)}/?(\*)?(\s|$)", flat):
            return "recursive rm of the workspace root"
    return None


def command_prefix(command: str) -> str:
    """What an "always" answer covers: the program and its subcommand (`git commit`, `npm test`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    prefix = words[:1]
    if len(words) > 1 and re.fullmatch(r"[a-z][a-z0-9_-]*", words[1]):
        prefix.append(words[1])
    return " ".join(prefix)


def is_simple(command: str) -> bool:
    """One plain command, no operators: only such commands can be matched by a rule, otherwise
    `pytest; rm -rf x` would ride on an allow rule for pytest."""
    return not SHELL_SYNTAX.search(command)


Approver = Callable[[str], str]  # command -> "yes" | "no" | "always"


@dataclass
class Decision:
    run: bool
    reason: str


@dataclass
class ApprovalPolicy:
    allow: tuple[str, ...] = ()
    yes: bool = False
    approver: Approver | None = None
    workspace_root: str | None = None
    always: set[str] = field(default_factory=set)

    def decide(self, command: str, read_only: Callable[[str], bool]) -> Decision:
        if why := catastrophic(command, self.workspace_root):
            return Decision(False, f"refused: {why}; cast never runs this, even with --yes")
        if read_only(command):
            return Decision(True, "read-only")
        simple = is_simple(command)
        if simple and any(fnmatch.fnmatchcase(command, rule) for rule in self.allow):
            return Decision(True, "allowed by config")
        if simple and command_prefix(command) in self.always:
            return Decision(True, "allowed for this session")
        if self.yes:
            return Decision(True, "--yes")
        if self.approver is None:
            return Decision(False, (
                "approval needed: this command is not provably read-only and cast is running "
                "without a terminal to ask. Re-run with --yes, or add an allow rule to "
                ".cast/config.toml (allow = [\"pytest*\"])"
            ))
        answer = self.approver(command)
        if answer == "always":
            self.always.add(command_prefix(command))
            return Decision(True, "approved (always)")
        if answer == "yes":
            return Decision(True, "approved")
        return Decision(False, "the user declined to run this command; ask or take another approach")
