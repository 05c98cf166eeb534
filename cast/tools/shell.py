"""The bash tool. In plan mode every command must first be proven read-only by the checker; the
proof is code, not a prompt, so no wording of the task can talk its way past it. What the checker
lets through still runs inside the kernel sandbox (cast/sandbox): the checker decides and explains,
the sandbox guarantees. Where no kernel layer exists, only the checker's strict subset runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from cast.sandbox.denials import denial
from cast.sandbox.policy import READ_ONLY, Policy, detect, workspace_write
from cast.tools.base import Observation, Params, Tool, ToolContext, ToolError
from cast.tools.process import CommandResult, parse_test_counts, private_git_index, read_only_env, run_command

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600


class BashParams(Params):
    command: str = Field(description="The bash command line to run in the workspace root.")
    timeout: int = Field(DEFAULT_TIMEOUT, ge=1, le=MAX_TIMEOUT, description=f"Seconds (default {DEFAULT_TIMEOUT}).")


def observe(command: str, result: CommandResult, changed: tuple[str, ...] = ()) -> Observation:
    """`exit_code=N` first, then what happened, then the output (head and tail if long)."""
    lines = [f"exit_code={result.exit_code}"]
    if result.timed_out:
        lines.append(f"[timed out after {result.seconds:.0f}s: the command and every process it started were killed]")
    if result.interrupted:
        lines.append("[interrupted by user: the command and every process it started were killed]")
    counts = parse_test_counts(result.tail or result.head)
    if counts:
        lines.append("[tests: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + "]")
    if changed:
        lines.append(f"[files changed: {', '.join(changed)}]")
    output = result.output  # already capped, head and tail, with a marker giving the real size
    lines.append(output if output else "(no output)")
    facts = {
        "command": command,
        "exit_code": result.exit_code,
        "tests": counts,
        "timed_out": result.timed_out,
        "sandbox": result.sandbox,
    }
    summary = f"exit_code={result.exit_code}" + (", timed out" if result.timed_out else "")
    if counts:
        summary += " · " + ", ".join(f"{n} {k}" for k, n in counts.items())
    ok = not (result.timed_out or result.interrupted)
    return Observation("\n".join(lines), ok=ok, summary=summary, changed=changed, facts=facts)


def _live(ctx: ToolContext, command: str) -> Callable[[str], None] | None:
    """The front-end's live view of this command, if it has one (the REPL does; a pipe does not)."""
    hook = ctx.on_output
    return None if hook is None else lambda line: hook(command, line)


_NO_LAYER_SAID: list[bool] = []


def no_sandbox_notice() -> str | None:
    """Once per process, when no kernel layer holds commands: say so plainly."""
    layer = detect()
    if layer.active or _NO_LAYER_SAID:
        return None
    _NO_LAYER_SAID.append(True)
    return f"[{layer.detail}; git and programs that read configuration from the tree are refused]"


def read_only_verdict(command: str) -> tuple[bool, str]:
    """The checker's verdict; without a kernel layer, its strict subset's."""
    from cast.safety import bash_check  # tree-sitter loads only when bash is used

    verdict = bash_check.check(command, strict=not detect().active)
    return verdict.allowed, verdict.reason


def plan_bash(args: BashParams, ctx: ToolContext) -> Observation:
    command = args.command
    notice = no_sandbox_notice()
    allowed, reason = read_only_verdict(command)
    if not allowed:
        raise ToolError(
            (notice + "\n" if notice else "") + f"command blocked in plan mode: {reason}. Plan mode runs only commands proven "
            "read-only. Use read_file, list_files or grep, a read-only form of the command, or put "
            "the command in the plan as a step for execution."
        )
    timeout = args.timeout
    root = ctx.workspace.root
    with private_git_index(root, read_only_env(root)) as env:
        result = run_command(command, root, timeout, ctx.cancel, env, sandbox=READ_ONLY, on_line=_live(ctx, command))
    obs = observe(command, result)
    if notice:  # after exit_code=N, which stays the first line
        first, _, rest = obs.text.partition("\n")
        obs.text = f"{first}\n{notice}\n{rest}"
        obs.summary += " · no kernel sandbox here: only the checker's strict subset runs (cast doctor)"
    return obs


PLAN_BASH = Tool(
    "bash",
    "Run a read-only bash command (git log/diff/show, grep, find, wc, sed -n, ...). Commands that "
    "could write files or run code are refused with the reason. Output starts with exit_code=N.",
    BashParams,
    plan_bash,
    read_only=True,
)


def _proven_read_only(command: str) -> bool:
    return read_only_verdict(command)[0]


def execute_bash(args: BashParams, ctx: ToolContext) -> Observation:
    """Approval policy first (deny list, read-only proof, allow rules, --yes, the user); then run
    and report which files the command changed."""
    from cast.tools.changes import changed_between, workspace_state

    command = args.command
    policy = ctx.approval
    if policy is None:
        raise ToolError("no approval policy in this session; bash cannot run")
    decision = policy.decide(command, _proven_read_only)
    if not decision.run:
        raise ToolError(decision.reason)
    root = ctx.workspace.root
    before = workspace_state(root)
    read_only = decision.reason == "read-only"
    env = read_only_env(root) if read_only else None  # the proof's assumptions
    sandbox = READ_ONLY if read_only else _approved_sandbox(policy, root)
    result = run_command(command, root, args.timeout, ctx.cancel, env, sandbox=sandbox, on_line=_live(ctx, command))
    denied = denial(result.exit_code, result.output) if sandbox is not None and not read_only else None
    outside = denied is not None and _approve_outside(policy, command, denied)
    if denied and outside:
        first = result
        result = run_command(command, root, args.timeout, ctx.cancel, None, sandbox=None, on_line=_live(ctx, command))
    changed = changed_between(before, workspace_state(root))
    obs = observe(command, result, changed)
    obs.facts["approval"] = decision.reason
    if denied and outside:
        obs.text += (
            f"\n[the first run, in the sandbox, failed on {denied} (exit_code={first.exit_code}); "
            "the user approved this second run outside the sandbox]"
        )
        obs.facts["approval"] += "; re-run outside the sandbox, approved"
    elif denied:
        obs.text += (
            f"\n[sandbox: this command ran with writes limited to the workspace and the temp dir"
            f"{'' if sandbox and sandbox.network else ' and no network'}; it seems to have failed on {denied}. "
            "Only the user can let it run outside the sandbox"
            f"{' (they declined)' if policy.approver is not None else ' (in an interactive session)'}]"
        )
        obs.facts["sandbox_denied"] = denied
    return obs


def _approved_sandbox(policy: Any, root: Any) -> Policy | None:
    """Config `sandbox = "workspace-write"` holds approved commands too (where a layer exists)."""
    if getattr(policy, "sandbox", "off") != "workspace-write" or not detect().active:
        return None
    return workspace_write(root, bool(getattr(policy, "sandbox_network", False)))


def _approve_outside(policy: Any, command: str, denied: str) -> bool:
    """Ask, saying plainly what is asked: this command again, with no sandbox at all. --yes and
    "always" answers given earlier do not cover it."""
    if policy.approver is None:
        return False
    answer = policy.approver(f"{command}\n# run again OUTSIDE the sandbox? In the sandbox it failed on {denied}")
    return getattr(answer, "value", answer) in ("yes", "always")


EXECUTE_BASH = Tool(
    "bash",
    "Run a bash command in the workspace root (non-interactive: stdin is empty). Commands that are "
    "not provably read-only may need the user's approval. Output starts with exit_code=N and lists "
    "the files the command changed.",
    BashParams,
    execute_bash,
)
