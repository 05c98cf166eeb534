"""write_plan: the one write plan mode allows, confined to this session's plan directory."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import Field

from cast.plans.checklist import PlanError
from cast.plans.revisions import Revisions
from cast.plans.store import base_commit, write_plan
from cast.safety.paths import relative
from cast.text import plural
from cast.tools.base import Observation, Params, Tool, ToolContext, ToolError


class WritePlanParams(Params):
    name: str = Field(description="File name: lowercase letters, digits, '.', '_', '-'; e.g. 'plan'.")
    content: str = Field(description="The plan in Markdown, starting with '# Plan: ...'.")


def execute_write_plan(args: WritePlanParams, ctx: ToolContext) -> Observation:
    session = ctx.session_id
    if not session:
        raise ToolError("write_plan needs a planning session; start one with `cast plan`")
    root = ctx.workspace.root
    if ctx.plan_created is None:
        ctx.plan_created = datetime.now(UTC).replace(microsecond=0)
    if ctx.base_commit is None:
        ctx.base_commit = base_commit(root)
    try:
        path, items = write_plan(
            root,
            session,
            args.name,
            args.content,
            task=ctx.task,
            created=ctx.plan_created,
            base_commit=ctx.base_commit,
        )
    except PlanError as exc:
        raise ToolError(str(exc)) from exc
    ctx.plan_path = path
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
        facts={"plan_path": str(path), "items": items, "plan_revision": revision.id},
    )


WRITE_PLAN = Tool(
    "write_plan",
    "Write (or overwrite) the plan as Markdown with a `- [ ]` checklist. cast adds the front matter. "
    "Call it again with the same name to revise the plan.",
    WritePlanParams,
    execute_write_plan,
)
