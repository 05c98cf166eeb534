"""Which hooks a run may use: the user's own, and a project's only when trusted and approved.

A hook runs as the user, outside the model's sandbox, so a repository that ships one is shipping a
program to run on every tool call. Repositories have shipped hooks that ran on clone; here a
project's hook runs only in a workspace the user trusted (`cast trust`) and after the user approved
that very hook: the approval is a pin (cast/pins.py) on the digest of its event, matcher, command
and timeout, so a changed hook is asked about again. The question is a `HookRequest`, asked before
the run is built as the trust question is (on the terminal, or to a program with `--answers
stdin`), so the run's session records it and its answer. Without anyone to ask, an unapproved
hook is skipped with one line saying how to approve it (`cast hooks approve`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cast import pins
from cast.hooks.config import PROJECT, Hook, declared
from cast.text import terminal_safe
from cast.trust import is_trusted

KIND = "hook"


@dataclass(frozen=True)
class HookRequest:
    """May this project hook run as the user? A typed question like every other (`asked` on the
    stream, `hook` its kind), so a program can answer it and the session keeps what was approved."""

    root: str  # the workspace whose .cast/config.toml declares it
    name: str  # its file and place, as the pins and `cast hooks` call it: "project hooks[0]"
    event: str
    matcher: str
    command: str
    timeout: float
    label: str  # all of it in one line, as the question and `cast hooks approve` say it
    digest: str  # what a yes pins: asked again once its event, matcher, command or timeout changes

    @property
    def question(self) -> str:
        return question(self.label)


Ask = Callable[[HookRequest], bool | None]  # a yes/no question; None when the user left it


@dataclass
class Settled:
    """The hooks a run uses, and a line for each kind of hook it left out."""

    hooks: list[Hook] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def digest(hook: Hook) -> str:
    return pins.digest(hook.identity())


def is_approved(root: Path, hook: Hook) -> bool:
    return pins.approved(root, KIND, hook.name, digest(hook))


def approve(root: Path, hook: Hook) -> None:
    pins.approve(root, KIND, hook.name, digest(hook), label=hook.label())


def request(root: Path, hook: Hook) -> HookRequest:
    return HookRequest(str(root), hook.name, hook.event, hook.matcher, hook.command, hook.timeout, hook.label(), digest(hook))


def question(label: str) -> str:
    return (
        f"This workspace's .cast/config.toml declares a hook, a program cast would run as you, outside the sandbox:\n"
        f"  {terminal_safe(label)}\n"
        "Approve it (asked again if it changes; cast hooks revoke undoes it)? [y]es / [N]o: "
    )


def settle(root: Path, hooks: list[Hook], trusted: bool, ask: Ask | None) -> Settled:
    """The user's hooks as they are; each project hook if the workspace is trusted and the hook
    approved (asked now on a terminal: `ask`; None headless). A "no" or a question left skips the
    hook for this run and asks again next time; nothing of the repository's runs meanwhile."""
    settled = Settled()
    project = [hook for hook in hooks if hook.source == PROJECT]
    settled.hooks = [hook for hook in hooks if hook.source != PROJECT]
    if project and not trusted:
        settled.notices.append(
            f"ignored {len(project)} hook(s) from .cast/config.toml: a project's hooks run only in a workspace you trust (`cast trust`)"
        )
        return settled
    skipped = []
    for hook in project:
        if is_approved(root, hook):
            settled.hooks.append(hook)
            continue
        answer = ask(request(root, hook)) if ask is not None else None
        if answer:
            approve(root, hook)
            settled.hooks.append(hook)
        else:
            skipped.append(hook)
    if skipped:
        names = ", ".join(hook.name.removeprefix("project ") for hook in skipped)
        # neutral on why: a run settles after the question (ask_pending) was answered no, or asked of nobody
        settled.notices.append(
            f"skipped .cast/config.toml's {names}: not approved in this workspace (`cast hooks approve` to approve)"
        )
    return settled


def status(root: Path, hook: Hook, trusted: bool) -> str:
    """`cast hooks`' word for whether `hook` runs here, and why not."""
    if hook.source != PROJECT:
        return "runs (yours)"
    if not trusted:
        return "never runs: workspace not trusted (cast trust)"
    if is_approved(root, hook):
        return "runs (approved)"
    earlier = [pin for pin in pins.listing(root, KIND) if pin.name == hook.name]
    return "changed since you approved it: cast hooks approve" if earlier else "not approved: cast hooks approve"


def ask_pending(root: Path, ask: Ask) -> None:
    """Before a run (on a terminal, or to a program answering on stdin): ask about each of a
    trusted workspace's hooks not approved as it is now; the run then uses those approved
    (`settle` without a question). A yes pins the hook; a no or a question left asks again next time."""

    if not is_trusted(root):
        return
    for hook in declared(root):
        if hook.source == PROJECT and not is_approved(root, hook):
            if ask(request(root, hook)):
                approve(root, hook)
