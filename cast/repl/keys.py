"""Key bindings. Each key asks the REPL to do one thing; the REPL decides what that means now
(idle, working, or a question waiting)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from cast.repl.ask import Asker
    from cast.ui.render import Renderer

ESC_TIMEOUT = 0.4  # how long Esc waits for a following key (Esc Enter) before it interrupts


class Repl(Protocol):
    """What the keys ask of the REPL (app.py's Repl): a key names an action, the REPL decides."""

    asker: Asker

    @property
    def renderer(self) -> Renderer: ...

    def buffer_text(self) -> str: ...

    def toggle_mode(self) -> None: ...

    def accept(self, buffer: Any) -> None: ...

    def on_ctrl_c(self) -> None: ...

    def on_escape(self) -> None: ...

    def request_exit(self) -> None: ...

    def say(self, text: str, style: str = "") -> None: ...

    def show(self, renderable: Any) -> None: ...


def key_bindings(repl: Repl) -> KeyBindings:
    kb = KeyBindings()
    empty = Condition(lambda: not repl.buffer_text())

    @kb.add("s-tab")
    def _(event: KeyPressEvent) -> None:
        repl.toggle_mode()

    @kb.add("enter")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
            return
        if state is not None and state.completions and buffer.text.startswith("/") and " " not in buffer.text:
            buffer.apply_completion(state.completions[0])  # `/he` Enter runs /help
        repl.accept(buffer)

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-c")
    @kb.add(Keys.SIGINT)
    def _(event: KeyPressEvent) -> None:
        repl.on_ctrl_c()

    @kb.add("escape")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state is not None:
            buffer.cancel_completion()
            return
        repl.on_escape()

    asking_on_empty_line = Condition(lambda: repl.asker.current is not None and not repl.buffer_text())
    for digit in "123456789":

        @kb.add(digit, filter=asking_on_empty_line)
        def _(event: KeyPressEvent) -> None:
            if not repl.asker.answer_key(event.data):  # too soon after the question appeared: it is text
                event.current_buffer.insert_text(event.data)

    @kb.add("c-o")
    def _(event: KeyPressEvent) -> None:
        show_last_output(repl)

    @kb.add("c-d", filter=empty)
    def _(event: KeyPressEvent) -> None:
        repl.request_exit()

    return kb


def show_last_output(repl: Repl) -> None:
    """Ctrl+O: the running command's output so far, else the last command's output, whole (as
    the agent saw it), into the scrollback."""
    from rich.text import Text

    running = repl.renderer.running_output()
    if running is not None:
        label, text = running
        repl.show(Text(f"── output so far of {label}\n", style="dim") + Text(text or "(no output yet)"))
        return
    last = repl.renderer.last_output
    if last is None:
        repl.say("No command has run yet; Ctrl+O shows the last command's full output.", "dim")
        return
    label, text = last
    repl.show(Text(f"── output of {label}\n", style="dim") + Text(text.rstrip("\n") or "(no output)"))
