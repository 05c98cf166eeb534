"""`/permissions`: what runs without asking in this REPL session (the "always" answers the
approver remembers, the config's allow rules, whether edits are asked) and taking an "always" back."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.repl.session import Session
    from cast.repl.state import ReplState
    from cast.safety.approval_scope import Scope


# What an "always" remembers, as cast.safety.approval_scope computes it (README says the same).
ALWAYS_COVERS = (
    "It covers the command's program with its subcommand, module or script and any arguments "
    "(git commit …, python3 -m pytest …) where that is safe, else that exact command line and nothing else "
    "(pipes and loops of literal words included); a line bash computes ($x, $(…), globs, ~) is never remembered."
)


def reach(scope: Scope) -> str:
    """A remembered scope as /permissions lists it: with any arguments, or one exact line."""
    return f"{scope.label()} (exactly this command)" if scope.exact else f"{scope.label()} (any arguments)"


def permissions(session: Session, arg: str) -> None:
    """`/permissions` lists what runs without asking; `/permissions revoke N|all` takes back
    an "always"."""
    approver, view = session.approver, session.view
    remembered = approver.remembered
    words = arg.split()
    scopes = remembered.scopes()
    if words and words[0] in ("revoke", "forget", "rm"):
        if not scopes:
            view.say('Nothing to revoke: no command was approved with "always" in this session.', "dim")
            return
        target = words[1] if len(words) > 1 else ""
        if target == "all":
            for scope in scopes:
                remembered.revoke(scope)
            view.say(f"Revoked all {len(scopes)} session approvals; those commands will be asked again.", "yellow")
            return
        if not target.isdigit() or not 1 <= int(target) <= len(scopes):
            view.say(f"/permissions revoke N: N is a number from the list (1-{len(scopes)}), or all", "red")
            return
        scope = scopes[int(target) - 1]
        remembered.revoke(scope)
        view.say(f"Revoked: {scope.label()} will be asked again.", "yellow")
        return
    if words and words[0] == "edits" and len(words) == 2 and words[1] in ("ask", "auto"):
        approver.edits_auto = words[1] == "auto"
        view.say(
            "File edits are " + ("auto-approved from now on." if approver.edits_auto else "asked before each change from now on.")
        )
        return
    if words:
        view.say(
            "/permissions lists session approvals; /permissions revoke N (or all) takes one back; /permissions edits ask|auto",
            "red",
        )
        return
    lines = []
    if scopes:
        lines.append('Approved for this session ("always"):')
        lines += [f"  {n}. {reach(scope)}" for n, scope in enumerate(scopes, 1)]
        lines.append("/permissions revoke N takes one back; all revokes every one.")
    else:
        lines.append(f'No session approvals yet: "always" at a command approval adds one. {ALWAYS_COVERS}')
    rules = _allow_rules(session.state)
    if rules:
        lines.append("Allowed by config (allow rules in .cast/config.toml):")
        lines += [f"  {rule}" for rule in rules]
    lines.append(
        "File edits: "
        + (
            "auto-approved in this session (/permissions edits ask changes that)"
            if approver.edits_auto
            else "asked before each change (/permissions edits auto stops that)"
        )
    )
    if session.state.options.yes:
        lines.append("--yes: every command except the deny list runs without asking.")
    view.say("\n".join(lines))


def _allow_rules(state: ReplState) -> tuple[str, ...]:
    try:
        return tuple(state.config().allow)
    except Exception:  # a broken config is reported when a run is built
        return ()
