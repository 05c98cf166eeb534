"""write_plan: the one write plan mode allows, confined to this session's plan directory.

In plan mode inside an execute run (Shift+Tab or /replan while it works), write_plan revises the
plan being executed instead of starting another: only its unticked items may change, every ticked
item's line stays byte for byte, and the new revision is shown item by item and confirmed by the
user before the next item starts (the run's approval binds to a revision: tools/tasks.py).

What the tool writes to (the session, the task, the front matter its first write fixed, the board of
an execute run) is the run's `RunPlan`, handed to the tool when the run builds it: none of it is in
`ToolContext`, which every tool shares."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from cast.plans.checklist import PlanError, parse
from cast.plans.revisions import Revisions
from cast.plans.store import base_commit, parse_front_matter, strip_front_matter, write_plan
from cast.safety.paths import relative
from cast.text import plural
from cast.tools.base import Access, Observation, Params, Tool, ToolContext, ToolError
from cast.tools.results import PlanWritten
from cast.tools.tasks import TaskBoard


@dataclass
class RunPlan:
    """The plan one run writes (plan mode) or follows (execute): the front-ends read where it is
    (`Run.plan_path`), write_plan keeps it. `board` is an execute run's checklist: there, write_plan
    revises the plan being executed instead of starting another."""

    session_id: str = ""  # the session write_plan writes under ("": not a planning session)
    task: str = ""  # the user's task, for the front matter
    path: Path | None = None  # the plan this run follows, or the one it wrote
    created: datetime | None = None  # front matter of the plan this session writes, fixed at its first write
    base_commit: str | None = None
    board: TaskBoard | None = None


class WritePlanParams(Params):
    name: str = Field(description="File name: lowercase letters, digits, '.', '_', '-'; e.g. 'plan'.")
    content: str = Field(description="The plan in Markdown, starting with '# Plan: ...'.")


def execute_write_plan(args: WritePlanParams, ctx: ToolContext, plan: RunPlan) -> Observation:
    if plan.board is not None:
        return _replan(args, ctx, plan, plan.board)
    session = plan.session_id
    if not session:
        raise ToolError("write_plan needs a planning session; start one with `cast plan`")
    root = ctx.workspace.root
    if plan.created is None:
        plan.created = datetime.now(UTC).replace(microsecond=0)
    if plan.base_commit is None:
        plan.base_commit = base_commit(root)
    try:
        path, items = write_plan(
            root,
            session,
            args.name,
            args.content,
            task=plan.task,
            created=plan.created,
            base_commit=plan.base_commit,
        )
    except PlanError as exc:
        raise ToolError(str(exc)) from exc
    plan.path = path
    rel = relative(root, path)
    revision, _ = Revisions(root, path).record("model")
    text = f"wrote {rel} ({plural(items, 'checklist item')}; revision {revision.id})"
    if not path.is_relative_to(root):
        text += f"\nnotice: the workspace's .cast/ cannot be written, so the plan is in the user's state dir: {path}"
        text += " (cast execute finds it there)"
    if items == 0:
        text += (
            "\nwarning: the plan has no `- [ ]` checklist items, so `cast execute` would have nothing "
            "to do. Rewrite it with one `- [ ]` line per verifiable step."
        )
    return Observation(
        text,
        summary=f"{plural(items, 'item')} → {rel}",
        result=PlanWritten(str(path), items, revision.id),
    )


def write_plan_tool(plan: RunPlan) -> Tool[WritePlanParams]:
    """write_plan for the run whose plan is `plan`."""

    def execute(args: WritePlanParams, ctx: ToolContext) -> Observation:
        return execute_write_plan(args, ctx, plan)

    return Tool(
        "write_plan",
        "Write (or overwrite) the plan as Markdown with a `- [ ]` checklist. cast adds the front matter. "
        "Call it again with the same name to revise the plan.",
        WritePlanParams,
        execute,
        access=Access.PLAN_FILE,
    )


WRITE_PLAN = write_plan_tool(RunPlan())  # in no run: it says it needs a planning session


def _replan(args: WritePlanParams, ctx: ToolContext, plan: RunPlan, board: TaskBoard) -> Observation:
    """Revise the remaining items of the plan this run executes; done items stay as they are."""
    path, root = board.plan.path, ctx.workspace.root
    try:
        old = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as exc:
        raise ToolError(f"cannot read the plan being executed ({path}): {exc.strerror}") from None
    lines = old.split("\n")
    body = strip_front_matter(args.content).split("\n")
    at = 0
    for item in (i for i in parse(old) if i.checked):
        kept = lines[item.line]
        found = next((n for n in range(at, len(body)) if body[n] == kept.rstrip("\r")), None)
        if found is None:
            raise ToolError(
                f"not written: item {item.number} is done, and a replan keeps done items exactly as they are, in order. "
                f"Keep this line unchanged: {kept.strip()!r}; revise only the unticked items."
            )
        at = found + 1
    meta = parse_front_matter(old)
    try:
        created = datetime.strptime(meta.get("created", ""), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        created = datetime.now(UTC).replace(microsecond=0)
    try:
        written, items = write_plan(
            root,
            path.parent.name,
            path.stem,
            args.content,
            task=meta.get("task", plan.task),
            created=created,
            base_commit=meta.get("base_commit") or None,
        )
    except PlanError as exc:
        raise ToolError(str(exc)) from exc
    if written.resolve() != path.resolve():
        raise ToolError(f"internal error: the revised plan went to {written}, not {path}")
    revision, _ = Revisions(root, path).record("model")
    rel = relative(root, path)
    return Observation(
        f"revised {rel}, the plan being executed ({plural(items, 'checklist item')}; revision {revision.id}); done items kept "
        "as they were. The user sees what changed and confirms it before the next item starts.",
        summary=f"replanned → {rel}",
        result=PlanWritten(str(path), items, revision.id),
    )
