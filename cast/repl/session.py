"""What the REPL's jobs, approvals and slash commands get instead of the whole REPL.

`Repl` (app.py) wires prompt-toolkit, the screen and the worker thread together once and hands
this out: a `View` to talk to the user through, the session's `ReplState` to read and change the
run, the approver whose "always" the session remembers, the worker whose interrupt a job honours,
and the event renderer. Nothing here reaches the prompt, its keys or its layout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cast.repl.approvals import ReplApprover
    from cast.repl.ask import View
    from cast.repl.state import ReplState
    from cast.repl.worker import Worker
    from cast.ui.render import Renderer


@dataclass(frozen=True)
class Session:
    view: View
    state: ReplState
    approver: ReplApprover
    worker: Worker
    renderer: Callable[[], Renderer]  # loop events → scrollback and live area; made on first use
    run_in_terminal: Callable[[Callable[[], Any]], Any]  # the editor, with the terminal handed over
