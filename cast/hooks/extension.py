"""Hooks join a run: the hooks the config declares, a project's only if trusted and approved
(cast/hooks/project.py), as the run's gate. Nothing is asked here: the questions came before the
run (`ui.trusting.ask_here`: on a terminal, or to a program with `--answers stdin`), so an
unapproved hook is skipped with one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cast.agent import events as ev
from cast.extensions import BaseExtension
from cast.hooks import project
from cast.hooks.config import declared
from cast.trust import is_trusted

if TYPE_CHECKING:
    from cast.agent.gate import CallGate
    from cast.extensions import Setup
    from cast.hooks.gate import HookGate
    from cast.modes import Mode


class HooksExtension(BaseExtension):
    name = "hooks"

    def __init__(self, gate: HookGate, mode: str) -> None:
        self._gate, self.mode = gate, mode

    def gate(self) -> CallGate | None:
        return self._gate

    def switched(self, mode: Mode) -> None:
        self.mode = mode.name  # what the next hook's payload says


def make(setup: Setup) -> HooksExtension | None:
    root = setup.workspace.root
    hooks = declared(root)
    if not hooks:
        return None
    settled = project.settle(root, hooks, is_trusted(root), ask=None)
    for notice in settled.notices:
        setup.notice(notice)
    if not settled.hooks:
        return None
    from cast.hooks.gate import HookGate  # deferred: keeps the hook runner off a run without hooks' first request

    ctx = setup.ctx

    def warn(text: str) -> None:
        if ctx is not None:
            ctx.emit(ev.Notice(text, "warning"))

    extension: HooksExtension
    gate = HookGate(
        settled.hooks,
        root,
        session=lambda: ctx.session_id if ctx is not None else "",
        mode=lambda: extension.mode,
        warn=warn,
        cancel=ctx.cancel if ctx is not None else None,
    )
    extension = HooksExtension(gate, setup.mode)
    return extension
