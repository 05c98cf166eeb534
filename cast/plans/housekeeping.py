"""Plans put away: `cast plans` shows the unfinished ones, `cast plans archive ID` moves a plan's
directory under `.cast/plans/.archived/` (kept, never listed or picked by `cast execute` again)."""

from __future__ import annotations

import os
from pathlib import Path

from cast.plans.checklist import PlanError
from cast.plans.store import PlanInfo, find_plan, list_plans, roots

ARCHIVED = ".archived"


def unfinished(root: Path) -> list[PlanInfo]:
    """Plans with an unticked item, newest first."""
    return [info for info in list_plans(root) if info.done < info.total]


def archived(root: Path) -> list[Path]:
    """The plan directories put away under `.cast/plans/.archived/`, for a listing that would
    otherwise say there are no plans at all."""
    found: list[Path] = []
    for base in roots(root):
        shelf = base / ".cast" / "plans" / ARCHIVED
        if shelf.is_dir() and not shelf.is_symlink():
            found += sorted(p for p in shelf.iterdir() if (p / "plan.md").is_file())
    return found


def archive(root: Path, ref: str) -> Path:
    """Move the plan `ref` names (session id or plan path) out of the listings; returns where it went."""
    plan = find_plan(root, ref)
    directory = plan.parent.resolve()
    homes = [(base / ".cast" / "plans").resolve() for base in roots(root)]
    if directory.parent not in homes:
        raise PlanError(f"{plan} is not one of cast's plans (.cast/plans/<session>/); move it yourself")
    target = directory.parent / ARCHIVED / directory.name
    if target.exists():
        raise PlanError(f"{target} already exists; remove it first")
    target.parent.mkdir(exist_ok=True)
    if target.parent.is_symlink():  # a clone's link would move the plan out of the workspace
        raise PlanError(f"refusing to archive: {target.parent} is a symlink; plans are archived only into a real directory")
    os.replace(directory, target)
    return target
