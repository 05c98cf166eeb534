"""The bash tool. In plan mode every command must first be proven read-only by the checker; the
proof is code, not a prompt, so no wording of the task can talk its way past it."""
from __future__ import annotations

from pydantic import Field

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
        lines.append(f"[timed out after {result.seconds:.0f}s: the command and its process group were killed]")
    if result.interrupted:
        lines.append("[interrupted by user: the command and its process group were killed]")
    counts = parse_test_counts(result.tail or result.head)
    if counts:
        lines.append("[tests: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + "]")
    if changed:
        lines.append(f"[files changed: {', '.join(changed)}]")
    output = result.output  # already capped, head and tail, with a marker giving the real size
    lines.append(output if output else "(no output)")
    facts = {"command": command, "exit_code": result.exit_code, "tests": counts, "timed_out": result.timed_out}
    summary = f"exit_code={result.exit_code}" + (", timed out" if result.timed_out else "")
    if counts:
        summary += " · " + ", ".join(f"{n} {k}" for k, n in counts.items())
    ok = not (result.timed_out or result.interrupted)
    return Observation("\n".join(lines), ok=ok, summary=summary, changed=changed, facts=facts)


def plan_bash(args: BashParams, ctx: ToolContext) -> Observation:
    from cast.safety.bash_check import check  # tree-sitter loads only when bash is used

    command = args.command
    verdict = check(command)
    if not verdict.allowed:
        raise ToolError(
            f"command blocked in plan mode: {verdict.reason}. Plan mode runs only commands proven "
            "read-only. Use read_file, list_files or grep, a read-only form of the command, or put "
            "the command in the plan as a step for execution."
        )
    timeout = args.timeout
    root = ctx.workspace.root
    with private_git_index(root, read_only_env(root)) as env:
        result = run_command(command, root, timeout, ctx.cancel, env)
    return observe(command, result)


PLAN_BASH = Tool(
    "bash",
    "Run a read-only bash command (git log/diff/show, grep, find, wc, sed -n, ...). Commands that "
    "could write files or run code are refused with the reason. Output starts with exit_code=N.",
    BashParams,
    plan_bash,
    read_only=True,
)


def _proven_read_only(command: str) -> bool:
    from cast.safety.bash_check import check

    return check(command).allowed


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
    env = read_only_env(root) if decision.reason == "read-only" else None  # the proof's assumptions
    result = run_command(command, root, args.timeout, ctx.cancel, env)
    changed = changed_between(before, workspace_state(root))
    obs = observe(command, result, changed)
    obs.facts["approval"] = decision.reason
    return obs


EXECUTE_BASH = Tool(
    "bash",
    "Run a bash command in the workspace root (non-interactive: stdin is empty). Commands that are "
    "not provably read-only may need the user's approval. Output starts with exit_code=N and lists "
    "the files the command changed.",
    BashParams,
    execute_bash,
)
