"""What the loop tells the world. Every front-end (REPL, one-shot terminal, --json) consumes this
one stream; the loop knows nothing about how, or whether, it is shown."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from cast.models.base import TextDelta as TextDelta  # streamed as the model sent them: re-exported
from cast.models.base import ThinkingDelta as ThinkingDelta
from cast.models.base import Usage
from cast.tools.results import Result, result_json

if TYPE_CHECKING:
    from cast.tools.evidence import ItemEvidence


@dataclass(frozen=True)
class StepStarted:
    step: int


@dataclass(frozen=True)
class Note:
    """A reply's thinking block that has text, once the reply is complete: on today's models the
    short notes between tool calls arrive as thinking blocks, so front-ends show these as the
    agent's notes. Blocks the API returned empty (`display: "omitted"`) make no Note."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: Any
    writes: str = ""  # the tool's `writes`: "path", "tree", or "" for a call that changes nothing


@dataclass(frozen=True)
class ToolResult:
    id: str
    name: str
    ok: bool
    summary: str
    text: str
    changed: tuple[str, ...] = ()
    cached: bool = False  # answered from the record of an identical earlier call
    result: Result | None = None  # what the call did, typed (tools/results.py); observers match on it
    input: Any = None  # the call's arguments, as the model sent them: the result comes paired with its call


@dataclass(frozen=True)
class Task:
    id: int
    text: str
    status: str  # pending, in_progress, done, blocked
    note: str = ""
    evidence: ItemEvidence | None = None  # what its tick rested on (tools/evidence.py); None: not ticked this session


@dataclass(frozen=True)
class TaskUpdate:
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class UsageUpdate:
    """The run's totals so far, after each model call; also what a front-end shows as a figure."""

    usage: Usage = Usage()
    context_tokens: int = 0  # size of the last request, what the next one starts from
    cost: float = 0.0  # total, USD, estimated


@dataclass(frozen=True)
class Notice:
    """Something the harness did on its own: a guard fired, files went stale, a retry."""

    text: str
    level: str = "info"  # info, warning


@dataclass(frozen=True)
class Checking:
    """The model ended its turn and cast checks the work before the turn ends: the self-check, a
    model call of cast's own. Front-ends say so, rather than show the agent as still working."""

    what: str = "checking the finished work against the plan (self-check)"


@dataclass(frozen=True)
class Stopped:
    status: str  # done, stopped (a guard), interrupted, failed
    reason: str
    steps: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return 0 if self.status == "done" else 1


@dataclass(frozen=True)
class Nested:
    """An event of a child run (an explore), under the parent's call that started it: front-ends
    show it beneath that call, `--json` prints it with the parent's tool-use id. Observers of the
    parent (its ledger, its usage, its session) match on the inner types and so never take a
    child's tool result or usage for the parent's own."""

    parent_id: str  # the parent's tool-use id
    agent: str  # which child: "explore-1", ...
    event: Event


@dataclass(frozen=True)
class Asked:
    """A question the run puts to its user (a command to approve, a changed plan, ...), on the
    stream like everything else, so `--json` and the observers see it; the front-end's approver
    answers it (keys in the REPL, the terminal, a program's line on stdin) and `Answered`, with
    the same id, says what the answer was."""

    id: str  # "q1", "q2", ... in the order asked
    kind: str  # "command", "edit", "revision", ...: what `request` is (cast.agent.asking.KINDS)
    request: Any  # the typed request (safety.decision.ApprovalRequest, RevisionRequest, ...)
    call_id: str = ""  # the tool call it is about, if any


@dataclass(frozen=True)
class Answered:
    id: str
    kind: str
    answer: Any  # the typed reply (safety.decision.ApprovalAnswer, ...)


@dataclass(frozen=True)
class CommandOutput:
    """The newest line of a command that is still running, under its call's tool-use id, for a live
    view: the REPL's lines under the call, the one-shot's status row, `--json`'s `command_output`
    events. It comes from the thread running the call (which reads the command's output while it waits
    for its exit, tools/process.py) through `ToolContext.emit` (the same stream,
    one event at a time) while the loop waits for the tool, and always before the call's
    ToolResult, whose observation holds the whole output. It is throttled and capped where it is
    made (`tools/liveline.py`): at most ten a second per command, a line only when it changed,
    one line of at most 500 printable characters (escape sequences and control characters
    removed), the command's last line always sent. Observers of the run (its session, report,
    ledger) never see it: it is a view of the output, not a record."""

    call_id: str
    line: str


Event = (
    StepStarted
    | TextDelta
    | ThinkingDelta
    | Note
    | ToolCall
    | ToolResult
    | TaskUpdate
    | UsageUpdate
    | Notice
    | Checking
    | Stopped
    | Nested
    | Asked
    | Answered
    | CommandOutput
)


def to_json(event: Event) -> dict[str, Any]:
    """NDJSON shape: {"type": "tool_result", ...fields}."""
    if isinstance(event, Nested):  # the child's event as it would be, plus where it belongs
        return {**to_json(event.event), "parent_tool_use_id": event.parent_id, "agent": event.agent}
    name = "".join("_" + c.lower() if c.isupper() else c for c in type(event).__name__).lstrip("_")
    fields = asdict(event)
    if isinstance(event, UsageUpdate):
        fields.update(fields.pop("usage"))  # flat, as the token counts have always been
    if isinstance(event, ToolResult):
        fields["result"] = result_json(event.result)
    if isinstance(event, TaskUpdate):  # evidence as it is written everywhere it leaves: ItemEvidence.to_dict
        for task, row in zip(event.tasks, fields["tasks"]):
            row["evidence"] = task.evidence.to_dict() if task.evidence is not None else {}
    if isinstance(event, Asked) and hasattr(event.request, "always_label"):
        fields["request"]["always"] = event.request.always_label  # what "always" would cover, said as the user sees it
    return {"type": name, **fields}
