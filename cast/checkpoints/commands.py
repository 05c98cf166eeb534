"""`cast undo`, `cast redo`, `cast diff` and `cast checkpoints`: the words around the operations.

Each returns an exit code and writes through the `say` it is given, so the CLI and the REPL share
them. Asking is a callable too: the CLI asks on the terminal, the REPL in its prompt; without a
way to ask and without --yes, nothing is changed (a script must say --yes to mean it).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cast.checkpoints import store
from cast.checkpoints import undo as ops
from cast.checkpoints.journal import Journal, Record
from cast.checkpoints.shadow import ShadowError
from cast.config import ConfigError, load
from cast.fsutil import atomic_write
from cast.text import plural, terminal_safe

Say = Callable[[str], None]
Ask = Callable[[str], bool]


def _stderr(text: str) -> None:
    sys.stderr.write(terminal_safe(text) + "\n")


OFF = "checkpoints are off (checkpoints = false in the configuration): there is nothing to {}"
Failure = (ops.UndoError, ShadowError, OSError)


def _off(root: Path, what: str, err: Say) -> bool:
    """True (and says so) when the configuration turns checkpoints off."""

    try:
        enabled = load(root).checkpoints
    except ConfigError:
        enabled = True  # a broken config is reported where it is used; checkpoints stay readable
    if not enabled:
        err(f"cast: {OFF.format(what)}")
    return not enabled


def _failed(exc: BaseException, err: Say) -> int:
    """One line, never a traceback: a missing store, a store that is not cast's, a full disk."""
    if isinstance(exc, BrokenPipeError):
        raise exc  # the reader went away (`cast checkpoints | head -1`): the CLI ends quietly, the store is fine
    if isinstance(exc, OSError) and not isinstance(exc, ShadowError):
        err(f"cast: checkpoint store: {exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}")
    else:
        err(f"cast: {exc}")
    return getattr(exc, "exit_code", 1)  # 2: the plan or item asked for does not exist


def _restore_json(journal: Journal, restore: ops.Restore, say: Say, yes: bool) -> int:
    """One object (undo.Restore.to_json), the exit code as in words. Nothing is asked: a program
    says --yes to mean it, else the object is a preview and nothing changes."""
    if not restore.applied and not restore.items:
        say(json.dumps(restore.to_json("nothing_to_change")))
        return 1 if restore.refused else 0
    if not yes:
        say(json.dumps(restore.to_json("preview")))
        return 1
    ops.apply(journal, restore)
    say(json.dumps(restore.to_json("done")))
    return 1 if restore.refused else 0


def _restore(
    journal: Journal,
    restore: ops.Restore,
    say: Say,
    yes: bool,
    ask: Ask | None,
    confirm: str,
    prefix: str = "cast ",
    as_json: bool = False,
) -> int:
    if as_json:
        return _restore_json(journal, restore, say, yes)
    say(restore.preview())
    if not restore.applied and not restore.items:
        say("nothing to change")
        return 1 if restore.refused else 0
    if not yes:
        if ask is None:
            say(f"not changed: {confirm} to do it")
            return 1
        if not ask(f"{restore.kind} this"):
            say("not changed")
            return 1
    ops.apply(journal, restore)
    marks = ", ".join(str(n) for n in restore.items) or "none"
    say(
        f"{restore.kind} done: {len(restore.applied)} file{'s' * (len(restore.applied) != 1)} restored; "
        f"items {'unticked' if restore.kind == 'undo' else 'ticked again'}: {marks}"
        + (f"; `{prefix}redo` reverses it" if restore.kind == "undo" else "")
    )
    if restore.refused:  # this one is done: the item's checkpoint is behind it, so --force alone cannot get them now
        again = f"`{prefix}redo --yes`, then `{prefix}undo {restore.item} --yes --force`" if restore.kind == "undo" else ""
        say(f"kept as changed outside cast: {', '.join(restore.refused)}" + (f"; to restore them too: {again}" if again else ""))
    return 1 if restore.refused else 0


def undo(
    root: Path,
    item: int | None,
    plan: str | None,
    yes: bool,
    force: bool,
    say: Say,
    ask: Ask | None,
    prefix: str = "cast ",
    err: Say = _stderr,
    as_json: bool = False,
) -> int:
    if _off(root, "undo", err):
        return 1
    try:
        journal = Journal(root)
        restore = ops.prepare_undo(journal, item, plan, force)
        confirm = f"`{prefix}undo {restore.item} --yes{' --force' if force else ''}`"
        return _restore(journal, restore, say, yes, ask, confirm, prefix, as_json)
    except Failure as exc:
        return _failed(exc, err)


def redo(
    root: Path,
    yes: bool,
    force: bool,
    say: Say,
    ask: Ask | None,
    prefix: str = "cast ",
    err: Say = _stderr,
    as_json: bool = False,
) -> int:
    if _off(root, "redo", err):
        return 1
    try:
        journal = Journal(root)
        confirm = f"`{prefix}redo --yes{' --force' if force else ''}`"
        return _restore(journal, ops.prepare_redo(journal, force), say, yes, ask, confirm, prefix, as_json)
    except Failure as exc:
        return _failed(exc, err)


def diff(
    root: Path, item: int | None, plan: str | None, say: Say, color: bool = False, err: Say = _stderr, as_json: bool = False
) -> int:
    if _off(root, "diff", err):
        return 1
    try:
        journal = Journal(root)
        if as_json:  # one object: undo.Span.to_json
            say(json.dumps(ops.span(journal, item, plan).to_json(journal)))
            return 0
        say(ops.diff(journal, item, plan, color).rstrip("\n"))
        return 0
    except Failure as exc:
        return _failed(exc, err)


def disk_use(directory: Path) -> int:
    total = 0
    for base, _, files in os.walk(directory):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _age_days(record: Record) -> float:
    stamp = datetime.strptime(record["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return (time.time() - stamp.timestamp()) / 86400


def _finished(journal: Journal, key: str) -> bool:
    """Every item ticked, or the plan file is gone (nothing left to untick)."""
    checks = ops._checks(journal.plan_path(key))
    return all(checked for _, checked in checks)


def listing(root: Path, say: Say, err: Say = _stderr, as_json: bool = False) -> int:
    """One tab-separated line per plan, then the store's disk use; with `as_json`, one JSON object
    per plan and nothing else."""
    notice = store.planted(root)
    if notice:
        err(f"cast: {notice}")
    if _off(root, "list", err):
        return 0
    try:
        journal = Journal(root)
        found = plan_rows(journal)
    except Failure as exc:
        return _failed(exc, err)
    if as_json:
        for row in found:
            say(json.dumps(row))
        return 0
    if not found:
        say(f"no checkpoints in {journal.shadow.dir}")
        return 0
    for row in found:
        items = ", ".join(map(str, row["items"])) or "-"
        say(f"{row['plan']}\t{plural(row['snapshots'], 'snapshot')}\titems {items}\t{row['state']}\tlast {row['last']}")
    say(f"{journal.shadow.dir}: {disk_use(journal.shadow.dir) / (1024 * 1024):.1f} MiB")
    return 0


def plan_rows(journal: Journal) -> list[dict[str, Any]]:
    """Per plan: its snapshots, the items they were taken for, whether the plan is finished, and
    when the last one was taken."""
    by_plan: dict[str, list[Record]] = {}
    for record in journal.records():
        by_plan.setdefault(record.get("plan") or "(no plan)", []).append(record)
    return [
        {
            "plan": key,
            "snapshots": len(rows),
            "items": sorted({r["item"] for r in rows if r["kind"] == "item" and r.get("item") is not None}),
            "state": "finished" if _finished(journal, key) else "unfinished",
            "last": rows[-1]["time"],
        }
        for key, rows in by_plan.items()
    ]


def prune(root: Path, days: int, say: Say, err: Say = _stderr) -> int:
    """Forget the checkpoints of finished plans whose last checkpoint is older than `days`, and
    let git drop the objects nothing else needs."""
    try:
        return _prune(Journal(root), days, say)
    except Failure as exc:
        return _failed(exc, err)


def _prune(journal: Journal, days: int, say: Say) -> int:
    if not journal.path.exists():
        say("no checkpoints to prune")
        return 0
    before = disk_use(journal.shadow.dir)
    with journal.locked():
        records = journal.records()
        last: dict[str, Record] = {}
        for record in records:
            last[record.get("plan") or ""] = record
        gone = {key for key, record in last.items() if key and _age_days(record) >= days and _finished(journal, key)}
        kept = [r for r in records if (r.get("plan") or "") not in gone]
        kept_lines = b"".join((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape") for r in kept)
        atomic_write(journal.path, kept_lines)
        git = journal.shadow.git
        old = {line.strip() for line in git("for-each-ref", "--format=%(refname)", "refs/keep/").decode().splitlines()}
        wanted = {f"refs/keep/{tree}" for tree in {r["tree"] for r in kept}}
        commands = "".join(f"delete {ref}\n" for ref in sorted(old - wanted))
        commands += "".join(f"update {ref} {ref.rpartition('/')[2]}\n" for ref in sorted(wanted - old))
        git("update-ref", "--stdin", data=commands.encode())
        git("pack-refs", "--all", "--prune")
        git("reflog", "expire", "--expire=now", "--all")
        git("gc", "--prune=now", "--quiet")
    after = disk_use(journal.shadow.dir)
    plans = ", ".join(sorted(gone)) or "none"
    say(
        f"pruned {len(records) - len(kept)} of {len(records)} checkpoints (plans: {plans}); "
        f"{before / (1024 * 1024):.1f} MiB -> {after / (1024 * 1024):.1f} MiB"
    )
    return 0
