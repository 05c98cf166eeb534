"""What the run observed, in order, and what a plan item's tick can rest on.

A model saying "done" is not evidence. Every command cast ran (with its exit code and test
counts), every command it did not run (declined, refused, interrupted) and every file a tool
changed goes into a ledger as it happens, from each call's typed result (results.py), never from
the tool's name or the words of its output. A tick is then judged against the part of the ledger
since the item went in progress: a file change or a command that exited 0 supports it, and a
verification the plan itself names (a `verify:` sub-bullet, or a command in backticks) must have
passed on its last run. A run has one ledger: the task board, the report, the self-check and
`cast verify` (for the commands it re-runs) read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cast.tools.base import CommandParams
from cast.tools.results import Declined, Interrupted, Ran, Result

TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(])(?:pytest|py\.test|python[\d.]* -m (?:pytest|unittest)|tox|nox|(?:npm|yarn|pnpm)(?: run)? test"
    r"|go test|cargo test|make (?:test|check)|ctest|rspec|jest|vitest|mvn test|gradle test|\./gradlew test"
    r"|phpunit|mix test|dotnet test)\b"
)
# The first word of a backticked span that makes it a command rather than a name (`calc.py`, `a + b`).
RUNNERS = frozenset(
    {
        "python",
        "python3",
        "pytest",
        "py.test",
        "make",
        "npm",
        "yarn",
        "pnpm",
        "npx",
        "node",
        "cargo",
        "go",
        "ruff",
        "mypy",
        "pyright",
        "tox",
        "nox",
        "bash",
        "sh",
        "just",
        "gradle",
        "mvn",
        "dotnet",
        "rspec",
        "bundle",
        "rake",
        "phpunit",
        "jest",
        "vitest",
        "tsc",
        "eslint",
        "deno",
        "bun",
        "uv",
        "poetry",
        "ctest",
        "mix",
    }
)


def normal(command: str) -> str:
    return " ".join(command.split())


def runs(line: str, command: str) -> bool:
    """Whether the command line `line` runs `command`: as a whole, or as one of its parts
    (`cd app && python3 -m pytest -q` runs `python3 -m pytest -q`; `echo make check` does not
    run `make check`)."""
    wanted, line = normal(command), normal(line)
    if not wanted:
        return False
    return re.search(r"(?:^|[;&|(]\s*)" + re.escape(wanted) + r"(?=$|[\s;&|)])", line) is not None


def is_test_command(command: str) -> bool:
    return bool(TEST_COMMAND.search(command))


@dataclass(frozen=True)
class CommandRun:
    """One bash call as observed. `outcome` is what happened to it: `ran`, `timed out`,
    `interrupted` (killed, or not started, by Ctrl+C) or `declined` (the approval policy or the
    user did not let it run; `reason` says why)."""

    command: str
    exit_code: int | None
    tests: dict[str, int] = field(default_factory=dict)
    timed_out: bool = False
    outcome: str = "ran"
    reason: str = ""

    @property
    def is_test(self) -> bool:
        return bool(self.tests) or is_test_command(self.command)

    @property
    def passed(self) -> bool:
        bad = self.tests.get("failed", 0) + self.tests.get("errors", 0)
        return self.outcome == "ran" and self.exit_code == 0 and not self.timed_out and not bad

    @property
    def label(self) -> str:
        """The report's column: `ok`, `FAIL`, or what kept it from running to the end."""
        if self.outcome in ("declined", "interrupted"):
            return self.outcome
        return "ok" if self.passed else "FAIL"

    @property
    def shown(self) -> str:
        """The command on one line, long ones shortened: a report line per command."""
        one = normal(self.command) if "\n" in self.command else self.command
        return one if len(one) <= 160 else one[:159] + "…"

    def brief(self) -> str:
        """For a report line whose label already says declined/interrupted: the command and why."""
        return f"`{self.shown}`" + (f" ({self.reason})" if self.reason else "")

    def describe(self) -> str:
        counts = ", ".join(f"{n} {k}" for k, n in self.tests.items())
        if self.outcome == "declined":
            return f"`{self.shown}` declined" + (f" ({self.reason})" if self.reason else "")
        if self.outcome == "interrupted":
            status = "interrupted" + (f" after exit {self.exit_code}" if self.exit_code not in (None, 0) else "")
        else:
            status = "timed out" if self.timed_out else f"exit {self.exit_code}"
        return f"`{self.shown}` {status}" + (f" ({counts})" if counts else "")


@dataclass(frozen=True)
class Entry:
    """One ledger line: a command run (or not run), or a file a tool changed."""

    run: CommandRun | None = None
    path: str = ""
    tool: str = ""


def command_run(result: Result | None) -> CommandRun | None:
    """The CommandRun a tool result stands for, or None when it is not a command."""
    if isinstance(result, Ran):
        killed = result.interrupted
        return CommandRun(
            result.command,
            result.exit_code,
            dict(result.tests),
            result.timed_out,
            "interrupted" if killed else "ran",
            "killed with its process group" if killed else "",
        )
    if isinstance(result, Declined):
        return CommandRun(result.command, None, outcome="declined", reason=result.reason)
    if isinstance(result, Interrupted) and isinstance(result.params, CommandParams):
        return CommandRun(result.params.command, None, outcome="interrupted", reason="" if result.started else "not run")
    return None


class Ledger:
    """Everything the run observed, in order; positions are stable, so "since this item started"
    is a slice. One per run, fed once with each tool result (agent/observed.ledger_feed); the
    task board, the report and the self-check all read it."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, result: Result | None, changed: tuple[str, ...] = (), tool: str = "", cached: bool = False) -> None:
        if cached:  # answered from the record: nothing ran again
            return
        run = command_run(result)
        if run is not None:
            self.entries.append(Entry(run=run))
        for path in changed:
            self.entries.append(Entry(path=path, tool=tool))

    def mark(self) -> int:
        return len(self.entries)

    @property
    def commands(self) -> list[CommandRun]:
        return self.commands_since(0)

    @property
    def changed(self) -> list[str]:
        return self.changed_since(0)

    def commands_since(self, mark: int) -> list[CommandRun]:
        return [e.run for e in self.entries[mark:] if e.run is not None]

    def changed_since(self, mark: int) -> list[str]:
        return list(dict.fromkeys(e.path for e in self.entries[mark:] if e.path))

    def last_run(self, command: str) -> CommandRun | None:
        """The last run of `command`: the same words, or a command line that contains them
        (`cd app && python3 -m pytest -q` ran `python3 -m pytest -q`). Declined ones count: the
        verification was asked for and did not happen."""
        return next((r for r in reversed(self.commands) if runs(r.command, command)), None)


# -- what a plan item names as its verification ---------------------------------------------------
_TICKS = re.compile(r"`([^`\n]+)`")
_VERIFY = re.compile(
    r"^\s*(?:[-*+]|\d{1,9}[.)])?\s*(?:\*\*)?verif(?:y|ied by|ication)(?:\*\*)?\s*:?(?:\*\*)?\s*(.*)$", re.IGNORECASE
)


def looks_like_command(span: str) -> bool:
    words = span.split()
    if not words:
        return False
    first = words[0]
    return is_test_command(span) or first in RUNNERS or first.startswith("./") or first.endswith(".sh")


def named_checks(item_text: str, body: list[str]) -> list[str]:
    """The commands an item names as its verification: from its `verify:` sub-bullets (the first
    backticked span, else the whole rest of the line if it reads like a command), else commands
    in backticks in the item's own text."""
    found: list[str] = []
    for line in body:
        match = _VERIFY.match(line)
        if not match:
            continue
        spans = _TICKS.findall(match[1])
        command = spans[0] if spans else (match[1].strip() if looks_like_command(match[1].strip()) else "")
        if command and normal(command) not in found:
            found.append(normal(command))
    if not found:
        found = [normal(s) for s in _TICKS.findall(item_text) if looks_like_command(s)]
    return list(dict.fromkeys(found))


_EXTENSIONS = (
    "py|pyi|js|jsx|ts|tsx|mjs|cjs|md|rst|txt|toml|yaml|yml|json|cfg|ini|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|sh|"
    "html|css|scss|sql|swift|scala|lua|ex|exs|cs|vue|svelte|lock|mk|gradle|xml|csv|env"
)
_FILE = re.compile(rf"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS}))(?![\w/-])")
_CHANGE = re.compile(
    r"^\W*(add|fix|change|update|edit|create|write|remove|delete|rename|implement|refactor|replace|move|extend|"
    r"rewrite|append|insert|modify|correct|bump|document)\b",
    re.IGNORECASE,
)


def named_files(item_text: str) -> list[str]:
    """The files an item that changes something names (`Add test_mul_zero to test_calc.py`): its
    tick needs a change to one of them. An item that only runs or reads names none."""
    if not _CHANGE.match(item_text):
        return []
    return list(dict.fromkeys(m for m in _FILE.findall(item_text.replace("`", " ")) if not looks_like_command(m)))


def item_body(text: str, line: int) -> list[str]:
    """The lines under the item at `line` (0-based) that belong to it: indented deeper than its
    bullet, up to the next item or a line at its level."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return []
    head = lines[line]
    column = len(head) - len(head.lstrip(" \t"))
    body = []
    for raw in lines[line + 1 :]:
        if not raw.strip():
            continue
        if len(raw) - len(raw.lstrip(" \t")) <= column or re.match(r"\s*(?:[-*+]|\d{1,9}[.)])\s+\[[ xX]\]", raw):
            break
        body.append(raw.rstrip("\r"))
    return body


@dataclass
class ItemEvidence:
    """What a tick rested on, kept per item for `/tasks`, the session and the report. It stays
    this type all the way; `to_dict` is for where it leaves as JSON (the session's meta, --json),
    `from_dict` reads that back."""

    commands: list[str] = field(default_factory=list)  # CommandRun.describe() of each, in order
    files: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)  # of `files`: changed by an earlier run, since the item's checkpoint
    checks: list[str] = field(default_factory=list)  # verifications the item names
    missing: str = ""  # why the tick had no evidence ("" when it had)
    note: str = ""

    @property
    def supported(self) -> bool:
        return not self.missing

    def to_dict(self) -> dict[str, Any]:
        return {
            "commands": list(self.commands),
            "files": list(self.files),
            "checks": list(self.checks),
            "supported": self.supported,
            "missing": self.missing,
            "note": self.note,
        } | ({"earlier": list(self.earlier)} if self.earlier else {})

    @classmethod
    def from_dict(cls, data: Any) -> ItemEvidence | None:
        """What `to_dict` wrote (a session's meta from any version of cast), or None when `data` is
        not that: a field of the wrong type is left out, never trusted as evidence."""
        if not isinstance(data, dict):
            return None

        def texts(key: str) -> list[str]:
            value = data.get(key)
            return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

        def text(key: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) else ""

        missing = text("missing")
        if not missing and data.get("supported") is False:  # said unsupported, with no reason kept
            missing = "no evidence recorded"
        return cls(texts("commands"), texts("files"), texts("earlier"), texts("checks"), missing, text("note"))

    def summary(self) -> str:
        parts = [
            *self.commands,
            *(f"{p} (changed by an earlier run since the item began)" if p in self.earlier else p for p in self.files),
        ]
        if self.missing:
            return "ticked without evidence: " + self.missing + (f" — note: {self.note}" if self.note else "")
        return "; ".join(parts) if parts else "no evidence recorded"


def judge(
    ledger: Ledger, since: int, checks: list[str], named: list[str] | None = None, earlier: list[str] | None = None
) -> ItemEvidence:
    """What supports a tick: the ledger since `since`, the last run of each named check, and a
    change to one of the files the item `named`. `earlier`: files changed since the item's
    checkpoint by a run before this one (killed mid-item), which this run's ledger never saw."""
    entries = ledger.entries[since:]
    runs = [e.run for e in entries if e.run is not None]
    files = list(dict.fromkeys(e.path for e in entries if e.path and not e.path.startswith(".cast/")))  # not cast's own files
    before = [p for p in dict.fromkeys(earlier or ()) if p not in files and not p.startswith(".cast/")]
    files += before
    found = ItemEvidence([r.describe() for r in runs], files, before, list(checks))
    problems = []
    for check in checks:
        last = ledger.last_run(check)
        if last is None:
            problems.append(f"the plan names `{check}` as its verification and it was not run")
        elif not last.passed:
            problems.append(f"the last run of the verification {last.describe()}")
    if not files and not any(r.passed for r in runs):
        if not runs:
            problems.append("nothing was run and no file was changed since it started")
        else:
            told = "; ".join(r.describe() for r in runs[-3:])
            problems.append(f"no file was changed and no command succeeded since it started ({told})")
    elif named and not any(path == name or path.endswith("/" + name) for path in files for name in named):
        shown = ", ".join(f"`{name}`" for name in named)
        them = "it" if len(named) == 1 else "any of them"
        problems.append(f"the item names {shown} and no change to {them} was made since it started")
    found.missing = "; ".join(problems)
    return found
