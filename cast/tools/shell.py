"""The bash tool. In plan mode a command runs when the checker proves it read-only, or, where the
strong sandbox holds it, sandboxed and unverified (the project's tests, a build: the planner sees
real results), its writes thrown away; the proof and the choice are code, not a prompt, so no
wording of the task can talk its way past them. Everything runs inside the kernel sandbox
(cast/sandbox): the checker decides and explains, the sandbox guarantees. Where no kernel layer
exists, only the checker's strict subset runs. How a decision becomes a run is orchestrator.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import Field

from cast.agent import events as ev
from cast.safety.decision import Refuse, Run, SandboxKind
from cast.sandbox.policy import Policy, detect
from cast.text import one_line, terminal_safe
from cast.tools.base import Access, CommandParams, Observation, Tool, ToolContext, ToolError
from cast.tools.orchestrator import attempt, decide_execute_command, decide_plan_command, read_only_verdict
from cast.tools.results import Declined, Ran

if TYPE_CHECKING:
    from cast.tools.process import CommandResult

__all__ = ["EXECUTE_BASH", "PLAN_BASH", "observe", "read_only_verdict"]

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600


class BashParams(CommandParams):
    timeout: int = Field(DEFAULT_TIMEOUT, ge=1, le=MAX_TIMEOUT, description=f"Seconds (default {DEFAULT_TIMEOUT}).")


def observe(command: str, result: CommandResult, changed: tuple[str, ...] = ()) -> Observation:
    """`exit_code=N` first, then what happened, then the output (head and tail if long)."""
    lines = [f"exit_code={result.exit_code}"]
    if result.timed_out:
        lines.append(f"[timed out after {result.seconds:.0f}s: the command and every process it started were killed]")
    if result.interrupted:
        lines.append("[interrupted by user: the command and every process it started were killed]")
    from cast.tools.test_runners import parse_test_counts  # deferred: keeps the runners' table off the first request

    counts = parse_test_counts(result.tail or result.head)
    if counts:
        lines.append("[tests: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + "]")
    if changed:
        lines.append(f"[files changed: {', '.join(changed)}]")
    output = result.output  # already capped, head and tail, with a marker giving the real size
    lines.append(output if output else "(no output)")
    ran = Ran(command, result.exit_code, counts, result.timed_out, result.interrupted, result.sandbox)
    summary = f"exit_code={result.exit_code}" + (", timed out" if result.timed_out else "")
    if counts:
        summary += " · " + ", ".join(f"{n} {k}" for k, n in counts.items())
    ok = not (result.timed_out or result.interrupted)
    return Observation("\n".join(lines), ok=ok, summary=summary, changed=changed, result=ran)


def _live(ctx: ToolContext, command: str) -> Callable[[str], None]:
    """The command's newest output line, as it runs, on the run's stream (`events.CommandOutput`,
    throttled and stripped of escapes by liveline.py, what is left made text by `terminal_safe`,
    for every front-end and a program's editor alike): under this call's id, taken here when the call
    starts (the id is per thread: parallel read-only calls share one context)."""
    call, emit = ctx.call_id, ctx.emit
    return lambda line: emit(ev.CommandOutput(call, terminal_safe(line)))  # a bidi override is no control to liveline


_NO_LAYER_SAID: list[bool] = []
_SAID: set[str] = set()  # why plan mode runs only proven commands here, once told


def no_sandbox_notice() -> str | None:
    """Once per process, when no kernel layer holds commands: say so plainly."""
    layer = detect()
    if layer.active or _NO_LAYER_SAID:
        return None
    _NO_LAYER_SAID.append(True)
    return f"[{layer.detail}; git and programs that read configuration from the tree are refused]"


def git_notice(ctx: ToolContext) -> str | None:
    """Once per process and workspace, when the sandbox leaves out git metadata the repository
    names outside the workspace (cast/gitdir.py): git in the sandbox then finds no repository, and
    the model should know why rather than guess."""
    if not detect().active:
        return None
    from cast.sandbox.visible import git_unseen  # deferred: keeps cast.sandbox.visible off a run's start

    note = git_unseen(str(ctx.workspace.root))
    if note is None or note in _SAID:
        return None
    _SAID.add(note)
    return f"[{note}]"


def plan_bash(args: BashParams, ctx: ToolContext) -> Observation:
    """One look at what the sandbox hides for the whole call (the git note, the scratch dir, the
    mounts: visible.one_look), not one per part."""
    from cast.sandbox.visible import one_look  # deferred: keeps cast.sandbox.visible off a run's start

    with one_look():
        return _plan_bash(args, ctx)


def _plan_bash(args: BashParams, ctx: ToolContext) -> Observation:
    command = args.command
    notice = no_sandbox_notice()
    git_note = git_notice(ctx)
    decision = decide_plan_command(command, ctx)
    if isinstance(decision, Refuse):
        said = [n for n in (notice, git_note) if n]
        if decision.context and decision.context not in _SAID:  # once per process, as the notice above
            _SAID.add(decision.context)
            said.append(decision.context)
        raise ToolError("\n".join([*said, decision.reason]), declined(command, decision.reason))
    done = attempt(command, decision, ctx, args.timeout, _live(ctx, command))
    obs = observe(command, done.result)
    unverified = decision.sandbox is SandboxKind.UNVERIFIED
    assert isinstance(obs.result, Ran)
    obs.result = replace(obs.result, approval=decision.label, verified=not unverified)
    extra = []
    if unverified:
        extra.append(_unverified_line(decision, done.sandbox))
        obs.summary += " · sandboxed, unverified"
    if notice:
        extra.append(notice)
        obs.summary += " · no kernel sandbox here: only the checker's strict subset runs (cast doctor)"
    if git_note:
        extra.append(git_note)
    if extra:  # after exit_code=N, which stays the first line
        first, _, rest = obs.text.partition("\n")
        obs.text = "\n".join([first, *extra, rest])
    return obs


def _unverified_line(decision: Run, sandbox: Policy | None) -> str:
    writes = "writes to the workspace went to a throwaway overlay" if sandbox and sandbox.overlay else "the workspace read-only"
    why = decision.label.removeprefix("sandboxed, unverified: ")
    return (
        f"[sandboxed, unverified: the checker could not prove this read-only ({why}), so it ran in the "
        f"{detect().name} sandbox: nothing it wrote persists ({writes}, everything else read-only), no network]"
    )


PLAN_BASH = Tool(
    "bash",
    "Run a bash command in plan mode. Commands cast proves read-only (git log/diff/show, grep, find, "
    "wc, sed -n, ...) run; where the strong sandbox is active, others (the project's tests, a build) "
    "run in it, unverified, with the workspace read-only and their writes thrown away; elsewhere they "
    "are refused with the reason. Output starts with exit_code=N.",
    BashParams,
    plan_bash,
    read_only=True,
    access=Access.READ,  # proven read-only, or sandboxed with the workspace read-only and its writes thrown away
)


def execute_bash(args: BashParams, ctx: ToolContext) -> Observation:
    """Decide (deny list, read-only proof, allow rules, --yes, the user), run in the sandbox the
    decision names, and report which files the command changed."""
    # deferred: keeps cast.tools.changes off the one-shot first request
    from cast.tools.changes import changed_between, workspace_state

    command = args.command
    policy = ctx.sandbox.approval
    if policy is None:
        why = "no approval policy in this session; bash cannot run"
        raise ToolError(why, declined(command, why))
    decision = decide_execute_command(command, policy)
    if isinstance(decision, Refuse):
        raise ToolError(decision.reason, declined(command, decision.reason))
    root = ctx.workspace.root
    before = workspace_state(root)
    done = attempt(command, decision, ctx, args.timeout, _live(ctx, command))
    changed = changed_between(before, workspace_state(root))
    obs = observe(command, done.result, changed)
    assert isinstance(obs.result, Ran)
    ran = replace(obs.result, approval=decision.label)
    if done.first is not None:
        obs.text += (
            f"\n[the first run, in the sandbox, failed on {done.denied} (exit_code={done.first.exit_code}); "
            "the user approved this second run outside the sandbox]"
        )
        ran = replace(ran, approval=ran.approval + "; " + done.run.label)
    elif done.denied and done.refused_outside is not None:
        network = done.sandbox is not None and done.sandbox.network
        obs.text += (
            f"\n[sandbox: this command ran with writes limited to the workspace and the temp dir"
            f"{'' if network else ' and no network'}; it seems to have failed on {done.denied}. "
            f"{done.refused_outside.reason[0].upper()}{done.refused_outside.reason[1:]}]"
        )
        ran = replace(ran, sandbox_denied=done.denied)
    note = git_notice(ctx) if done.sandbox is not None else None  # a sandboxed git found no repository: say why
    if note:
        obs.text += "\n" + note
    obs.result = ran
    return obs


def declined(command: str, reason: str) -> Declined:
    """Why a command did not run, in a report line: the first sentence of the reason, or, when
    the reason introduces what the user said instead ("...said instead:"), the user's words."""
    lines = reason.removeprefix("error: ").strip().splitlines()
    first = lines[0] if lines else ""
    if first.endswith(":") and len(lines) > 1:
        return Declined(command, one_line(" ".join(lines), 200))
    return Declined(command, first.split(". ")[0].rstrip(".")[:160])


EXECUTE_BASH = Tool(
    "bash",
    "Run a bash command in the workspace root (non-interactive: stdin is empty). Commands that are "
    "not provably read-only may need the user's approval. Output starts with exit_code=N and lists "
    "the files the command changed.",
    BashParams,
    execute_bash,
    writes="tree",
    access=Access.EXEC,
)
