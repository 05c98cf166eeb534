"""What the REPL's jobs, approvals and slash commands get instead of the whole REPL.

`Repl` (app.py) wires prompt-toolkit, the screen and the worker thread together once and hands
this out: a `View` to talk to the user through, the session's `ReplState` to read and change the
run, the approver whose "always" the session remembers, the worker whose interrupt a job honours,
the event renderer, and (for slash commands) the few `Controls` of the REPL itself. Nothing here
reaches the prompt, its keys or its layout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cast.repl.approvals import ReplApprover
    from cast.repl.ask import Asker, View
    from cast.repl.state import ReplState
    from cast.repl.worker import Worker
    from cast.ui.render import Renderer


class Controls(Protocol):
    """What a slash command may ask of the REPL itself: change the mode or the model, start a
    job, leave. `asker` says whether a question is waiting at the prompt."""

    asker: Asker

    def set_mode(self, mode: str) -> None: ...

    def set_model(self, spec: str) -> None: ...

    def start_task(self, text: str, *, new: bool = False) -> None: ...

    def start_execute(self, plan_ref: str | None) -> None: ...

    def resume(self, session_id: str | None) -> None: ...

    def request_exit(self) -> None: ...


@dataclass(frozen=True)
class Session:
    view: View
    state: ReplState
    approver: ReplApprover
    worker: Worker
    renderer: Callable[[], Renderer]  # loop events → scrollback and live area; made on first use
    run_in_terminal: Callable[[Callable[[], Any]], Any]  # the editor, with the terminal handed over
    controls: Controls  # for slash commands only
