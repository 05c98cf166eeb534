"""What a tool call did, typed. The model reads an Observation's text; everything else (the
ledger, the checkpoint recorder, the front-ends, `cast verify`) matches on these types and never
on a tool's name or on words in its text. Each carries what its observers need, no more.

Plain dataclasses, no pydantic: front-ends import this before any tool is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Ran:
    """A command that ran (to its end, or until its timeout or a Ctrl+C killed it)."""

    command: str
    exit_code: int
    tests: dict[str, int] = field(default_factory=dict)  # parsed from its output: passed, failed, errors...
    timed_out: bool = False
    interrupted: bool = False
    sandbox: str = ""  # the kernel layer and policy it ran under; "" for none
    approval: str = ""  # why it was allowed to run
    verified: bool = True  # False: plan mode ran it sandboxed without proving it read-only
    sandbox_denied: str = ""  # what the sandbox seems to have refused it


@dataclass(frozen=True)
class Declined:
    """A command that did not run: the checker, the approval policy or the user said no."""

    command: str
    reason: str


@dataclass(frozen=True)
class Interrupted:
    """A call Ctrl+C caught: while it ran (`started`, it may have taken effect) or before it
    started. `params` are the call's validated arguments, None when they did not validate."""

    params: Any
    started: bool


@dataclass(frozen=True)
class Edited:
    """A file a tool wrote or edited, and the unified diff of the change."""

    path: str
    diff: str = ""


@dataclass(frozen=True)
class PlanWritten:
    """A plan file written (a new plan, or a revision of the executed one)."""

    path: str
    items: int
    revision: str


@dataclass(frozen=True)
class TaskUpdated:
    id: int
    status: str  # in_progress, done, blocked


@dataclass(frozen=True)
class Failed:
    """Any other failure the model reads: bad arguments, an unknown tool, a ToolError."""

    tool: str
    error: str
    fatal: str = ""  # why the run must stop (a full disk): no retry by the model can fix it


@dataclass(frozen=True)
class Explored:
    """An explore's answer: what a read-only child run read and ran, as its own events showed them.
    An observation of what it read, not a fact cast verified: claims resting on it alone say so."""

    task: str
    status: str  # the child's stop: done, stopped (a guard), interrupted, failed
    reason: str
    steps: int
    files: tuple[str, ...] = ()  # files it read, workspace-relative
    commands: tuple[str, ...] = ()  # each "`command` exit_code=N" (or why it did not run)
    model: str = ""
    tokens: int = 0
    cost: float | None = None  # None: no price known for its model
    transcript: str = ""  # where its transcript is kept, "" if nowhere


@dataclass(frozen=True)
class External:
    """A call to an MCP server's tool: what it did happened outside the workspace, so `cast undo`
    cannot revert it and `cast verify` cannot re-check it (it says so: SKIP)."""

    server: str
    tool: str
    ok: bool
    approval: str = ""  # why it was allowed to run: "plan_tools", "approved", "--yes", ...
    error: str = ""


Result = Ran | Declined | Interrupted | Edited | PlanWritten | TaskUpdated | Failed | External | Explored


def result_json(result: Result | None) -> dict[str, Any] | None:
    """`--json`'s shape: {"type": "ran", "command": ..., ...}."""
    if result is None:
        return None
    fields = {name: getattr(result, name) for name in result.__dataclass_fields__}
    if isinstance(result, Interrupted):
        params = result.params
        fields["params"] = params.model_dump() if hasattr(params, "model_dump") else None
    return {"type": type(result).__name__.lower(), **fields}
