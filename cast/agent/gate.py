"""The loop's seam for hooks: what may look at (and answer) a tool call before and after it runs,
a user turn as it starts (and stop it), and a turn about to end.

It is apart from `Hooks` (the run's own parts: aging, the self-check, observers) because what sits
here is the user's programs, which may refuse a call or talk back to the model; the loop keeps the
guards and the transcript, a gate only returns text. `CallGate` does nothing, so a run without hooks
pays nothing, and `Gates` puts several behind one. `Halt` is the one answer a part of the run
itself may give between batches of calls (`Hooks.halt`: stop the turn now), kept here with the
other answers the loop takes from outside.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cast.models.base import ToolUse
from cast.tools.base import CallSeam, Observation


@dataclass(frozen=True)
class Halt:
    """Why nothing more may run in this turn, from a part of the run the loop does not know (the
    task board: a changed plan the user did not approve; `Hooks.halt` asks after each batch): the
    turn's stop reason, and what the calls the model asked for and that never ran are told."""

    reason: str
    unrun: str


class CallGate:
    """The default: every call runs, nothing is added, nothing is sent back."""

    def before(self, call: ToolUse) -> str | None:
        """A reason to refuse `call` (it becomes the call's observation, and the call never runs),
        or None to let it run. Called on the thread the call runs on."""
        return None

    def after(self, call: ToolUse, observation: Observation) -> str:
        """Text to append to the call's observation ("" for none)."""
        return ""

    def turn(self, text: str | None) -> str | None:
        """A user turn starts with `text` (None: a turn with no message of its own, say an execute
        run going on): a reason to stop it before anything is sent (the user's message is not
        added; the reason is the stop's), or None to go on."""
        return None

    def done(self, final: str) -> str | None:
        """Said when the model ends its turn with `final`: guidance to go on with (the turn
        continues), or None to let it end. Saying it once per task is the gate's own business."""
        return None


class CallsOnly(CallGate):
    """A run's gate for the calls of a child it runs (explore): the child's tool calls are the
    run's too, so the user's hooks see and may refuse them; its turns are not the user's tasks."""

    def __init__(self, gate: CallSeam) -> None:
        self.gate = gate

    def before(self, call: ToolUse) -> str | None:
        return self.gate.before(call)

    def after(self, call: ToolUse, observation: Observation) -> str:
        return self.gate.after(call, observation)


class Gates(CallGate):
    """Several gates as one, in order: the first refusal or guidance wins, additions are joined."""

    def __init__(self, gates: Sequence[CallGate]) -> None:
        self.gates = list(gates)

    def before(self, call: ToolUse) -> str | None:
        return next((reason for gate in self.gates if (reason := gate.before(call)) is not None), None)

    def after(self, call: ToolUse, observation: Observation) -> str:
        return "\n".join(text for gate in self.gates if (text := gate.after(call, observation)))

    def turn(self, text: str | None) -> str | None:
        return next((reason for gate in self.gates if (reason := gate.turn(text)) is not None), None)

    def done(self, final: str) -> str | None:
        return next((said for gate in self.gates if (said := gate.done(final))), None)
