"""write_plan: the one write plan mode allows, confined to this session's plan directory."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from cast.plans.checklist import PlanError
from cast.plans.store import base_commit, write_plan
from cast.safety.paths import relative
from cast.tools.base import Observation, Tool, ToolContext, ToolError, object_schema, plural


def execute_write_plan(args: dict[str, Any], ctx: ToolContext) -> Observation:
    session = ctx.services.get("session_id")
    if not session:
        raise ToolError("write_plan needs a planning session; start one with `cast plan`")
    root = ctx.workspace.root
    created = ctx.services.setdefault("plan_created", datetime.now(timezone.utc).replace(microsecond=0))
    try:
        path, items = write_plan(
            root, session, args["name"], args["content"],
            task=ctx.task, created=created, base_commit=ctx.services.setdefault("base_commit", base_commit(root)),
        )
    except PlanError as exc:
        raise ToolError(str(exc)) from exc
    ctx.services["plan_path"] = path
    rel = relative(root, path)
    text = f"wrote {rel} ({plural(items, 'checklist item')})"
    if items == 0:
        text += (
            "\nwarning: the plan has no `- [ ]` checklist items, so `cast execute` would have nothing "
            "to do. Rewrite it with one `- [ ]` line per verifiable step."
        )
    return Observation(text, summary=f"{plural(items, 'item')} → {rel}", facts={"plan_path": str(path), "items": items})


WRITE_PLAN = Tool(
    "write_plan",
    "Write (or overwrite) the plan as Markdown with a `- [ ]` checklist. cast adds the front matter. "
    "Call it again with the same name to revise the plan.",
    object_schema(
        ["name", "content"],
        name={"type": "string", "description": "File name: lowercase letters, digits, '.', '_', '-'; e.g. 'plan'."},
        content={"type": "string", "description": "The plan in Markdown, starting with '# Plan: ...'."},
    ),
    execute_write_plan,
)
