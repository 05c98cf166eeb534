"""How one turn's tool calls run: consecutive read-only calls together (up to four threads), any
other call alone and in order, and a read-only call identical to an earlier one answered from the
record while nothing has changed since. Apart from the loop because none of it is a guard or
touches the transcript: it turns calls into observations, nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cast.agent.gate import CallGate
from cast.agent.guards import CallRecord
from cast.models import base as m
from cast.text import one_line
from cast.tools.base import CommandParams, Observation, Tool, ToolContext, run_tool, validated
from cast.tools.results import Declined, Failed, Interrupted

MAX_PARALLEL_READS = 4

Outcome = tuple[Observation, bool]  # the observation, and whether it came from the record


def batches(calls: list[m.ToolUse], by_name: dict[str, Tool[Any]]) -> Iterator[list[m.ToolUse]]:
    """Runs of consecutive read-only calls, and every other call on its own, in the model's order."""
    batch: list[m.ToolUse] = []
    for call in calls:
        tool = by_name.get(call.name)
        if tool is not None and tool.read_only:
            batch.append(call)
            continue
        if batch:
            yield batch
            batch = []
        yield [call]
    if batch:
        yield batch


NO_GATE = CallGate()


def execute(
    batch: list[m.ToolUse],
    by_name: dict[str, Tool[Any]],
    ctx: ToolContext,
    record: CallRecord,
    step: int,
    gate: CallGate = NO_GATE,
) -> list[Outcome]:
    """Every call's outcome, in the batch's order. A Ctrl+C while they run sets the cancel flag,
    which running commands poll: they die and report what they did."""
    if len(batch) == 1:
        return [execute_one(batch[0], by_name, ctx, record, step, gate)]
    from concurrent.futures import ThreadPoolExecutor, wait  # here: most steps run one call, and start-up skips it

    pool = ThreadPoolExecutor(max_workers=MAX_PARALLEL_READS)
    futures = [pool.submit(execute_one, call, by_name, ctx, record, step, gate) for call in batch]
    try:
        wait(futures)
    except KeyboardInterrupt:
        ctx.cancel.set()
    finally:
        pool.shutdown(wait=True)
    return [future.result() for future in futures]


def execute_one(
    call: m.ToolUse, by_name: dict[str, Tool[Any]], ctx: ToolContext, record: CallRecord, step: int, gate: CallGate = NO_GATE
) -> Outcome:
    """One call: refused by name outside the mode, refused by the gate, answered from the record,
    or run (with `ctx.call_id` naming it on this thread), and the gate's addition appended."""
    tool = by_name.get(call.name)
    if tool is None:
        offered = ", ".join(by_name)
        return Observation(
            f"error: no tool named '{call.name}' in this mode; available: {offered}", ok=False, summary="unknown tool"
        ), False
    refused = gate.before(call)
    if refused is not None:
        return refusal(call, tool, refused), False
    with ctx.calling(call.id):
        obs, from_record = _run(call, tool, ctx, record, step)
    added = gate.after(call, obs)
    if added:
        obs.text += "\n" + added
    return obs, from_record


def refusal(call: m.ToolUse, tool: Tool[Any], reason: str) -> Observation:
    """A call the gate would not let run: its reason is the observation, typed like a decline."""
    params = validated(tool, call.input)
    result = Declined(params.command, reason) if isinstance(params, CommandParams) else Failed(call.name, reason)
    return Observation(reason, ok=False, summary=one_line(reason, 200), result=result)


def _run(call: m.ToolUse, tool: Tool[Any], ctx: ToolContext, record: CallRecord, step: int) -> Outcome:
    if tool.read_only:
        hit = record.lookup(call.name, call.input)
        if hit:
            text = (
                f"[cast: identical to your call at step {hit.step}, and no tool has changed files since "
                f"nor has any file you read, so it was not run again. Its result:]\n{hit.text}"
            )
            return Observation(text, summary=f"from record (step {hit.step})"), True
    obs = run_tool(tool, call.input, ctx)
    if not tool.read_only or obs.changed:
        record.changed()
    elif obs.ok:
        record.remember(call.name, call.input, step, obs.text, obs.summary)
    return obs, False


def interrupted(batch: list[m.ToolUse], by_name: dict[str, Tool[Any]], said: str) -> list[Outcome]:
    """What a Ctrl+C that reached the loop while `batch` ran leaves of it: each call may have taken effect."""
    text = f"[{said} while this call ran: it may have taken effect]"
    return [
        (Observation(text, False, said, result=Interrupted(validated(by_name.get(c.name), c.input), True)), False) for c in batch
    ]


def not_run(use: dict[str, Any], by_name: dict[str, Tool[Any]], interrupted: str, declined: str = "") -> Observation:
    """A call of the turn that never started: Ctrl+C came first, or (`declined`: why) the user did
    not approve the changed plan, which stops the turn there; nothing was interrupted then."""
    params = validated(by_name.get(use["name"]), use.get("input"))
    if not declined:
        return Observation(f"[{interrupted}: not run]", False, interrupted, result=Interrupted(params, False))
    said = f"not run: {declined}"
    result = Declined(params.command, said) if isinstance(params, CommandParams) else Failed(use["name"], said)
    return Observation(f"{said}, so the turn stopped before this call", False, said, result=result)
