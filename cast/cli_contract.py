"""The plan-as-contract commands: `cast verify`, the revision history and revision diffs.

Registered on cli.py's app; thin like the rest of the CLI: parse, resolve the plan, hand the work to
cast.verify / cast.plans.revisions, print, exit with their code.
"""

from __future__ import annotations

import json as json_lib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from cast.exits import EXIT_USAGE
from cast.text import terminal_safe


def register(app: typer.Typer) -> None:
    app.command()(verify)


def verify(
    plan: Annotated[
        str | None, typer.Argument(help="Plan file path or session id. Omitted: the newest plan with a ticked item.")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Run every verification command except the catastrophic deny list.")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="One JSON object per item, then a result object.")] = False,
) -> None:
    """Re-check every ticked item in today's tree: re-run the verification the plan names and check
    the item's recorded change still holds. PASS/FAIL per item; exit 0 all pass, 1 any fails, 2 usage error."""
    from cast import verify as verifying
    from cast.config import ConfigError
    from cast.plans.checklist import PlanError
    from cast.plans.revisions import revision_id
    from cast.runs import Options, approval_for, setup
    from cast.state import StateError
    from cast.tools.base import ToolContext
    from cast.ui.oneshot import terminal_approver

    approver = terminal_approver() if sys.stdin.isatty() and not json else None
    options = Options(json=json, yes=yes, approver=approver)
    try:
        workspace, config = setup(options)
        path = verifying.plan_with_ticks(workspace.root, plan)
        data = Path(path).read_bytes()
    except (ConfigError, PlanError, StateError, OSError) as exc:
        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        raise typer.Exit(getattr(exc, "exit_code", EXIT_USAGE)) from None
    ctx = ToolContext(workspace=workspace, plan_path=path, approval=approval_for(options, config, workspace))
    results = verifying.verify(path, ctx)
    code = verifying.exit_code(results)
    if json:
        for result in results:
            print(json_lib.dumps(result.to_dict()))
        status = "failed" if code else "passed"
        print(
            json_lib.dumps(
                {
                    "type": "result",
                    "status": status,
                    "exit_code": code,
                    "plan_path": str(path),
                    "plan_revision": revision_id(data),
                }
            )
        )
    else:
        print(terminal_safe(verifying.render(Path(os.path.relpath(path)), results)))
    raise typer.Exit(code)
