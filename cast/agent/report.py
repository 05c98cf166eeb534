"""The evidence report at the end of a run: what the observations show, not what the model says.

A model's closing summary is its own account ("all tests pass", "verified the fix"), and nothing
in it is evidence. The report is built from what cast itself observed: the plan file's checkboxes
on disk and what each tick rested on, every command with its exit code and test counts (and the
ones that never ran: declined, interrupted), the files this run changed against the tree it
started from (git's view, read-only, so the user's own uncommitted work is neither counted nor
touched; outside git, a snapshot), and each claim of the model's final message checked against
all that (claims.py). The status follows the same facts: a run is `done` only when no plan item is
left, the plan file is there, and each test command passed on its last run.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cast.agent import events as ev
from cast.agent.explored import ExploreRecord
from cast.agent.found_tree import NOTHING, Found, Taking, again, take
from cast.agent.git_baseline import GitBaseline, Stat, format_stat, line_counts
from cast.agent.observed import Observations, PlanState
from cast.agent.transcript import final_text as final_text  # where it was: the report's readers import it from here
from cast.text import path_label
from cast.tools.evidence import CommandRun, ItemEvidence, Ledger
from cast.tools.results import Explored

if TYPE_CHECKING:
    from cast.agent.claims import Claim
    from cast.tools.snapshot import Snapshot
    from cast.tools.tasks import TaskBoard


# -- the report -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportItem:
    """A plan item as the report lists it; `evidence` is what its tick rested on when it was ticked
    this run (None: left, or ticked before the run began)."""

    number: int
    text: str
    evidence: ItemEvidence | None = None

    @property
    def unsupported(self) -> bool:
        """Ticked this run without the evidence a tick needs (the model gave a note instead)."""
        return self.evidence is not None and not self.evidence.supported


@dataclass
class Report:
    status: str = ""
    reason: str = ""
    plan_path: str | None = None
    plan_lost: str = ""  # "missing"/"unreadable (...)": items are as last known
    items_done: list[ReportItem] = field(default_factory=list)  # with the evidence of a tick made this run
    items_left: list[ReportItem] = field(default_factory=list)
    ticked_this_run: int = 0
    commands: list[CommandRun] = field(default_factory=list)
    files_changed: list[str] = field(default_factory=list)
    diff_stat: str = ""
    files_capped: str = ""  # the marker when the snapshot of a tree outside git hit its cap
    claims: list[Claim] = field(default_factory=list)
    explored: list[Explored] = field(default_factory=list)  # what explores reported: observations, not facts
    by_item: list[tuple[int, str, str]] = field(default_factory=list)  # (item, text, diffstat) from checkpoints
    notes: list[str] = field(default_factory=list)
    stopped: str = ""  # the loop's own stop status, before the facts had their say

    @property
    def unsupported(self) -> list[ReportItem]:
        """Items ticked this run without the evidence a tick needs (the model gave a note instead)."""
        return [i for i in self.items_done if i.unsupported]

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (`--json`'s result): where its typed records leave as dicts."""
        data = asdict(self)
        for entry, run in zip(data["commands"], self.commands):
            entry["passed"], entry["is_test"], entry["label"] = run.passed, run.is_test, run.label
        data["items_done"] = [
            {"number": i.number, "text": i.text, "evidence": i.evidence.to_dict() if i.evidence else {}} for i in self.items_done
        ]
        data["items_left"] = [{"number": i.number, "text": i.text} for i in self.items_left]
        data["unchecked_claims"] = sum(1 for c in self.claims if not c.checked)
        data["ticked_without_evidence"] = [
            {"number": i.number, "text": i.text, "missing": i.evidence.missing, "note": i.evidence.note}
            for i in self.unsupported
            if i.evidence is not None
        ]
        return data

    def render_text(self, commands: str = "cast ", root: Path | None = None) -> str:
        """`commands`: how the reader runs cast's commands where they read it (`/` in the REPL);
        `root`: the workspace the plan's path is shown relative to (the REPL's, whose lines are narrow)."""
        return "\n".join(
            [
                *self.result_lines(),
                *self.plan_lines(root),
                *self.command_lines(),
                *self.file_lines(),
                *ExploreRecord(self.explored).lines(),
                *self.item_lines(commands),
                *self.claim_lines(),
            ]
        )

    def result_lines(self) -> list[str]:
        return [f"Result: {self.status}" + (f" ({self.reason})" if self.reason else "")]

    def plan_lines(self, root: Path | None = None) -> list[str]:
        if not self.plan_path:
            return []
        where = Path(self.plan_path)
        if root is not None and where.is_relative_to(root):
            where = where.relative_to(root)
        total = len(self.items_done) + len(self.items_left)
        counts = f"{len(self.items_done)}/{total} items done ({self.ticked_this_run} this run)"
        if self.plan_lost:
            out = [f"Plan: plan file {self.plan_lost} — {where}; when last read, {counts}"]
        else:
            out = [f"Plan: {counts} — {where}"]
        for item in sorted(self.items_done + self.items_left, key=lambda i: i.number):
            out.append(f"  [{' ' if item in self.items_left else 'x'}] {item.number}. {item.text}")
            evidence = item.evidence
            if evidence is not None and evidence.supported:
                shown = [*evidence.commands, *(f"{path_label(path)} changed" for path in evidence.files)]
                out.append("        evidence: " + ("; ".join(shown) if shown else "none recorded"))
        if self.unsupported:
            out.append(f"Ticked without evidence: {len(self.unsupported)}")
            for item in self.unsupported:
                if item.evidence is None:
                    continue
                note = item.evidence.note
                out.append(f"  {item.number}. {item.text} — {item.evidence.missing}" + (f"; note: {note}" if note else ""))
        return out

    def command_lines(self) -> list[str]:
        """One line per command, a run of identical ones (same command, same outcome) as one line ×N."""
        out = [f"Commands run: {len(self.commands)}" if self.commands else "Commands run: none"]
        groups: list[list[CommandRun]] = []
        for c in self.commands:
            if groups and groups[-1][0] == c:
                groups[-1].append(c)
            else:
                groups.append([c])
        width = max([4, *(len(c.label) for c in self.commands)])  # ok, FAIL, declined, interrupted: one column
        for group in groups:
            c = group[0]
            out.append(
                f"  {c.label:<{width}} {c.describe() if c.outcome == 'ran' else c.brief()}"
                + (f" ×{len(group)}" if len(group) > 1 else "")
            )
        return out

    def file_lines(self) -> list[str]:
        out = [f"Files changed: {len(self.files_changed)}" if self.files_changed else "Files changed: none"]
        if self.diff_stat:
            out += ["  " + line for line in self.diff_stat.rstrip().splitlines()]
        elif self.files_changed:
            out += [f"  {path}" for path in self.files_changed]
        if self.files_capped:
            out.append(f"  {self.files_capped}")
        return out

    def item_lines(self, commands: str = "cast ") -> list[str]:
        """The checkpoints' view: what each plan item changed."""
        out = []
        if self.by_item:
            out.append(f"Changes by item ({commands}diff ITEM shows them, {commands}undo ITEM reverts them):")
            for number, text, stat in self.by_item:
                out += [f"  {number}. {text}", *("    " + line.strip() for line in stat.splitlines())]
        return out + [f"Note: {note}" for note in self.notes]

    def claim_lines(self) -> list[str]:
        if not self.claims:
            return []
        return ["Claims in the final message:"] + [
            f'  {"checked  " if c.checked else "UNCHECKED"} "{c.text}" — {c.evidence}' for c in self.claims
        ]


def judged_status(
    stop: ev.Stopped | None, plan: PlanState | None, left: list[ReportItem], failing: list[CommandRun]
) -> tuple[str, str]:
    """The run's status from the facts: a loop that stopped by itself as `done` is `done` only
    when the plan is there, has nothing left, and no test command's last run failed; else the
    first of `plan missing`, `incomplete`, `tests failing` that holds, with every reason."""
    status, reason = (stop.status, stop.reason) if stop else ("", "")
    if status != "done":
        return status, reason
    problems: list[tuple[str, str]] = []
    if plan is not None and plan.lost:
        problems.append(("plan missing", f"the plan file {plan.path} is {plan.lost}"))
    if plan is not None and left:
        numbers = ", ".join(str(i.number) for i in left)
        problems.append(("incomplete", f"{len(left)} plan item{'s' * (len(left) != 1)} not done: {numbers}"))
    if failing:
        problems.append(("tests failing", "; ".join(f"the last run of {run.describe()}" for run in failing)))
    if not problems:
        return status, reason
    return problems[0][0], "; ".join(why for _, why in problems)


class ReportBuilder:
    """Create at the start of a run (it records the starting tree and plan ticks, writing
    nothing), feed it every event with `observe`, and `build()` when the run stops. With a task
    board (execute mode) the plan's facts decide the status and each tick shows its evidence."""

    def __init__(
        self,
        root: Path,
        plan_path: Path | None = None,
        *,
        git: bool = True,
        tasks: TaskBoard | None = None,
        ledger: Ledger | None = None,  # the run's one ledger, fed by the run; None: keep and feed one
        found: Found | Taking | None = None,  # the starting tree (being recorded since the run began); None: recorded here
    ):
        self.root = Path(root)
        self.plan_path = Path(plan_path) if plan_path else None
        self.tasks = tasks
        self.obs = Observations(ledger)
        self.explores = ExploreRecord()
        self.plan = PlanState(self.plan_path)
        self._tree: Found | Taking = found if found is not None else take(self.root) if git else NOTHING
        self.start_ticked = {i.number for i in self.plan.items if i.checked}
        self._between_turns = False  # a stop was seen: the next event opens the next user turn

    @property
    def baseline(self) -> GitBaseline | None:
        return self.settle().baseline

    @property
    def snapshot(self) -> Snapshot | None:
        return self.settle().snapshot

    def settle(self) -> Found:
        """The starting tree, waited for if it is still being recorded."""
        if isinstance(self._tree, Taking):
            self._tree = self._tree.result()
        return self._tree

    def observe(self, event: ev.Event) -> None:
        if self._between_turns:
            self._begin_turn()
        if isinstance(event, ev.ToolCall):  # observed before it runs: the tree it may change is recorded first
            self.settle()
        self.obs.observe(event)
        self.plan.observe(event)
        self.explores.observe(event)
        if isinstance(event, ev.Stopped):
            self._between_turns = True

    def _begin_turn(self) -> None:
        """A turn's report holds that turn alone (the REPL shows one after each): its commands,
        its changes against the tree as the turn found it, its ticks and its closing words."""
        self._between_turns = False
        self.obs.begin_turn()
        self.explores = ExploreRecord()
        if self.plan.path != self.plan_path:
            self.plan = PlanState(self.plan_path)
        self.start_ticked = {i.number for i in self.plan.read() if i.checked}
        self._tree = again(self.settle(), self.root)

    def _own(self) -> set[str]:
        """cast's own files, not the run's changes: the plan (its ticks have a line of their own)
        and .cast/.gitignore (written with the first plan)."""
        own = {os.path.join(".cast", ".gitignore")}
        if self.plan_path:
            own.add(os.path.relpath(os.path.abspath(self.root / self.plan_path), os.path.abspath(self.root)))
        return own

    def _git_changes(self) -> list[tuple[str, Stat]]:
        """Git's view, as paths relative to the workspace; not the plan file (its ticks have a
        line of their own). Session transcripts are not in the workspace (cast/state.py)."""
        if self.baseline is None:
            return []
        root = self.root.resolve()
        own = self._own()
        rows = []
        for path, counts in self.baseline.changes():
            shown = os.path.relpath(self.baseline.top / path, root).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            if shown not in own:
                rows.append((shown, counts))
        return rows

    def _snapshot_changes(self) -> tuple[list[tuple[str, Stat]], str]:
        """Outside git: the start snapshot against the tree now, with line counts where the
        old bytes were kept."""
        if self.snapshot is None:
            return [], ""
        found, capped = self.snapshot.changes()
        own = self._own()
        rows: list[tuple[str, Stat]] = []
        for path, kind in found:
            if path in own:
                continue
            old = b"" if kind == "added" else self.snapshot.kept.get(path)
            new = b"" if kind == "deleted" else _small(self.root / path)
            rows.append((path, line_counts(old, new) if old is not None and new is not None else kind))
        marker = f"[snapshot capped at {len(self.snapshot.files):,} files: changes past them are not listed]" if capped else ""
        return rows, marker

    def build(self, final_text: str | None = None, listed: list[dict[str, Any]] | None = None) -> Report:
        """`listed`: the claims the self-check's model call found in this final text."""
        from cast.agent.claims import Facts, check_claims  # deferred: keeps the claims off the first request
        from cast.agent.explore_claims import mark  # deferred: keeps the claims off the first request
        from cast.agent.plan_claims import without_plan_description  # deferred: keeps the claims off the first request

        if self.plan.path != self.plan_path:  # the plan was written during the run
            self.plan = PlanState(self.plan_path)
        items = self.plan.read()
        board = self.tasks
        done = [
            ReportItem(
                i.number, i.text, board.evidence_for(i.text) if board is not None and i.number not in self.start_ticked else None
            )
            for i in items
            if i.checked
        ]
        left = [ReportItem(i.number, i.text) for i in items if not i.checked]
        changed = list(self.obs.changed)
        rows = self._git_changes()
        snap_rows, capped = self._snapshot_changes()
        rows += snap_rows
        changed += [path for path, _ in rows if path not in changed]
        if self.baseline is not None or self.snapshot is not None:  # what tool calls changed that the tree has no lines for
            counted = {path for path, _ in rows}
            rows += [(path, "changed") for path in changed if path not in counted]
        stop = self.obs.stopped
        failing = self.obs.failing_tests() if self.tasks is not None else []  # a plan starts from failing tests
        status, reason = judged_status(stop, self.plan if self.tasks is not None else None, left, failing)
        text = self.obs.last_text if final_text is None else final_text
        if self.obs.began and not self.obs.replied:  # the turn wrote nothing: an earlier turn's words are not this one's claims
            text, listed = "", []
        unsupported = {i.number: i.evidence.missing for i in done if i.evidence is not None and i.unsupported}
        facts = Facts(
            list(self.obs.commands),
            changed,
            {i.number: i.text for i in done},
            {i.number: i.text for i in left},
            self.plan.lost,
            unsupported,
        )
        claims = mark(check_claims(text, facts, listed), self.explores, facts, text)
        if self.tasks is None and self.plan_path is not None:  # a plan run: its words describe the plan it wrote
            claims = without_plan_description(claims, Path(self.plan_path))
        return Report(
            status=status,
            reason=reason,
            stopped=stop.status if stop else "",
            plan_path=str(self.plan_path) if self.plan_path else None,
            plan_lost=self.plan.lost,
            items_done=done,
            items_left=left,
            ticked_this_run=sum(1 for i in items if i.checked and i.number not in self.start_ticked),
            commands=list(self.obs.commands),
            files_changed=changed,
            diff_stat=format_stat(sorted(rows)),
            files_capped=capped,
            claims=claims,
            explored=list(self.explores.explored),
        )


def _small(path: Path) -> bytes | None:
    try:
        if path.stat().st_size > 256 * 1024:
            return None
        return path.read_bytes()
    except OSError:
        return None
