"""Each server tool as a cast Tool: `mcp__<server>__<tool>`, the server's own input schema, the
arguments checked against it (jsonschema) before anything is sent, and the rules of each mode.

Plan mode offers an MCP tool only when the user's own `plan_tools` names it, and annotations may
only take it out again: an explicit `readOnlyHint: false` or `destructiveHint: true` removes it,
whatever else the server declares; `readOnlyHint: true` never puts one in (a server may lie, and
the MCP specification says so). The executor checks the mode again on every call (defence in
depth: a call that reaches it in plan mode without the grant is refused by name).

Execute mode approves an MCP call like a command: an `allow` pattern (`mcp__server__tool`, or
with `*`), an earlier "always", or `--yes` runs it; otherwise the user is asked with the server,
the tool and the arguments in view; headless with nobody to ask, it is refused.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from cast.pins import digest as canonical
from cast.safety.approval_scope import Scope
from cast.safety.decision import ApprovalAnswer, ApprovalRequest
from cast.text import clip, terminal_safe
from cast.tools.base import Access, Observation, Tool, ToolContext, ToolError
from cast.tools.results import Declined

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what the Messages API accepts as a tool name
DESCRIPTION_LIMIT = 2_000


class Servers(Protocol):
    """Where a tool's call goes: the run's servers (servers.py), which hold the live sessions."""

    def call(self, server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Observation: ...


class McpArguments(BaseModel):
    """Whatever the model sends: the server's schema (jsonschema, in the executor) is the judge."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


def removed_by_annotations(definition: dict[str, Any]) -> str:
    """Why the definition's own annotations take it out of plan mode ("" when they do not)."""
    notes = definition.get("annotations") or {}
    if notes.get("readOnlyHint") is False:
        return "it declares readOnlyHint: false"
    if notes.get("destructiveHint") is True:
        return "it declares destructiveHint: true"
    return ""


def digest(definition: dict[str, Any]) -> str:
    """What a definition is pinned by: its name, description, schema and annotations."""

    keys = ("name", "description", "inputSchema", "annotations")
    return canonical({key: definition.get(key) for key in keys})


@dataclass(frozen=True)
class McpTool(Tool[McpArguments]):
    """A server's tool: its spec is the server's schema, not one generated from Params."""

    server: str = ""
    remote: str = ""  # the tool's name on its server
    schema: dict[str, Any] = field(default_factory=dict)

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.schema}


def build(servers: Servers, server: str, definition: dict[str, Any], plan_ok: bool) -> McpTool | str:
    """The Tool for one definition, or why it cannot be offered (a bad name or schema)."""
    remote = str(definition.get("name", ""))
    name = tool_name(server, remote)
    if not TOOL_NAME.fullmatch(name):
        return f"tool {remote[:60]!r}: its name is not a valid tool name as {name[:80]!r}"
    schema = definition.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return f"tool {remote!r}: its input schema is not an object schema"
    try:
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        return f"tool {remote!r}: its input schema is invalid ({exc.message[:200]})"
    said = terminal_safe(str(definition.get("description") or "").strip())
    description = f"[MCP server {server}] " + (clip(said, DESCRIPTION_LIMIT) if said else f"the {remote} tool")

    def execute(args: McpArguments, ctx: ToolContext) -> Observation:
        return servers.call(server, remote, dict(args.model_extra or {}), ctx)

    return McpTool(
        name,
        description,
        McpArguments,
        execute,
        access=Access.EXTERNAL,
        writes="tree",  # in execute mode a stdio server may write the workspace: checkpointed like bash
        admitted=frozenset({"plan"}) if plan_ok else frozenset(),
        server=server,
        remote=remote,
        schema=schema,
    )


def check_arguments(schema: dict[str, Any], arguments: dict[str, Any], name: str) -> None:
    """A ToolError naming the first problem, before the server sees anything."""
    from jsonschema.validators import validator_for

    validator = validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        where = ".".join(str(part) for part in errors[0].absolute_path) or "input"
        raise ToolError(f"invalid arguments for {name}: {where}: {errors[0].message[:300]}")


@dataclass(frozen=True)
class McpCall:
    """An MCP call as an approval shows it: the server, the tool and the arguments."""

    server: str
    tool: str
    arguments: dict[str, Any]

    @property
    def key(self) -> str:
        return tool_name(self.server, self.tool)

    def shown(self) -> str:
        args = json.dumps(self.arguments, ensure_ascii=False, sort_keys=True, indent=1)
        return f"{self.key}  (MCP server {self.server}, tool {self.tool})\n{clip(args, 4_000)}"


def approve(call: McpCall, ctx: ToolContext) -> str:
    """Execute mode: why the call may run, or a ToolError(Declined) saying why not."""

    policy = ctx.sandbox.approval
    if policy is None:
        raise ToolError(f"{call.key} needs an approval policy, and this run has none", Declined(call.key, "no policy"))
    if any(fnmatch.fnmatchcase(call.key, pattern) for pattern in policy.allow if pattern.startswith("mcp__")):
        return "allowed by config"
    scope = Scope((call.key,), exact=False)  # "always" covers the tool with any arguments, as its label says
    if scope in policy.always.scopes():
        return f"allowed for this session ({scope.label()})"
    if policy.yes:
        return "--yes"
    why = "an MCP tool call: what it does happens outside the workspace, and cast cannot undo it"
    request = ApprovalRequest(call.shown(), policy.workspace_root or "", why, scope)
    if policy.approver is None:
        reason = (
            f"approval needed for {call.key} and cast is running without a terminal to ask: re-run with --yes, "
            f'or add allow = ["{call.key}"] to ~/.config/cast/config.toml'
        )
        raise ToolError(reason, Declined(call.key, reason))
    answer: ApprovalAnswer = policy.approver.ask(request)
    decided = policy.resolve(request, answer)
    if hasattr(decided, "reason"):
        reason = decided.reason.replace("this command", f"this MCP call ({call.key})")
        raise ToolError(reason, Declined(call.key, reason))
    return decided.label
