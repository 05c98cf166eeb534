"""`cast verify`: re-check every ticked item of a plan in today's tree.

A tick was judged once, against what one run observed. A plan committed with its ticks is a claim
about the code, and claims go stale: a later commit reverts the fix, a test starts failing. So for
each ticked item this re-runs the verification the plan names for it (a `verify:` sub-bullet, or a
command in backticks in the item), through execute mode's bash tool and approval policy (the
sandbox, the deny list, `--yes`, a question on a terminal), and checks that the files the item
changed, as cast's checkpoints recorded them, still carry its change: every line the item added is
still in the file, a file it created still exists, one it deleted is still gone. An item passes
when every check it has holds; one with nothing to re-check is reported as such (SKIP), never as a
pass. What a CI job runs to know a plan still holds.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cast.checkpoints.journal import Journal
from cast.checkpoints.shadow import ShadowError
from cast.plans.checklist import PlanError, parse
from cast.plans.store import find_plan, list_plans
from cast.tools.base import ToolContext, run_tool
from cast.tools.evidence import Ledger, item_body, named_checks
from cast.tools.shell import EXECUTE_BASH

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"


@dataclass
class ItemCheck:
    number: int
    text: str
    status: str = SKIP
    reasons: list[str] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)  # command, exit_code, summary
    files: list[str] = field(default_factory=list)  # files whose recorded change was checked

    def fail(self, reason: str) -> None:
        self.status = FAIL
        self.reasons.append(reason)

    def pass_(self, reason: str) -> None:
        if self.status != FAIL:
            self.status = PASS
        self.reasons.append(reason)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "item", **asdict(self)}


def verify(plan: Path, ctx: ToolContext) -> list[ItemCheck]:
    """Every ticked item of `plan`, re-checked. `ctx` carries the workspace and the approval policy.
    Ctrl+C stops it: the item being checked and the rest are left out (`not_rechecked`), and
    `ctx.cancel` is set, so an interrupted command is never reported as the item failing."""
    text = plan.read_bytes().decode("utf-8", "surrogateescape")
    results: list[ItemCheck] = []
    try:
        changes = recorded_changes(ctx.workspace.root, plan)
        external = recorded_calls(ctx.workspace.root, plan)
        ledger = Ledger()  # what the re-run commands did, judged as a run's own are (CommandRun.passed)
        for item in parse(text):
            if not item.checked:
                continue
            check = ItemCheck(item.number, item.text)
            for command in named_checks(item.text, item_body(text, item.line)):
                _run(command, ctx, check, ledger)
                if ctx.cancel.is_set():  # the command was killed by Ctrl+C (the runner caught it)
                    return results
            if item.number in changes:
                _still_holds(ctx.workspace.root, changes[item.number], check)
            if calls := external.get(item.number):
                check.reasons.append(f"SKIP {', '.join(calls)}: MCP calls act outside the tree; cast cannot re-check them")
            if check.status == SKIP and not calls:
                check.reasons.append(
                    "nothing to re-check: the plan names no verification for it and cast recorded no change by it"
                )
            results.append(check)
    except KeyboardInterrupt:
        ctx.cancel.set()
    return results


def not_rechecked(plan: Path, results: list[ItemCheck]) -> list[str]:
    """The ticked items an interrupted verify did not get to, as `N. text`."""
    done = {r.number for r in results}
    text = plan.read_bytes().decode("utf-8", "surrogateescape")
    return [f"{i.number}. {i.text}" for i in parse(text) if i.checked and i.number not in done]


def _run(command: str, ctx: ToolContext, check: ItemCheck, ledger: Ledger) -> None:
    obs = run_tool(EXECUTE_BASH, {"command": command}, ctx)
    mark = ledger.mark()
    ledger.add(obs.result)
    ran = next(iter(ledger.commands_since(mark)), None)
    code = ran.exit_code if ran is not None else None
    check.commands.append({"command": command, "exit_code": code, "summary": obs.summary})
    if ran is None or code is None:
        check.fail(f"`{command}` did not run: {obs.text.splitlines()[0] if obs.text else 'refused'}")
    elif not ran.passed:
        check.fail(f"`{command}` {obs.summary or ran.describe()}")
    else:
        check.pass_(f"`{command}` {obs.summary}")


@dataclass
class FileChange:
    path: str
    status: str  # A, D, M (from the checkpoint store)
    before: bytes
    after: bytes


def recorded_changes(root: Path, plan: Path) -> dict[int, list[FileChange]]:
    """{item: the files it changed, before and after} from cast's checkpoints; {} without any."""

    try:
        journal = Journal(root)
        history = journal.history()
    except Exception:  # no store, or one cast cannot use: nothing recorded to check
        return {}
    key = journal.plan_key(plan)
    found: dict[int, list[FileChange]] = {}
    for item in history.starts.get(key or "", {}):
        start, end = history.checkpoint(key or "", item), history.item_end(key or "", item)
        if start is None or end is None or end.get("item") != item:
            continue
        shadow = journal.shadow
        found[item] = [
            FileChange(c.path, c.status, _blob(shadow, start["tree"], c.path), _blob(shadow, end["tree"], c.path))
            for c in shadow.changes(start["tree"], end["tree"])
        ]
    return found


def recorded_calls(root: Path, plan: Path) -> dict[int, list[str]]:
    """{item: the MCP calls made while it was worked on} from cast's checkpoints."""

    try:
        journal = Journal(root)
        history = journal.history()
    except Exception:  # no store, or one cast cannot use: nothing recorded
        return {}
    key = journal.plan_key(plan) or ""
    found = {}
    for item in history.starts.get(key, {}):
        start, end = history.checkpoint(key, item), history.item_end(key, item)
        if start is not None and end is not None and (calls := history.external_between(key, start["seq"], end["seq"])):
            found[item] = calls
    return found


def _blob(shadow: Any, tree: str, path: str) -> bytes:
    try:
        blob: bytes = shadow.git("cat-file", "blob", f"{tree}:{path}")
        return blob
    except Exception:
        return b""


def _still_holds(root: Path, changes: list[FileChange], check: ItemCheck) -> None:
    for change in changes:
        check.files.append(change.path)
        try:
            now: bytes | None = (root / change.path).read_bytes()
        except FileNotFoundError:
            now = None
        except OSError as exc:
            check.fail(f"{change.path}: cannot read it ({exc.strerror})")
            continue
        problem = _lost(change, now)
        if problem:
            check.fail(f"{change.path}: {problem}")
        else:
            check.pass_(f"{change.path} still carries the item's change")


def _lost(change: FileChange, now: bytes | None) -> str:
    """Why today's file no longer carries the item's change ('' when it does)."""
    if change.status == "D":
        return "" if now is None else "the item deleted it, and it is back"
    if now is None:
        return "the item changed it, and it is gone"
    if now == change.after:
        return ""
    before, after = change.before.decode("utf-8", "replace").splitlines(), change.after.decode("utf-8", "replace").splitlines()
    added = Counter(
        line
        for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
        if tag in ("insert", "replace")
        for line in after[j1:j2]
    )
    present = Counter(now.decode("utf-8", "replace").splitlines())
    missing = [line for line, count in added.items() if present[line] < count]
    if now == change.before:
        return "it is back to what it was before the item"
    if missing:
        return f"{len(missing)} of the lines the item added are gone, e.g. {missing[0].strip()[:80]!r}"
    return ""


def plan_with_ticks(root: Path, ref: str | None) -> Path:
    """The plan to verify: the one named, else the newest plan with a ticked item, else the plan
    whose ticks cast undo took last (it is told it has nothing to verify, and why)."""

    if ref is not None:
        return find_plan(root, ref)
    for info in list_plans(root):
        if info.done:
            return info.path
    for record in reversed(_undo_records(root)):
        path = Path(record["path"])
        if path.is_file():
            return path
    raise PlanError("no plan has a ticked item yet: cast verify re-checks ticks that cast execute made")


def _undo_records(root: Path) -> list[dict[str, Any]]:
    """The checkpoint journal's undos, oldest first, each with its plan's path; none where the
    journal cannot be read (checkpoints off, no store yet): then nothing was undone by cast."""

    try:
        journal = Journal(root)
        records = journal.records() if journal.shadow.exists() else []
    except (ShadowError, OSError):
        return []
    return [r | {"path": str(journal.plan_path(r["plan"]))} for r in records if r["kind"] == "undo" and r.get("plan")]


def undone(root: Path, plan: Path) -> list[int]:
    """The items of `plan` that cast undo unticked and that are still unticked."""
    ticked = {item.number for item in parse(plan.read_text(encoding="utf-8", errors="replace")) if item.checked}
    mine = [r for r in _undo_records(root) if Path(r["path"]).resolve() == plan.resolve()]
    return sorted({n for r in mine for n in r.get("unticked", [])} - ticked)


def _items(numbers: list[int]) -> str:
    return f"item {numbers[0]}" if len(numbers) == 1 else f"items {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


def exit_code(results: list[ItemCheck]) -> int:
    return 1 if any(r.status == FAIL for r in results) else 0


def render(plan: Path, results: list[ItemCheck], interrupted: list[str] | None = None, undid: list[int] | None = None) -> str:
    """The per-item lines and the count; `interrupted`: the items Ctrl+C left unchecked; `undid`:
    the items cast undo unticked (why there may be nothing to verify)."""
    lines = [f"verify {os.path.relpath(plan)}"]
    if not results and interrupted is None:
        why = f" ({_items(undid)} unticked by cast undo; cast redo ticks them again)" if undid else ""
        lines.append(f"  no ticked items: nothing to verify{why}")
    for r in results:
        lines.append(f"{r.status}  {r.number}. {r.text}")
        lines += [f"        {reason}" for reason in r.reasons]
    passed, failed = sum(r.status == PASS for r in results), sum(r.status == FAIL for r in results)
    lines.append(
        f"{passed} passed, {failed} failed"
        + (f", {len(results) - passed - failed} skipped" if len(results) > passed + failed else "")
    )
    if interrupted is not None:
        lines.append("interrupted by user; not re-checked:")
        lines += [f"  {item}" for item in interrupted]
    return "\n".join(lines)
