"""`cast doctor`: what this machine gives cast, one line per check, so a user knows before a run
whether plan mode is held by the kernel or by the checker alone.

A check is a function returning a Check; add one by appending it to CHECKS.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cast.config import ConfigError, load
from cast.models.diagnose import config_status, key_status, model_summary, provider_status, workspace_root
from cast.sandbox import policy
from cast.sandbox.limits import configure
from cast.sandbox.report import lines
from cast.sandbox.visible import git_dirs, git_unseen
from cast.text import terminal_safe  # details quote files, paths and servers: text only
from cast.tools.orchestrator import plan_commands
from cast.trust import status


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def sandbox_check() -> Check:
    layer = policy.detect()
    detail = layer.detail if layer.binary else f"{layer.name}: {layer.holds}"  # a binary's detail names its layer
    return Check("sandbox", layer.active, detail)


def sandbox_details() -> list[Check]:
    """What the sandbox hides and blocks here, one line each, and what plan mode runs."""

    try:
        config = load(workspace_root())
    except ConfigError:
        return [Check(*line) for line in lines()]
    configure(config.sandbox_env_passthrough, config.sandbox_limits)
    plan = plan_commands(config.plan_commands)
    return [Check(*line) for line in lines((plan.unverified, plan.why))]


def git_metadata_check() -> list[Check]:
    """Said only when the workspace's `.git` reaches outside it: what the sandbox shows of that
    (proven by git's back-link) or leaves out (everything else: cast/gitdir.py)."""

    root = workspace_root()
    if root is None:
        return []
    note = git_unseen(str(root))
    if note is not None:
        return [Check("git metadata", False, f"{note} (git in the sandbox finds no repository there)")]
    shown = git_dirs(str(root))
    if shown:
        return [
            Check(
                "git metadata",
                True,
                "outside the workspace, tied to it by git's back-link, readable in the sandbox: " + ", ".join(shown),
            )
        ]
    return []


def model_check() -> Check:
    return Check("model", *model_summary(workspace_root()))


def provider_check() -> Check:
    return Check("provider", *provider_status(workspace_root()))


def key_check() -> Check:
    return Check("api key", *key_status(workspace_root()))


def config_check() -> Check:
    return Check("config", *config_status(workspace_root()))


def trust_check() -> Check:
    root = workspace_root()
    return Check("trust", *status(root)) if root is not None else Check("trust", True, "no workspace")


CHECKS: list[Callable[[], Check | list[Check]]] = [
    sandbox_check,
    sandbox_details,
    git_metadata_check,
    provider_check,
    model_check,
    key_check,
    config_check,
    trust_check,
]


def run_checks() -> list[Check]:
    found: list[Check] = []
    for check in CHECKS:
        result = check()
        found += result if isinstance(result, list) else [result]
    return found


def render(checks: list[Check]) -> str:
    return "\n".join(f"{'ok  ' if c.ok else 'warn'}  {c.name}: {terminal_safe(c.detail)}" for c in checks)
