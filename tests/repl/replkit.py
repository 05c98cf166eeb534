"""Drive the REPL in-process: prompt-toolkit pipe input, a dummy terminal, output captured."""

from __future__ import annotations

import io
import json
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cast.repl.app import Repl
from cast.runs import Options


class Captured(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


class Harness:
    def __init__(self, root: Path, turns: list[dict] | None = None, mode: str = "plan", task: str | None = None):
        script = root.parent / "script.jsonl"
        script.write_text("".join(json.dumps(t) + "\n" for t in (turns or [])))
        self._pipe_cm = create_pipe_input()
        self.pipe = self._pipe_cm.__enter__()
        self.out = Captured()
        self.repl = Repl(
            Options(model=f"script:{script}", cwd=root),
            mode,
            input=self.pipe,
            output=DummyOutput(),
            out=self.out,
            color=False,
            history=False,
        )
        self.code: int | None = None
        self.thread = threading.Thread(target=self._run, args=(task,), daemon=True)
        self.thread.start()
        self.wait(lambda: self.repl.session.app.is_running, "the prompt to start")

    def _run(self, task: str | None) -> None:
        self.code = self.repl.run(task)

    def send(self, data: str) -> None:
        self.pipe.send_text(data)

    def wait(self, condition, what: str = "", timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}; output so far:\n{self.out.text()}")

    def wait_text(self, needle: str, timeout: float = 20.0) -> None:
        self.wait(lambda: needle in self.out.text(), repr(needle), timeout)

    def wait_idle(self, timeout: float = 20.0) -> None:
        """The job is over and everything it said is in the output (writes reach it asynchronously)."""
        self.wait(lambda: not self.repl.busy and self.repl.screen.settled, "the agent to finish", timeout)

    def close(self, timeout: float = 20.0) -> int | None:
        if self.thread.is_alive():
            loop = self.repl.screen.loop
            if loop is not None:
                loop.call_soon_threadsafe(self.repl.request_exit)
        self.thread.join(timeout)
        self._pipe_cm.__exit__(None, None, None)
        return self.code


@pytest.fixture
def harness(repo):
    """`harness(turns, mode, task)` starts a REPL on the test repository; all are closed after."""
    made: list[Harness] = []

    def make(turns=None, mode="plan", task=None) -> Harness:
        h = Harness(repo, turns, mode, task)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()
