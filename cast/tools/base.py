"""What a tool is: a schema the model sees, an executor, and the observation it returns.

Failure is an observation, never a crash: executors raise `ToolError` for anything the model can
fix (bad path, blocked command), and `run_tool` turns every exception into an error observation
so one bad call can never take down a session.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cast.safety.decision import NobodyToAsk
from cast.text import one_line
from cast.tools.results import Failed, Result

if TYPE_CHECKING:
    from cast.models.base import ToolUse, Usage
    from cast.safety.approval import ApprovalPolicy
    from cast.workspace import Workspace


class ToolError(Exception):
    """A failure the model should read and act on; `result` says what it was when observers need
    more than "it failed" (a command that was declined)."""

    def __init__(self, message: str, result: Result | None = None):
        super().__init__(message)
        self.result = result


@dataclass
class Observation:
    text: str
    ok: bool = True
    summary: str = ""  # one line for front-ends: "lines 1-40 of 120", "exit_code=0"
    changed: tuple[str, ...] = ()  # workspace-relative paths this call changed
    result: Result | None = None  # what the call did, typed, for observers (None: nothing they need)


class Access(StrEnum):
    """What a tool may do, in rising order of reach. A mode admits tools by access level
    (`cast.modes`), so a tool added at start-up takes part in modes without naming them; one that
    declares nothing is `EXTERNAL`, the level no mode trusts by default."""

    READ = "read"  # reads the workspace (bash that is proven read-only or sandboxed read-only)
    PLAN_FILE = "plan file"  # writes only the plan under .cast/plans/<session>/
    WRITE = "write"  # changes files in the workspace
    EXEC = "exec"  # runs commands that may change anything the sandbox lets them
    EXTERNAL = "external"  # acts outside the workspace and cast's sandbox (an MCP server's tool)


ACCESS_ORDER = tuple(Access)  # for "the most capable variant a mode admits" (cast.tools.registry)


class UsageBook(Protocol):
    """Where a model call's usage goes on the run's bill (`agent.cost.UsageLog`): a tool that
    runs a model of its own (a subagent) books its calls here, so the parent's report pays them."""

    def add(self, usage: Usage, kind: str, *, agent: str = "", model: str = "", cost: float | None = None) -> None: ...


class CallSeam(Protocol):
    """The run's hooks around tool calls (`agent.gate.CallGate`), as a tool that runs calls of its
    own (explore's child) hands them on: it may refuse a call, or add to what it observed."""

    def before(self, call: ToolUse) -> str | None: ...

    def after(self, call: ToolUse, observation: Observation) -> str: ...


@dataclass
class Sandbox:
    """What a command or an edit may do in this run, whichever tool asks: plan mode's rule for
    commands cast cannot prove read-only, and execute mode's approval policy (None until the run is
    in execute mode: then no command runs that is not proven, and no edit is asked about)."""

    plan_commands: str = "sandboxed"  # "sandboxed" (unverified ones too, strong sandbox only) or "proven"
    approval: ApprovalPolicy | None = None  # execute mode: who may run what


@dataclass
class ToolContext:
    """What every tool may touch, by name: the workspace, the interrupt, the sandbox's rules and the
    run's channels (questions, extra events, the bill, the hooks). One tool's own state is not here:
    the task board and the plan a run writes are handed to their tools when the run builds them
    (tools/tasks.py, tools/plan.py)."""

    workspace: Workspace
    cancel: threading.Event = field(default_factory=threading.Event)
    session_id: str = ""  # the run's session: where its children's transcripts go, what hooks are told
    sandbox: Sandbox = field(default_factory=Sandbox)
    emit: Callable[[Any], None] = lambda event: (
        None
    )  # an extra `agent.events` event a running call produces (a child's step, a command's live line), to the front-end
    usage: UsageBook | None = None  # the run's bill, for calls that use a model of their own
    gate: CallSeam | None = None  # the run's hooks around calls, for a tool whose child runs calls of its own (explore)
    requests: Callable[[Any], Any] | None = None  # the run's request channel (see `ask`); None: nobody can be asked
    _calls: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    @property
    def call_id(self) -> str:
        """The tool-use id of the call running on this thread ("" outside a call): read-only calls
        run in parallel on one context, so the id is per thread, set by `calling`."""
        return str(getattr(self._calls, "id", ""))

    @contextmanager
    def calling(self, call_id: str) -> Iterator[None]:
        previous, self._calls.id = self.call_id, call_id
        try:
            yield
        finally:
            self._calls.id = previous

    def ask(self, request: Any) -> Any:
        """Ask the user `request` (a typed question: `safety.decision.ApprovalRequest`, ...) and
        wait for its typed reply. Raises `NobodyToAsk` when the run has no one to ask, which the
        caller turns into its refusal."""
        if self.requests is None:
            raise NobodyToAsk(type(request).__name__)
        return self.requests(request)


class Params(BaseModel):
    """Base for a tool's arguments: an unknown field is the model's mistake, so it is refused."""

    model_config = ConfigDict(extra="forbid")


class CommandParams(Params):
    """A tool that runs a command line: what an interrupted call of it asked to run is evidence."""

    command: str = Field(description="The bash command line to run in the workspace root.")


P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Tool(Generic[P]):
    """A tool: typed arguments (the schema the model sees is generated from them), an executor that
    receives them validated, and the Observation it returns."""

    name: str
    description: str
    params: type[P]
    execute: Callable[[P, ToolContext], Observation]
    read_only: bool = False  # read-only calls may run concurrently and be answered from the record
    writes: str = ""  # what a call may change: "path" (the file its `path` names), "tree" (anything), "" (nothing)
    access: Access = Access.EXTERNAL  # what it may do: the modes that offer it follow from this (cast.modes)
    admitted: frozenset[str] = frozenset()  # modes offering it beyond their access levels (plan_tools: only MCP grants it)

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": input_schema(self.params)}


@cache
def input_schema(params: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema the API gets: pydantic's, less the titles and null branches that only add tokens.
    Built once per class (the prefix must be byte-stable, and steps must not pay for it): callers
    copy before changing it."""
    schema = params.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        options = prop.pop("anyOf", None)  # `X | None = None` is an optional X to the model
        if options:
            prop.update(next(o for o in options if o.get("type") != "null"))
        if prop.get("default", "") is None:
            del prop["default"]
    schema["additionalProperties"] = False
    schema.setdefault("required", [])
    return schema


def run_tool(tool: Tool[Any], arguments: Any, ctx: ToolContext) -> Observation:
    """Validate, execute, and never raise (KeyboardInterrupt aside: that belongs to the loop)."""
    if not isinstance(arguments, dict):
        return _invalid(tool, f"input must be object, got {type(arguments).__name__}")
    try:
        params = tool.params.model_validate(arguments, strict=True)
    except ValidationError as exc:
        return _invalid(tool, describe(exc))
    try:
        return tool.execute(params, ctx)
    except ToolError as exc:
        result = exc.result or Failed(tool.name, str(exc))
        summary = one_line(str(exc), 600)  # whole: a reason cut before its point misleads
        return Observation(f"error: {exc}", ok=False, summary=summary, result=result)
    except OSError as exc:  # the machine, not cast: say which file and what the system said
        return io_error(exc, ctx, tool.name)
    except Exception as exc:  # a bug in cast must not end the user's session
        text = f"error: {tool.name} failed unexpectedly: {type(exc).__name__}: {exc}"
        return Observation(text, ok=False, summary="internal error", result=Failed(tool.name, text))


def validated(tool: Tool[Any] | None, arguments: Any) -> Any:
    """The call's arguments as its tool's Params, or None when they do not validate."""
    if tool is None or not isinstance(arguments, dict):
        return None
    try:
        return tool.params.model_validate(arguments, strict=True)
    except ValidationError:
        return None


FATAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})  # no retry by the model can fix these


def io_error(exc: OSError, ctx: ToolContext, tool: str = "") -> Observation:
    """An I/O error as an observation naming the path; a full disk or a failing device also ends the
    run (`Failed.fatal`): the model cannot fix it, and every retry fails the same way."""
    where = str(exc.filename or "")
    try:
        where = str(Path(where).resolve().relative_to(ctx.workspace.root)) if where else ""
    except (ValueError, OSError):
        pass
    said = exc.strerror or str(exc)
    text = f"{where}: {said}" if where else said
    if exc.errno in FATAL_ERRNOS:
        text += "; the run stops here: what was done so far is kept, and it can go on once this is fixed"
    failed = Failed(tool, text, fatal=text if exc.errno in FATAL_ERRNOS else "")
    return Observation(f"error: {text}", ok=False, summary=text, result=failed)


def _invalid(tool: Tool[Any], problem: str) -> Observation:
    text = f"error: invalid arguments for {tool.name}: {problem}"
    return Observation(text, ok=False, summary="invalid arguments", result=Failed(tool.name, text))


_KINDS = {"string": "string", "int": "integer", "float": "number", "bool": "boolean", "dict": "object", "list": "array"}


def describe(exc: ValidationError) -> str:
    """Pydantic's first complaint, said so that a model can act on it."""
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "input"
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        return f"missing required field '{where}'"
    if kind == "extra_forbidden":
        return f"unknown field '{where}'"
    if kind.endswith("_type"):
        expected = _KINDS.get(kind.removesuffix("_type"), kind.removesuffix("_type"))
        return f"{where} must be {expected}, got {type(value).__name__}"
    return f"{where}: {error['msg'][:1].lower()}{error['msg'][1:]}, got {value!r}"
