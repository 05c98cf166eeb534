"""The real REPL in tmux: keys typed with send-keys, the screen read with capture-pane — what a
user sees at a given terminal size, not the stream of bytes that drew it."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cast_env

TIMEOUT = 30.0  # generous: the machine may be loaded


class Tmux:
    def __init__(self, root: Path, script: Path, socket: Path, columns: int = 60, rows: int = 30, args: tuple[str, ...] = ()):
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed")
        self.socket = str(socket)
        env = cast_env(TERM="xterm-256color", EDITOR="true")  # tmux answers cursor position requests
        exports = " ".join(
            f"{k}={shlex.quote(v)}"
            for k, v in env.items()
            if k in ("PATH", "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "PYTHONPATH", "GIT_CONFIG_GLOBAL", "TERM", "EDITOR")
        )
        command = f"cd {shlex.quote(str(root))} && env {exports} {shlex.quote(sys.executable)} -m cast --model script:{shlex.quote(str(script))} {' '.join(args)}"
        self._tmux("new-session", "-d", "-x", str(columns), "-y", str(rows), command)
        self.wait_for("›")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=20).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p")

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-l", text)

    def wait_for(self, needle: str, timeout: float = TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if needle in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} not on the screen within {timeout}s; the screen:\n{shown}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def tmux(repo, tmp_path):
    made: list[Tmux] = []

    def make(script: Path, columns: int = 60, rows: int = 30, args: tuple[str, ...] = ()) -> Tmux:
        t = Tmux(repo, script, tmp_path / f"tmux-{len(made)}.sock", columns, rows, args)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()
