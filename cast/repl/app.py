"""The interactive session: a prompt that stays usable while the agent works in a worker thread.

Main thread: the prompt-toolkit prompt, in one asyncio loop for the whole session. Worker thread:
one job at a time (a task, a plan execution) consuming `Agent.run` events and rendering them.
Between them: the Screen (output above the prompt), the Asker (questions answered at the prompt),
and `Agent.guide` / `Agent.cancel`.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.history import InMemoryHistory

from cast.repl import commands, jobs
from cast.repl.approvals import ReplApprover
from cast.repl.ask import Asker, Question, Reply
from cast.repl.complete import FileIndex, ReplCompleter
from cast.repl.keys import ESC_TIMEOUT, key_bindings
from cast.repl.screen import Screen
from cast.repl.session import Session
from cast.repl.startup import banner, file_history, warm_up
from cast.repl.state import MODES, ReplState
from cast.repl.toolbar import STYLE
from cast.repl.view import TICK_SECONDS, PromptView
from cast.repl.worker import Worker
from cast.state import set_announcer
from cast.ui.console import no_color

if TYPE_CHECKING:
    from cast.options import Options
    from cast.ui.render import Renderer

EXIT_CONFIRM_SECONDS = 2.0
EXIT_WAIT_SECONDS = 5.0


class Repl:
    def __init__(
        self,
        options: Options,
        mode: str = "plan",
        *,
        input: Any = None,
        output: Any = None,
        out: Any = None,
        color: bool | None = None,
        history: bool = True,
    ):
        self.state = ReplState(options, mode)
        self.approver = ReplApprover(self, self.state)
        if options.approver is None and not options.yes:
            options.approver = self.approver  # commands that need approval are asked here
        out = out or sys.stdout
        terminal = bool(getattr(out, "isatty", lambda: False)())
        self.screen = Screen(out, color=(terminal and not no_color()) if color is None else color)
        self._plain = not terminal and color is None
        set_announcer(lambda message: self.say(f"cast: {message}", "yellow"))  # above the prompt, not under it
        self._renderer: Renderer | None = None  # built on first use: rich loads after the first prompt
        self._renderer_lock = threading.Lock()
        self.asker = Asker(self.screen.invalidate, lambda: self._clocks(held=False), lambda: self._clocks(held=True))
        self.worker = Worker(on_error=lambda text: self.say(text, "red"), on_change=self.screen.invalidate, on_idle=self._idle)
        self.ctx = Session(self, self.state, self.approver, self.worker, lambda: self.renderer, self.screen.run_in_terminal, self)
        self._deferred: list[str] = []  # slash commands that wait for the job to end
        self.files = FileIndex(self.state.root)
        self.exiting, self.left_mid_run, self._last_ctrl_c = False, False, 0.0  # left_mid_run: busy when asked to leave
        self.view = PromptView(self)
        self.session: PromptSession[str] = PromptSession(
            message=self.view.message,
            bottom_toolbar=self.view.toolbar,
            style=STYLE,
            completer=ReplCompleter(commands.names, self.files, commands.argument_values(self.state)),
            complete_while_typing=True,
            history=file_history(self.state.root) if history else InMemoryHistory(),
            key_bindings=key_bindings(self),
            multiline=True,
            prompt_continuation=self.view.continuation,
            placeholder=self.view.placeholder,
            erase_when_done=True,
            input=input,
            output=output,
            enable_history_search=False,
            reserve_space_for_menu=6,
        )
        app = self.session.app
        app.timeoutlen, app.ttimeoutlen = ESC_TIMEOUT, 0.05
        self.screen.app = app

    @property
    def renderer(self) -> Renderer:
        """How loop events become scrollback and the live area (rich), made when first needed."""
        with self._renderer_lock:
            if self._renderer is None:
                from cast.ui.render import Renderer  # deferred: keeps rich off the REPL's first prompt

                self._renderer = Renderer(self.screen.commit, plain=self._plain, on_change=self.screen.invalidate)
            return self._renderer

    def _clocks(self, held: bool) -> None:
        if self._renderer is not None:  # a question waits: the command has not started; answered, it starts now
            self._renderer.hold_clocks() if held else self._renderer.restart_clocks()

    def live(self) -> Any:
        """The live area's renderable (running calls, streaming text), or None: nothing is live
        before anything was rendered."""
        return self._renderer.live() if self._renderer is not None else None

    # -- session ------------------------------------------------------------------------------
    def run(self, task: str | None = None, resume: str | None = None) -> int:
        return asyncio.run(self.main(task, resume))

    async def main(self, task: str | None = None, resume: str | None = None) -> int:
        self.screen.loop = asyncio.get_running_loop()
        self.screen.loop.call_later(0.2, warm_up, self.state, self.files)  # after the first prompt is drawn
        self.screen.loop.call_soon(lambda: self.show(banner(self.state, resuming=bool(resume))))  # rich: after the prompt
        if resume:
            self.resume(resume)
        elif self.state.mode == "execute":
            self.start_execute(task)
        elif task:
            self.start_task(task)
        ticker = asyncio.ensure_future(self._tick())
        try:
            while not self.exiting:
                try:
                    text = await self.session.prompt_async()
                except (EOFError, KeyboardInterrupt):
                    break
                if self.exiting:
                    break
                self.submit(text)
        finally:
            ticker.cancel()
            await asyncio.get_running_loop().run_in_executor(None, self._shutdown)
            self.screen.loop = None
            self.screen.drain()
            set_announcer(None)  # no prompt any more: notes go to stderr again
        return 0

    def _shutdown(self) -> None:
        mid_run = self.left_mid_run or self.worker.busy  # the EOF path asks here, before leaving a question
        self.asker.leave()
        if self.worker.busy:
            self.cancel()
            self.worker.join(EXIT_WAIT_SECONDS)
        if mid_run and self.state.run is not None:  # say how to go on
            self.say(f"Left mid-run: `cast resume {self.state.run.session_id}` goes on from here.", "dim")
        if not self.worker.busy:
            self.state.close()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            if self.worker.busy:
                self.screen.invalidate()

    # -- what the REPL is asked to do ------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.worker.busy

    def accept(self, buffer: Any) -> None:
        """Enter: the line is handled without leaving the prompt, so the terminal stays in raw
        mode and keys typed meanwhile (a slow slash command) stay keys: Enter is never read as
        a newline by a terminal left in cooked mode."""
        text = buffer.text
        if text.strip():
            buffer.append_to_history()
        buffer.reset()
        self.submit(text)

    def submit(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        self.state.hint = ""
        if text.startswith("/") and not text.startswith("//"):
            self.echo(text)
            self.command(text)
            return
        if self.asker.current is not None and self.asker.answer_text(text):
            return
        if self.busy:
            run = self.state.run
            if run is None:
                self.say("the agent is starting; send that again in a moment", "yellow")
                return
            run.guide(text)
            self.say(f"↳ queued for the agent's next step: {text}", "magenta")
            return
        self.echo(text)
        self.start_task(text)

    def command(self, line: str) -> None:
        """Run a slash command now, or — at a question that a command may leave (the plan
        hand-off) — leave the question and run it as soon as the job has ended."""
        command = commands.lookup(line[1:].strip().partition(" ")[0].lower())
        question = self.asker.current
        if command is not None and not command.while_busy and question is not None and question.commands_leave:
            self._deferred.append(line)
            self.asker.leave(line)
            return
        commands.dispatch(self.ctx, line)

    def _idle(self) -> None:
        """The job ended (worker thread): guidance sent after its last turn is shown back, and
        the commands that waited for it run, on the loop."""
        if self.state.run is not None:
            jobs.undelivered(self.ctx, self.state.run)
        loop = self.screen.loop
        if self._deferred and loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._run_deferred)

    def _run_deferred(self) -> None:
        while self._deferred and not self.busy:
            commands.dispatch(self.ctx, self._deferred.pop(0))

    def start_task(self, text: str, *, new: bool = False) -> None:
        if not self.worker.start(lambda: jobs.run_task(self.ctx, text, new=new)):
            self.say("the agent is still working; your message was not sent", "yellow")

    def start_execute(self, plan_ref: str | None) -> None:
        self.worker.start(lambda: jobs.execute_plan(self.ctx, plan_ref))

    def resume(self, session_id: str | None) -> None:
        if not session_id:
            return commands.list_sessions(self.ctx)
        self.worker.start(lambda: jobs.resume_session(self.ctx, session_id))

    def set_mode(self, mode: str) -> None:
        if mode not in MODES or mode == self.state.mode:
            return
        if self.busy:
            waiting = "answer the question above first" if self.asker.current is not None else "Esc interrupts it"
            self.say(f"the mode changes when the agent is done; {waiting}", "yellow")
            return
        try:
            attached = self.state.set_mode(mode)
        except Exception as exc:
            self.say(f"cannot switch to {mode} mode: {exc}", "red")
            attached = None
        if attached is not None:
            rel = attached.relative_to(self.state.root) if attached.is_relative_to(self.state.root) else attached
            self.say(
                f"execute mode · plan attached: {rel} ({self.state.attached_plan().split()[-1]} done); "
                "your next message starts executing it",
                "yellow",
            )
        elif note := self.state.switch_note():
            self.say(note, "yellow")
        self.screen.invalidate()

    def toggle_mode(self) -> None:
        self.set_mode("execute" if self.state.mode == "plan" else "plan")

    def set_model(self, spec: str) -> None:
        try:
            self.state.set_model(spec)
        except Exception as exc:
            self.say(f"cannot use model {spec}: {exc}", "red")
            return
        self.say(f"model: {self.state.model_name()}", "dim")

    def cancel(self) -> None:
        """Interrupt the job: the turn that is running, or the one it is still building (the job
        keeps the interrupt and honours it as soon as the run exists)."""
        if not self.worker.interrupt():
            return
        run = self.state.run  # read after marking the job: a run adopted meanwhile sees the mark
        if run is not None:
            run.cancel()

    def request_exit(self) -> None:
        self.exiting, self.left_mid_run = True, self.busy  # before leaving a question, whose answer may end the job
        self.asker.leave()
        if self.busy:
            self.cancel()
        self._exit_prompt()

    def _exit_prompt(self) -> None:
        """End the prompt that is showing; if none is (between two prompts), try again shortly."""
        app = self.session.app
        if app.is_running:
            try:
                app.exit(result="")
            except Exception:  # already exiting
                pass
        elif self.screen.loop is not None and not self.screen.loop.is_closed():
            self.screen.loop.call_later(0.05, self._exit_prompt)

    def on_ctrl_c(self) -> None:
        if self.asker.current is not None or self.busy:
            self._interrupt()
            return
        if (buffer := self.session.app.current_buffer).text:
            buffer.reset()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < EXIT_CONFIRM_SECONDS:
            self.request_exit()
            return
        self._last_ctrl_c = now
        self.say("(press Ctrl+C again to exit, or Ctrl+D)", "dim")

    def on_escape(self) -> None:
        """Esc at a question is its leave answer ("no" at an approval, "not now" at the hand-off)
        and the run goes on; otherwise it interrupts the agent. Ctrl+C interrupts either way."""
        if self.asker.current is not None:
            self.asker.leave(key="Esc")
        elif self.busy:
            self._interrupt()

    def _interrupt(self) -> None:
        left = self.asker.leave(key="Ctrl+C")
        if self.busy:
            self.cancel()
            if not left:
                self.say("interrupting…", "yellow")

    # -- output ---------------------------------------------------------------------------------
    def say(self, text: str, style: str = "") -> None:
        from rich.text import Text

        self.screen.commit(Text(text, style=style))

    def show(self, renderable: Any) -> None:
        self.screen.commit(renderable)

    def ask(self, question: Question, cancel: threading.Event | None = None) -> Reply:
        """A question at the prompt (the REPL is a `View`); blocks the job until it is answered."""
        return self.asker.ask(question, cancel)

    def markdown(self, text: str) -> Any:
        return self.renderer.markdown(text)

    def diff(self, text: str) -> Any:
        return self.renderer.diff(text)

    def buffer_text(self) -> str:
        return self.session.app.current_buffer.text

    def echo(self, text: str) -> None:
        """What the user sent, into the scrollback after the mode label."""
        from rich.text import Text

        mode = self.state.mode
        line = Text()
        line.append(f"{mode} › ", style="bold cyan" if mode == "plan" else "bold yellow")
        line.append(text)
        self.show(line)


def run_repl(options: Options, mode: str = "plan", task: str | None = None, resume: str | None = None) -> int:
    """`cast` with no arguments, `cast plan` without a task, `cast execute` in a terminal.

    mode: "plan" or "execute". task: in plan mode, a first task to start with; in execute mode,
    the plan to execute (path or session id; None = the newest plan with unticked items).
    resume: a session id to continue. Returns the exit status (0 when the user leaves)."""
    from cast.models.registry import check_at_open  # deferred: keeps cast.models.registry off the REPL's first prompt
    from cast.ui.trusting import ask_here  # deferred: keeps cast.ui.trusting (7 modules) off the REPL's first prompt

    ask_here(cwd=options.cwd)  # before the prompt: may this workspace's config loosen security?
    if (refused := check_at_open(options)) is not None:
        return refused
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        from cast.repl.plain import run_plain  # deferred: keeps cast.repl.plain off the REPL's first prompt

        return run_plain(options, mode, task, resume=resume)
    return Repl(options, mode).run(task, resume)
