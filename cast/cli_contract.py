"""The plan-as-contract commands: `cast verify`, the revision history and revision diffs.

Registered on cli.py's app; thin like the rest of the CLI: parse, resolve the plan, hand the work to
cast.verify / cast.plans.revisions, print, exit with their code.
"""

from __future__ import annotations

import json as json_lib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cast.exits import EXIT_FAILED, EXIT_USAGE
from cast.state import StateError
from cast.text import echo, plural, terminal_safe

if TYPE_CHECKING:
    from cast.plans.revisions import Revisions


def register(app: typer.Typer) -> None:
    app.command(short_help="Re-check every ticked item of a plan in today's tree.")(verify)


def verify(
    cli: typer.Context,
    plan: Annotated[
        str | None,
        typer.Argument(metavar="PLAN", help="Plan file path or session id. Omitted: the newest plan with a ticked item."),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Run every verification command except the catastrophic deny list.")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="One JSON object per item, then a result object.")] = False,
) -> None:
    """Re-check every ticked item in today's tree: re-run the verification the plan names and check
    the item's recorded change still holds. PASS/FAIL per item; exit 0 all pass, 1 any fails, 2 usage error."""
    from cast import verify as verifying  # deferred: keeps cast.verify (43 modules) off cast plan --help
    from cast.config import ConfigError  # deferred: keeps cast.config (11 modules) off cast plan --help
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help
    from cast.plans.revisions import revision_id  # deferred: keeps cast.plans.revisions (6 modules) off cast plan --help
    from cast.runs import Options, approval_for, setup  # deferred: keeps cast.runs (103 modules) off cast plan --help
    from cast.tools.base import Sandbox, ToolContext  # deferred: keeps cast.tools.base off cast plan --help
    from cast.ui.oneshot import terminal_approver  # deferred: keeps cast.ui.oneshot (13 modules) off cast plan --help
    from cast.ui.trusting import ask_here as ask_trust  # deferred: keeps cast.ui.trusting (20 modules) off cast plan --help

    json = json or bool((cli.obj or {}).get("json"))  # `cast --json verify`, as `cast --json plans`
    approver = terminal_approver() if sys.stdin.isatty() and not json else None
    options = Options(json=json, yes=yes, approver=approver)
    try:
        ask_trust(json)  # its verifications run under the allow rules: may this workspace's config loosen them?
        workspace, config = setup(options)
        path = verifying.plan_with_ticks(workspace.root, plan)
        data = Path(path).read_bytes()
    except (ConfigError, PlanError, StateError, OSError) as exc:
        sys.stderr.write(f"cast: {terminal_safe(str(exc))}\n")
        raise typer.Exit(getattr(exc, "exit_code", EXIT_USAGE)) from None
    ctx = ToolContext(workspace=workspace, sandbox=Sandbox(approval=approval_for(options, config, workspace)))
    results = verifying.verify(path, ctx)
    left = verifying.not_rechecked(path, results) if ctx.cancel.is_set() else None
    code = EXIT_FAILED if left is not None else verifying.exit_code(results)  # not all re-checked: never a pass
    undid = verifying.undone(workspace.root, path) if not results else []
    if json:
        for result in results:
            print(json_lib.dumps(result.to_dict()))
        status = "interrupted" if left is not None else "failed" if code else "passed"
        row = {"type": "result", "status": status, "exit_code": code, "plan_path": str(path), "plan_revision": revision_id(data)}
        row |= {"not_rechecked": left} if left is not None else {}
        print(json_lib.dumps(row | ({"undone": undid} if undid else {})))
    else:
        print(terminal_safe(verifying.render(Path(os.path.relpath(path)), results, left, undid)))
    raise typer.Exit(code)


def history(plan_ref: str, json: bool) -> int:
    """`cast plans --history ID`: every revision of a plan, oldest first, with who wrote it and
    what it changed; the plan as it is now is recorded first if cast had not seen it yet."""
    from cast.plans.revisions import item_diff  # deferred: keeps cast.plans.revisions (6 modules) off cast plan --help

    found = _revisions(plan_ref)
    if found is None:
        return EXIT_USAGE
    store, _ = found
    store.record("user")  # a hand edit not yet noticed is a revision too
    revisions, previous = store.history(), None
    for rev in revisions:
        changes = item_diff(store.text(previous.id), store.text(rev.id)) if previous else ["first revision"]
        row = {"revision": rev.id, "time": rev.time, "author": rev.author, "items": rev.items, "changes": changes}
        if json:
            print(json_lib.dumps(row))
        else:
            _echo(f"{rev.id}  {rev.time}  {rev.author:<5}  {plural(rev.items, 'item')}  " + "; ".join(changes))
        previous = rev
    return 0


def revision_diff(plan_ref: str, old: str | None, new: str | None, as_json: bool = False) -> int:
    """`cast diff --plan ID [REV [REV]]`: the item-level diff, then the text diff. Defaults: the
    revision before the newest, and the plan file as it is now. `as_json`: one object, the same
    two parts (a plan of one revision compares it with itself)."""
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help

    # deferred: keeps cast.plans.revisions (6 modules) off cast plan --help
    from cast.plans.revisions import item_diff, revision_id, text_diff

    found = _revisions(plan_ref)
    if found is None:
        return EXIT_USAGE
    store, path = found
    store.record("user")
    try:
        history = store.history()
        if old is None and len(history) < 2:
            if as_json:
                only = history[-1].id
                print(
                    json_lib.dumps(
                        {"type": "revision_diff", "plan": str(path), "from": only, "to": only, "items": [], "patch": ""}
                    )
                )
            else:
                _echo(f"{path} has one revision ({history[-1].id}): nothing to compare")
            return 0
        before_id = store.resolve(old) if old else history[-2].id
        before = store.text(before_id)
        after = store.text(new) if new else path.read_bytes()
    except PlanError as exc:
        sys.stderr.write(f"cast: {exc}\n")
        return EXIT_USAGE
    after_id = store.resolve(new) if new else revision_id(after)
    patch = text_diff(before, after, f"{before_id}", f"{after_id}")
    if as_json:
        row = {"type": "revision_diff", "plan": str(path), "from": before_id, "to": after_id}
        print(json_lib.dumps(row | {"items": item_diff(before, after), "patch": patch}))
        return 0
    notes = item_diff(before, after) or ["no item changed"]
    _echo("\n".join([f"plan {os.path.relpath(path)}: revision {before_id} → {after_id}", *(f"  {n}" for n in notes), ""]))
    _echo(patch)
    return 0


def _revisions(plan_ref: str) -> tuple[Revisions, Path] | None:
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist (5 modules) off cast plan --help
    from cast.plans.revisions import Revisions  # deferred: keeps cast.plans.revisions (6 modules) off cast plan --help
    from cast.plans.store import find_plan  # deferred: keeps cast.plans.store (7 modules) off cast plan --help
    from cast.workspace import Workspace  # deferred: keeps cast.workspace (13 modules) off cast plan --help

    root = Workspace.discover().root
    try:
        path = find_plan(root, plan_ref)
    except PlanError as exc:
        sys.stderr.write(f"cast: {exc}\n")
        return None
    return Revisions(root, path), path


def _echo(text: str) -> None:
    echo(text)
