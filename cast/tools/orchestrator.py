"""decide → pick the sandbox → run → on a sandbox denial, ask and run again outside.

The decision (`cast.safety.decision`) names the sandbox; this module turns it into the kernel
policy and the environment, runs the command, and, when an approved command seems to have failed
on what the sandbox denied, puts the typed question "run it again with no sandbox?" to the user.
Plan mode never asks: its commands run proven read-only, or sandboxed and unverified where the
strong sandbox holds them, or not at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cast.safety.approval import ApprovalPolicy, PlanCommands, decide_plan
from cast.safety.decision import Refuse, Run, SandboxKind
from cast.sandbox.denials import denial
from cast.sandbox.policy import READ_ONLY, Policy, detect, isolation, throwaway, workspace_write
from cast.tools.base import ToolContext

if TYPE_CHECKING:
    from cast.safety.bash_check import Verdict
    from cast.tools.process import CommandResult


def strong_isolation() -> tuple[bool, str]:
    """Is the strong sandbox active (every guarantee at once: scrubbed environment, hidden home,
    no host sockets, no network, a pid namespace, limits)? And if not, what is missing."""
    found = isolation()
    if found.strong:
        return True, f"{found.layer} holds every guarantee of the strong sandbox"
    return False, f"{found.layer}: " + "; ".join(found.missing())


def plan_commands(setting: str) -> PlanCommands:
    """What plan mode runs on this machine under config `plan_commands` ("sandboxed" | "proven")."""
    if setting == "proven":
        return PlanCommands(False, 'config plan_commands = "proven"')
    strong, detail = strong_isolation()
    if not strong:
        return PlanCommands(False, f"unproven commands run only in the strong sandbox, and here {detail}")
    return PlanCommands(True, detail)


def _verdict(command: str, root: str | Path | None) -> Verdict:
    """The checker's verdict for a command run in `root`; without a kernel layer, its strict subset's."""
    from cast.safety import bash_check  # deferred: tree-sitter loads only when bash is used

    return bash_check.check(command, strict=not detect().active, root=root)


def read_only_verdict(command: str, root: str | Path | None = None) -> tuple[bool, str]:
    verdict = _verdict(command, root)
    return verdict.allowed, verdict.reason


def decide_plan_command(command: str, ctx: ToolContext) -> Run | Refuse:
    verdict = _verdict(command, ctx.workspace.root)
    return decide_plan(command, verdict, plan_commands(ctx.sandbox.plan_commands), str(ctx.workspace.root))


def decide_execute_command(command: str, policy: ApprovalPolicy) -> Run | Refuse:
    """The policy's decision, with its question (if any) put to the user."""
    return policy.settle(policy.decide(command, _verdict(command, policy.workspace_root)))


def sandbox_for(kind: SandboxKind, root: Path, policy: ApprovalPolicy | None = None) -> Policy | None:
    """The kernel policy a decision names; None runs with no sandbox (still under the launcher)."""
    if kind is SandboxKind.PROVEN:
        return READ_ONLY
    if kind is SandboxKind.UNVERIFIED:
        return throwaway(root)
    if kind is SandboxKind.WORKSPACE_WRITE and detect().active:
        return workspace_write(root, bool(policy and policy.sandbox_network))
    return None


@contextmanager
def _environment(kind: SandboxKind, root: Path) -> Iterator[dict[str, str] | None]:
    """Commands that run read-only (proven ones, plan mode's unverified ones) get the proof's
    environment (PATH without the tree, hardened git on a private index); approved commands the
    user's own. The sandbox scrubs secrets from either."""
    if kind in (SandboxKind.PROVEN, SandboxKind.UNVERIFIED):
        # deferred: keeps cast.tools.command_env off the one-shot first request
        from cast.tools.command_env import private_git_index, read_only_env

        with private_git_index(root, read_only_env(root)) as env:
            yield env
    else:
        yield None


@dataclass
class Attempt:
    """What running a decided command came to."""

    run: Run  # the decision the (last) run went ahead under
    result: CommandResult
    sandbox: Policy | None  # the policy of the first run
    denied: str | None = None  # what the sandbox seems to have denied on the first run
    first: CommandResult | None = None  # that first run, when the user let it run again outside
    refused_outside: Refuse | None = None  # why it was not run again outside


def attempt(command: str, run: Run, ctx: ToolContext, timeout: float, on_line: Callable[[str], None] | None = None) -> Attempt:
    from cast.tools.process import run_command  # deferred: the runner and its sandbox parts load with the first command

    root = ctx.workspace.root
    sandbox = sandbox_for(run.sandbox, root, ctx.sandbox.approval)
    with _environment(run.sandbox, root) as env:
        result = run_command(command, root, timeout, ctx.cancel, env, sandbox=sandbox, on_line=on_line)
    done = Attempt(run, result, sandbox)
    policy = ctx.sandbox.approval
    if policy is None or sandbox is None or run.sandbox is not SandboxKind.WORKSPACE_WRITE:
        return done  # plan mode and proven commands never leave the sandbox
    done.denied = denial(result.exit_code, result.output)
    if done.denied is None:
        return done
    again = policy.settle(policy.outside(command, done.denied))
    if isinstance(again, Refuse):
        done.refused_outside = again
        return done
    done.first, done.run = result, again
    done.result = run_command(command, root, timeout, ctx.cancel, None, sandbox=None, on_line=on_line)
    return done
