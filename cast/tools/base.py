"""What a tool is: a schema the model sees, an executor, and the observation it returns.

Failure is an observation, never a crash: executors raise `ToolError` for anything the model can
fix (bad path, blocked command), and `run_tool` turns every exception into an error observation
so one bad call can never take down a session.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from cast.workspace import Workspace


class ToolError(Exception):
    """A failure the model should read and act on."""


@dataclass
class Observation:
    text: str
    ok: bool = True
    summary: str = ""  # one line for front-ends: "lines 1-40 of 120", "exit_code=0"
    changed: tuple[str, ...] = ()  # workspace-relative paths this call changed
    facts: dict[str, Any] = field(default_factory=dict)  # structured evidence for the report


@dataclass
class ToolContext:
    """Everything an executor may touch. Optional parts are None where a mode does not need them."""

    workspace: "Workspace"
    cancel: threading.Event = field(default_factory=threading.Event)
    plan_dir: Path | None = None  # where write_plan may write
    task: str = ""  # the user's task, for plan front matter
    services: dict[str, Any] = field(default_factory=dict)  # mode-specific collaborators (task board, approver)


Executor = Callable[[dict[str, Any], ToolContext], Observation]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    execute: Executor
    read_only: bool = False  # read-only calls may run concurrently and be answered from the record

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": self.schema}


def run_tool(tool: Tool, arguments: Any, ctx: ToolContext) -> Observation:
    """Validate, execute, and never raise (KeyboardInterrupt aside: that belongs to the loop)."""
    problem = validate(tool.schema, arguments)
    if problem:
        return Observation(f"error: invalid arguments for {tool.name}: {problem}", ok=False, summary="invalid arguments")
    try:
        return tool.execute(arguments, ctx)
    except ToolError as exc:
        return Observation(f"error: {exc}", ok=False, summary=str(exc).splitlines()[0][:80])
    except Exception as exc:  # a bug in cast must not end the user's session
        return Observation(f"error: {tool.name} failed unexpectedly: {type(exc).__name__}: {exc}", ok=False, summary="internal error")


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def validate(schema: dict[str, Any], value: Any, where: str = "input") -> str | None:
    """The subset of JSON Schema cast's own tool schemas use; returns the first problem found."""
    expected = schema.get("type")
    if expected:
        kinds = _TYPES[expected]
        if not isinstance(value, kinds) or (expected in ("integer", "number") and isinstance(value, bool)):
            return f"{where} must be {expected}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {', '.join(map(str, schema['enum']))}, got {value!r}"
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        return f"{where} must be >= {schema['minimum']}, got {value}"
    if "maximum" in schema and isinstance(value, (int, float)) and value > schema["maximum"]:
        return f"{where} must be <= {schema['maximum']}, got {value}"
    if expected == "object":
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                return f"missing required field '{name}'"
        for name, item in value.items():
            if name not in properties:
                if schema.get("additionalProperties", True) is False:
                    return f"unknown field '{name}' (expected: {', '.join(properties)})"
                continue
            problem = validate(properties[name], item, name)
            if problem:
                return problem
    return None


def object_schema(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [], "additionalProperties": False}


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 file`, `2 files`: observations are read by people too."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def clip(text: str, limit: int) -> str:
    """Keep head and tail of long text with an explicit marker; never truncate silently."""
    if len(text) <= limit:
        return text
    head = limit // 2
    tail = limit - head
    marker = f"\n[truncated: showed {limit} of {len(text)} chars]\n"
    return text[:head] + marker + text[len(text) - tail :]
