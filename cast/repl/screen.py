"""The REPL's terminal: finished output goes into the scrollback above the prompt, in order, from
any thread; the prompt (and the live area drawn as part of it) is redrawn below.

Writes are batched on the event loop: a burst of committed blocks costs one erase-and-redraw of
the prompt, not one per block.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from cast.ui.console import render_text, width_of

if TYPE_CHECKING:
    from rich.console import RenderableType


class Screen:
    def __init__(self, out: TextIO | None = None, color: bool = True, width: Callable[[], int] | None = None):
        self.out = out or sys.stdout
        self.color = color
        self._width = width or (lambda: width_of(self.out))
        self.app: Any = None  # the prompt-toolkit Application, once there is one
        self.loop: asyncio.AbstractEventLoop | None = None
        self._pending: list[str] = []
        self._lock = threading.Lock()
        self._scheduled = False
        self._committed = self._written = 0  # blocks handed to write(), blocks on the terminal

    @property
    def width(self) -> int:
        return max(20, self._width() - 1)  # one spare column: no surprise wraps at the edge

    def render(self, renderable: RenderableType, width: int | None = None) -> str:
        return render_text(renderable, width or self.width, self.color)

    # -- committed output -----------------------------------------------------------------
    def commit(self, renderable: RenderableType) -> None:
        self.write(self.render(renderable))

    def write(self, text: str) -> None:
        """Put text into the scrollback. Thread-safe; order is kept."""
        with self._lock:
            self._pending.append(text)
            self._committed += 1
            if self._scheduled:
                return
            self._scheduled = True
        loop = self.loop
        if loop is None or loop.is_closed():
            self._flush()
            return
        try:
            if _on_loop(loop):
                loop.call_soon(self._flush)
            else:
                loop.call_soon_threadsafe(self._flush)
        except RuntimeError:  # the loop closed meanwhile
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            blocks, self._pending, self._scheduled = self._pending, [], False
        if not blocks:
            return
        text = "".join(blocks)
        app = self.app
        if app is None or not app.is_running or self.loop is None or self.loop.is_closed():
            self._raw(text, len(blocks))
        elif (
            getattr(app, "_running_in_terminal", False)
            or getattr(app, "_running_in_terminal_f", None) is not None
            and not app._running_in_terminal_f.done()
        ):
            from prompt_toolkit.application import run_in_terminal  # after the editor, in order

            run_in_terminal(lambda: self._raw(text, len(blocks)), in_executor=False)
        else:
            self._above_prompt(app, text, len(blocks))

    def _above_prompt(self, app: Any, text: str, blocks: int) -> None:
        """Erase the prompt, write, draw it again — on the loop, in one go, and without the
        cooked terminal mode `run_in_terminal` switches to: in cooked mode the terminal turns an
        Enter typed at that instant into a newline (Ctrl+J), and the line would not be sent."""
        try:
            app.renderer.erase()
        except Exception:
            pass
        self._raw(text, blocks)
        try:
            app.renderer.reset()
            app._request_absolute_cursor_position()
            app._redraw()
        except Exception:  # the prompt is ending: the next one draws itself
            pass

    def _raw(self, text: str, blocks: int = 0) -> None:
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self._written += blocks

    @property
    def settled(self) -> bool:
        """True when everything committed so far is on the terminal (writes are asynchronous)."""
        with self._lock:
            return self._written >= self._committed

    def drain(self) -> None:
        """Write whatever is queued now (at exit, or when the loop is gone)."""
        self._flush()

    # -- the prompt -----------------------------------------------------------------------
    def invalidate(self) -> None:
        app = self.app
        if app is not None:
            app.invalidate()

    def run_in_terminal(self, func: Callable[[], Any]) -> Any:
        """Run `func` with the terminal to itself (an editor), from a thread other than the loop's."""
        loop = self.loop
        if loop is None or self.app is None or not self.app.is_running:
            return func()
        from prompt_toolkit.application import run_in_terminal

        async def go() -> Any:
            return await run_in_terminal(func, in_executor=True)

        return asyncio.run_coroutine_threadsafe(go(), loop).result()


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
