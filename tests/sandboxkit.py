"""Shared by tests/sandbox and tests/redteam: each test runs once per kernel layer this machine has,
and a skip reason names the layer the kernel lacks."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cast.sandbox.policy import detect

LAYERS = ["bubblewrap", "landlock"]


def use_layer(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Select a layer for this test (CAST_SANDBOX), or skip saying the kernel lacks it."""
    monkeypatch.setenv("CAST_SANDBOX", name if name != "bubblewrap" else "auto")
    detect.cache_clear()
    found = detect()
    if found.name != name:
        pytest.skip(f"kernel sandbox layer {name} is not available here ({found.name}: {found.detail})")


def need_abi(layer: str, abi: int, what: str) -> None:
    """Skip when the Landlock layer is too old for `what`."""
    from cast.sandbox.landlock import abi_version

    if layer == "landlock" and abi_version() < abi:
        pytest.skip(f"Landlock ABI {abi_version()} cannot {what} (ABI {abi} can)")


@pytest.fixture(autouse=True)
def _machine_layer_again() -> Iterator[None]:
    """After every test, the next one probes the layer again (cheap: the bubblewrap probe is
    cached on its own): a test that chose a layer through CAST_SANDBOX must not leave it cached
    for tests that expect the machine's own (an execute-mode MCP server found Landlock's
    workspace-write, which cannot write the workspace root)."""
    yield
    detect.cache_clear()


@pytest.fixture(params=LAYERS)
def layer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    use_layer(monkeypatch, request.param)
    yield request.param
    monkeypatch.undo()
    detect.cache_clear()


@pytest.fixture
def sandbox_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CAST_SANDBOX", "off")
    detect.cache_clear()
    yield
    monkeypatch.undo()
    detect.cache_clear()


class Server:
    """A listening socket the test holds; `reached()` says whether anything ever connected."""

    def __init__(self, family: int = socket.AF_INET, address: object = ("127.0.0.1", 0)) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(8)
        self.sock.setblocking(False)

    def reached(self) -> bool:
        try:
            conn, _ = self.sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True


class Listener(Server):
    """A TCP socket on 127.0.0.1 that records whether anything ever connected to it."""

    def __init__(self) -> None:
        super().__init__()
        self.port = self.sock.getsockname()[1]

    def connected(self) -> bool:
        return self.reached()


@pytest.fixture
def listener() -> Iterator[Listener]:
    probe = Listener()
    yield probe
    probe.sock.close()


def stray(marker: str) -> list[int]:
    """Processes anywhere on the machine whose command line carries `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(name))
    return found


def running_in(top: Path, wait: float = 2.0) -> list[int]:
    """Processes whose working directory is `top` or below it, after waiting `wait` for them to go."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    cwd = os.readlink(f"/proc/{name}/cwd")
                    state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
                except OSError:
                    continue
                if (cwd == str(top) or cwd.startswith(f"{top}/")) and state != "Z":
                    found.append(int(name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def no_stray(marker: str, wait: float = 2.0) -> bool:
    deadline = time.monotonic() + wait
    while stray(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not stray(marker)
