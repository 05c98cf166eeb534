"""Hooks at the loop's seams: before a tool call, after it, when a user turn starts, and at the end.

The rules (exit 0 goes on, exit 2 blocks, anything else is a warning) are one table, `EXIT_2`, of
what blocking means at each event. A hook only ever takes away or adds words: a pre_tool_use hook
can refuse a call, never let one through that the mode, the checker or the approvals would stop
(it runs before them and its exit 0 only means "no objection"), so a hook can tighten plan mode and
never loosen it. A stop hook's objection goes back to the model once per task, so a hook that always
objects cannot keep a run going for ever.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cast.hooks.config import Hook
from cast.hooks.runner import HookRun, run

APPENDED_CAP = 8 * 1024  # characters of a post_tool_use hook's output added to one observation

# What exit 2 does at each event.
EXIT_2 = {
    "pre_tool_use": "the call is refused; the hook's stderr is the observation",
    "post_tool_use": "the hook's stderr is added to the observation (the call already ran)",
    "user_prompt": "the prompt is not sent; the hook's stderr is shown to the user",
    "stop": "the hook's stderr goes back to the model as guidance, once per task",
}


class HookGate:
    """The hooks of one run, called by the loop at its seams. `warn` hears each warning (a
    hook that failed, hung, or could not start) for the front-end; `mode` says the current mode."""

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
        self._stopped_once = False

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def before(self, tool: str, arguments: Any) -> str | None:
        """The refusal (the observation the model gets) if a pre_tool_use hook blocks the call."""
        for result in self._run("pre_tool_use", {"tool": tool, "input": arguments}, tool):
            if result.blocked:
                said = result.stderr.strip() or "no reason given"
                return f"[cast: a pre_tool_use hook ({result.hook.name}) refused this call]\n{said}"
        return None

    def after(self, tool: str, arguments: Any, observation: str, ok: bool) -> str:
        """Text to append to the call's observation ("" for none)."""
        payload = {"tool": tool, "input": arguments, "observation": observation, "ok": ok}
        parts = []
        for result in self._run("post_tool_use", payload, tool):
            said = result.stdout if result.ok else result.stderr if result.blocked else ""
            if said.strip():
                parts.append(f"[post_tool_use hook {result.hook.name}]\n{said.strip()}")
        text = "\n".join(parts)
        if len(text) > APPENDED_CAP:
            text = text[:APPENDED_CAP] + f"\n[truncated: showed {APPENDED_CAP} of {len(text)} chars of hook output]"
        return text

    def user_prompt(self, prompt: str) -> tuple[str, str | None]:
        """A new task starts: context for the model from user_prompt hooks' stdout, and the reason
        to show the user if one blocks the prompt (None: it is sent)."""
        self._stopped_once = False
        context = []
        for result in self._run("user_prompt", {"prompt": prompt}):
            if result.blocked:
                return (
                    "",
                    f"a user_prompt hook ({result.hook.name}) stopped this prompt: {result.stderr.strip() or 'no reason given'}",
                )
            if result.ok and result.stdout.strip():
                context.append(f"[user_prompt hook {result.hook.name}]\n{result.stdout.strip()}")
        return "\n".join(context)[:APPENDED_CAP], None

    def task_started(self) -> None:
        """An execute run or a turn started without a prompt of its own: the stop hook's one retry is new."""
        self._stopped_once = False

    def stop(self, final: str) -> str | None:
        """Guidance for the model if a stop hook objects to the end, once per task."""
        if self._stopped_once or not any(hook.event == "stop" for hook in self.hooks):
            return None
        for result in self._run("stop", {"message": final}):
            if result.blocked:
                self._stopped_once = True
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
