"""A run's questions and execute mode's approval policy over them: the front-end's approver, its
questions put on the run's event stream (`agent.asking`), and the policy (allow rules, --yes, the
sandbox) that decides what it is asked. Built by runs.py for a new run and by run.py when a run
switches to execute mode."""

from __future__ import annotations

from cast.agent.asking import Announced
from cast.config import Config
from cast.options import Options
from cast.safety.approval import ApprovalPolicy
from cast.workspace import Workspace


def questions(options: Options) -> Announced | None:
    """The front-end's approver, its questions put on the run's event stream (`agent.asking`)."""
    approver = options.approver
    return approver if approver is None or isinstance(approver, Announced) else Announced(approver)


def approval_for(options: Options, config: Config, workspace: Workspace) -> ApprovalPolicy:
    return ApprovalPolicy(
        allow=config.allow,
        yes=options.yes,
        approver=questions(options),
        workspace_root=str(workspace.root),
        sandbox=config.sandbox,
        sandbox_network=config.sandbox_network,
    )
