"""The evidence report at the end of a run: what the observations show, not what the model says.

A model's closing summary is its own account ("all tests pass", "verified the fix"), and nothing
in it is evidence. The report is built from what cast itself observed: the plan file's checkboxes
on disk, every command with its exit code and test counts, the files tool calls changed and a
diff stat of this run's changes against the tree it started from (recorded read-only: the user's
own uncommitted work is neither counted nor touched). Then each success claim in the
model's final text is matched against that evidence through a small table (pattern -> predicate),
and claims nothing supports are marked unchecked, so a reader knows which sentences to doubt.
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from cast.agent import events as ev
from cast.agent.git_baseline import GitBaseline, Stat, format_stat  # noqa: F401  (format_stat: used by callers)

TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(])(?:pytest|py\.test|python[\d.]* -m (?:pytest|unittest)|tox|nox|(?:npm|yarn|pnpm)(?: run)? test"
    r"|go test|cargo test|make (?:test|check)|ctest|rspec|jest|vitest|mvn test|gradle test|\./gradlew test"
    r"|phpunit|mix test|dotnet test)\b"
)
BUILD_COMMAND = re.compile(r"\b(?:build|make|compile|lint|ruff|flake8|mypy|pyright|tsc|eslint|cargo check|go vet)\b")
NEGATION = re.compile(r"\b(?:not|never|cannot|unable|fail(?:s|ed|ing|ure)?)\b|n't\b", re.I)


def is_test_run(facts: dict[str, Any]) -> bool:
    return bool(facts.get("tests")) or bool(TEST_COMMAND.search(str(facts.get("command", ""))))


@dataclass(frozen=True)
class CommandRun:
    command: str
    exit_code: int | None
    tests: dict[str, int] = field(default_factory=dict)
    timed_out: bool = False

    @property
    def is_test(self) -> bool:
        return is_test_run({"command": self.command, "tests": self.tests})

    @property
    def passed(self) -> bool:
        bad = self.tests.get("failed", 0) + self.tests.get("errors", 0)
        return self.exit_code == 0 and not self.timed_out and not bad

    def describe(self) -> str:
        counts = ", ".join(f"{n} {k}" for k, n in self.tests.items())
        status = "timed out" if self.timed_out else f"exit {self.exit_code}"
        return f"`{self.command}` {status}" + (f" ({counts})" if counts else "")


class Observations:
    """What the loop's events show: commands with exit codes, files changed, task statuses.
    Feed it every event; SelfCheck and ReportBuilder both keep one."""

    def __init__(self) -> None:
        self.commands: list[CommandRun] = []
        self.changed: list[str] = []
        self.steps: list[tuple[str, bool, str]] = []  # (tool name, ok, summary)
        self.tasks: dict[int, str] = {}  # task id -> status
        self.stopped: ev.Stopped | None = None
        self._text: list[str] = []

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted):
            self._text = []
        elif isinstance(event, ev.TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ev.ToolResult):
            self.steps.append((event.name, event.ok, event.summary))
            for path in event.changed:
                if path not in self.changed:
                    self.changed.append(path)
            facts = event.facts or {}
            if "command" in facts and "exit_code" in facts and not event.cached:
                self.commands.append(CommandRun(str(facts["command"]), facts.get("exit_code"),
                                                dict(facts.get("tests") or {}), bool(facts.get("timed_out"))))
        elif isinstance(event, ev.TaskUpdate):
            self.tasks = {task.id: task.status for task in event.tasks}
        elif isinstance(event, ev.Stopped):
            self.stopped = event

    @property
    def last_text(self) -> str:
        """Text streamed in the last step (the model's closing words when it finished)."""
        return "".join(self._text)

    def last_test(self) -> CommandRun | None:
        return next((c for c in reversed(self.commands) if c.is_test), None)


# -- claims -----------------------------------------------------------------------------------
Verdict = tuple[bool, str]


def _tests_pass(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    last = obs.last_test()
    if last is None:
        return False, "no test command was run"
    if not last.passed:
        return False, f"the last test run {last.describe()}"
    return True, f"the last test run {last.describe()}"


def _ran(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    wanted = " ".join(match["cmd"].split())
    for run in reversed(obs.commands):
        if wanted and wanted in " ".join(run.command.split()):
            return True, run.describe()
    return False, f"no command `{wanted}` was observed"


def _verified(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    good = [c for c in obs.commands if c.exit_code == 0 and not c.timed_out]
    if not good:
        return False, "no command was run that could verify it"
    return True, f"{len(good)} command(s) exited 0, last {good[-1].describe()}"


def _changed(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    path = match["path"].strip("`'\"").lstrip("./")
    hit = next((p for p in obs.changed if p == path or p.endswith("/" + path)), None)
    return (True, f"{hit} was changed by a tool call") if hit else (False, f"no observed change to {path}")


def _built(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    runs = [c for c in obs.commands if BUILD_COMMAND.search(c.command)]
    if not runs:
        return False, "no build or lint command was run"
    return (runs[-1].exit_code == 0), runs[-1].describe()


def _all_done(obs: Observations, match: re.Match[str], left: list[str]) -> Verdict:
    return (not left, "no plan items are left" if not left else f"{len(left)} plan item(s) still unticked")


_PATH = r"`?(?P<path>[\w.-]+(?:/[\w.-]+)*\.\w{1,8})`?"

# kind -> (pattern of a success claim, predicate over the observations). Order matters: a
# sentence is matched against every rule, and each rule that matches yields one claim.
CLAIM_RULES: tuple[tuple[str, re.Pattern[str], Callable[[Observations, re.Match[str], list[str]], Verdict]], ...] = (
    ("tests pass", re.compile(
        r"\b(?:all\s+(?:the\s+)?)?(?:unit\s+)?tests?(?:\s+suite)?\s+(?:now\s+|still\s+)?"
        r"(?:pass(?:es|ed|ing)?|are\s+(?:passing|green)|(?:is|are)\s+green|succeed(?:s|ed)?)\b", re.I), _tests_pass),
    ("command ran", re.compile(r"\b(?:ran|run|running|executed)\s+`(?P<cmd>[^`]+)`", re.I), _ran),
    ("verified", re.compile(r"\b(?:verified|confirmed|double-checked|checked that)\b", re.I), _verified),
    ("file changed", re.compile(r"\b(?:updated|modified|edited|changed|created|added|wrote|fixed)\s+(?:the\s+file\s+|file\s+)?" + _PATH, re.I), _changed),
    ("build passes", re.compile(r"\b(?:build|lint(?:ing|er)?|type[- ]?check(?:s|ing)?|mypy|ruff)\b[^.\n]*?\b(?:pass(?:es|ed)?|succeed(?:s|ed)?|clean|green)\b", re.I), _built),
    ("all items done", re.compile(r"\ball\s+(?:the\s+)?(?:plan\s+|checklist\s+)?(?:items|tasks|steps)\b[^.\n]*?\b(?:done|complete(?:d)?|finished|ticked)\b", re.I), _all_done),
)


@dataclass(frozen=True)
class Claim:
    text: str
    kind: str
    checked: bool
    evidence: str


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", p).strip() for p in parts if p.strip()]


def check_claims(text: str, obs: Observations, left: list[str]) -> list[Claim]:
    claims = []
    for sentence in sentences(text):
        for kind, pattern, predicate in CLAIM_RULES:
            match = pattern.search(sentence)
            if not match or NEGATION.search(sentence):
                continue
            ok, why = predicate(obs, match, left)
            claims.append(Claim(sentence[:200], kind, ok, why))
    return claims


# -- the plan as last seen ------------------------------------------------------------------------
@dataclass(frozen=True)
class PlanItem:
    number: int
    text: str
    checked: bool


class PlanState:
    """The plan's checklist as cast last saw it. The file can vanish or turn unreadable mid-run
    (moved away, a branch switched); then `items` stay as last known, from the last read or the
    task board's last update, and `lost` says what happened, so a missing plan is never taken for
    a plan with nothing left to do."""

    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self.items: list[PlanItem] = []
        self.lost = ""  # "missing" or "unreadable (...)" while the file cannot be read
        self.read()

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.TaskUpdate):  # the board's rows: the plan as it last read it
            self.items = [PlanItem(t.id, t.text, t.status == "done") for t in event.tasks]

    def read(self) -> list[PlanItem]:
        if self.path is None:
            return []
        from cast.plans.checklist import PlanError, PlanFile

        try:
            items = PlanFile(self.path).items
        except PlanError as exc:
            self.lost = "missing" if not self.path.exists() else f"unreadable ({exc})"
            return self.items
        self.lost, self.items = "", [PlanItem(i.number, i.text, i.checked) for i in items]
        return self.items


# -- the report -------------------------------------------------------------------------------
@dataclass
class Report:
    status: str = ""
    reason: str = ""
    plan_path: str | None = None
    plan_lost: str = ""  # "missing"/"unreadable (...)": items are as last known
    items_done: list[dict[str, Any]] = field(default_factory=list)
    items_left: list[dict[str, Any]] = field(default_factory=list)
    ticked_this_run: int = 0
    commands: list[CommandRun] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    diff_stat: str = ""
    claims: list[Claim] = field(default_factory=list)
    by_item: list[tuple[int, str, str]] = field(default_factory=list)  # (item, text, diffstat) from checkpoints
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for entry, run in zip(data["commands"], self.commands):
            entry["passed"], entry["is_test"] = run.passed, run.is_test
        data["unchecked_claims"] = sum(1 for c in self.claims if not c.checked)
        return data

    def render_text(self) -> str:
        out = [f"Result: {self.status}" + (f" ({self.reason})" if self.reason else "")]
        if self.plan_path:
            total = len(self.items_done) + len(self.items_left)
            counts = f"{len(self.items_done)}/{total} items done ({self.ticked_this_run} this run)"
            if self.plan_lost:
                out.append(f"Plan: plan file {self.plan_lost} — {self.plan_path}; when last read, {counts}")
            else:
                out.append(f"Plan: {counts} — {self.plan_path}")
            out += [f"  [ ] {i['number']}. {i['text']}" for i in self.items_left]
        out.append(f"Commands run: {len(self.commands)}" if self.commands else "Commands run: none")
        out += [f"  {'ok  ' if c.passed else 'FAIL'} {c.describe()}" for c in self.commands]
        out.append(f"Files changed: {len(self.files_changed)}" if self.files_changed else "Files changed: none")
        if self.diff_stat:
            out += ["  " + line for line in self.diff_stat.rstrip().splitlines()]
        elif self.files_changed:
            out += [f"  {path}" for path in self.files_changed]
        if self.by_item:
            out.append("Changes by item (cast diff ITEM shows them, cast undo ITEM reverts them):")
            for number, text, stat in self.by_item:
                out += [f"  {number}. {text}", *("    " + line.strip() for line in stat.splitlines())]
        out += [f"Note: {note}" for note in self.notes]
        if self.claims:
            out.append("Claims in the final message:")
            out += [f"  {'checked  ' if c.checked else 'UNCHECKED'} \"{c.text}\" — {c.evidence}" for c in self.claims]
        return "\n".join(out)


class ReportBuilder:
    """Create at the start of a run (it records the starting git state and plan ticks, writing
    nothing), feed it every event with `observe`, and `build()` when the run stops."""

    def __init__(self, root: Path, plan_path: Path | None = None, *, git: bool = True):
        self.root = Path(root)
        self.plan_path = Path(plan_path) if plan_path else None
        self.obs = Observations()
        self.plan = PlanState(self.plan_path)
        self.baseline = GitBaseline.take(self.root) if git else None
        self.start_ticked = {i.number for i in self.plan.items if i.checked}

    def observe(self, event: ev.Event) -> None:
        self.obs.observe(event)
        self.plan.observe(event)

    def _git_changes(self) -> list[tuple[str, Stat]]:
        """Git's view, as paths relative to the workspace; not the plan file (its ticks have a
        line of their own) nor the session transcripts."""
        if self.baseline is None:
            return []
        root = self.root.resolve()
        own = os.path.relpath(os.path.abspath(self.root / self.plan_path), os.path.abspath(self.root)) if self.plan_path else None
        rows = []
        for path, counts in self.baseline.changes():
            shown = os.path.relpath(self.baseline.top / path, root).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            if shown != own and not shown.startswith(".cast/sessions/"):
                rows.append((shown, counts))
        return rows

    def build(self, final_text: str | None = None) -> Report:
        if self.plan.path != self.plan_path:  # the plan was written during the run
            self.plan = PlanState(self.plan_path)
        items = self.plan.read()
        done = [{"number": i.number, "text": i.text} for i in items if i.checked]
        left = [{"number": i.number, "text": i.text} for i in items if not i.checked]
        changed = list(self.obs.changed)
        rows = self._git_changes()
        changed += [path for path, _ in rows if path not in changed]
        if self.baseline is not None:  # what tool calls changed that git has no lines for
            counted = {path for path, _ in rows}
            rows += [(path, "changed") for path in changed if path not in counted]
        stop = self.obs.stopped
        text = self.obs.last_text if final_text is None else final_text
        return Report(
            status=stop.status if stop else "", reason=stop.reason if stop else "",
            plan_path=str(self.plan_path) if self.plan_path else None, plan_lost=self.plan.lost,
            items_done=done, items_left=left,
            ticked_this_run=sum(1 for i in items if i.checked and i.number not in self.start_ticked),
            commands=list(self.obs.commands), files_changed=changed, diff_stat=format_stat(rows),
            claims=check_claims(text, self.obs, [i["text"] for i in left]),
        )


def final_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last assistant message: the model's closing account of the run."""
    for msg in reversed(messages):
        if msg["role"] == "assistant":
            return "\n".join(b.get("text", "") for b in msg["content"] if isinstance(b, dict) and b.get("type") == "text")
    return ""
