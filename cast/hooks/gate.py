"""Hooks at the loop's seams (`agent.gate.CallGate`): before a tool call, after it, when a user
turn starts, and when the model would end its turn.

What exit 2 means at each event is one table, `EXIT_2`; exit 0 goes on and anything else is a
warning. A hook only ever takes away or adds words: a pre_tool_use hook can refuse a call, never let
one through that the mode, the checker or the approvals would stop (it runs before them and its
exit 0 only means "no objection"), so a hook can tighten plan mode and never loosen it. A stop
hook's objection goes back to the model once per task, so a hook that always objects cannot keep a
run going for ever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cast.agent.gate import CallGate
from cast.hooks.config import Hook
from cast.hooks.runner import HookRun, run
from cast.models.base import ToolUse
from cast.tools.base import Observation

APPENDED_CAP = 8 * 1024  # characters of hook output added to one observation

# What exit 2 does at each event.
EXIT_2 = {
    "pre_tool_use": "the call is refused; the hook's stderr is the observation",
    "post_tool_use": "the hook's stderr is added to the observation (the call already ran)",
    "user_prompt": "the prompt is not sent; the hook's stderr is the reason the turn stopped",
    "stop": "the hook's stderr goes back to the model as guidance, once per task",
}


class HookGate(CallGate):
    """The hooks of one run. `session`, `mode` and `cancel` are read at each call (a run's mode
    changes); `warn` hears each warning (a hook that failed, hung, or could not start)."""

    def __init__(
        self,
        hooks: list[Hook],
        root: Path,
        session: Callable[[], str],
        mode: Callable[[], str],
        warn: Callable[[str], None],
        cancel: threading.Event | None = None,
    ) -> None:
        self.hooks, self.root, self.session, self.mode, self.warn, self.cancel = hooks, root, session, mode, warn, cancel
        self._objected = False  # the stop hooks' one objection of this task is spent

    def before(self, call: ToolUse) -> str | None:
        for result in self._run("pre_tool_use", {"tool": call.name, "input": call.input}, call.name):
            if result.blocked:
                said = result.stderr.strip() or "no reason given"
                return f"[cast: a pre_tool_use hook ({result.hook.name}) refused this call]\n{said}"
        return None

    def after(self, call: ToolUse, observation: Observation) -> str:
        payload = {"tool": call.name, "input": call.input, "observation": observation.text, "ok": observation.ok}
        parts = []
        for result in self._run("post_tool_use", payload, call.name):
            said = result.stdout if result.ok else result.stderr if result.blocked else ""
            if said.strip():
                parts.append(f"[post_tool_use hook {result.hook.name}]\n{said.strip()}")
        text = "\n".join(parts)
        if len(text) > APPENDED_CAP:
            text = text[:APPENDED_CAP] + f"\n[truncated: showed {APPENDED_CAP} of {len(text)} chars of hook output]"
        return text

    def turn(self, text: str | None) -> str | None:
        """A task starts (the stop hooks may object once more); user_prompt hooks see its prompt."""
        self._objected = False
        if text is None:
            return None
        for result in self._run("user_prompt", {"prompt": text}):
            if result.blocked:
                return (
                    f"a user_prompt hook ({result.hook.name}) stopped this prompt: {result.stderr.strip() or 'no reason given'}"
                )
        return None

    def done(self, final: str) -> str | None:
        if self._objected:
            return None
        for result in self._run("stop", {"message": final}):
            if result.blocked:
                self._objected = True
                said = result.stderr.strip() or "no reason given"
                return f"[cast: a stop hook ({result.hook.name}) objected to ending here; it is asked once per task]\n{said}"
        return None

    def _run(self, event: str, fields: dict[str, Any], tool: str = "") -> list[HookRun]:
        """Each hook of `event` (that matches `tool`), in config order, up to the first that blocks."""
        results = []
        for hook in self.hooks:
            if hook.event != event or not hook.matches(tool):
                continue
            payload = {"event": event, "session": self.session(), "mode": self.mode(), "cwd": str(self.root), **fields}
            result = run(hook, payload, self.root, self.cancel)
            results.append(result)
            if not (result.ok or result.blocked):
                self.warn(result.problem())
            if result.blocked:
                break
        return results
