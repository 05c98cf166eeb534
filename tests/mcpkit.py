"""Helpers for the MCP tests: the test server's command line, a config file naming it, and a
streamable HTTP server on 127.0.0.1 at an ephemeral port."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER = str(Path(__file__).with_name("mcp_server.py"))
STARTUP = 120.0  # seconds: generous, the suite runs on a loaded machine (the server imports the SDK)


def server_argv(*flags: str) -> list[str]:
    return [sys.executable, SERVER, *flags]


def toml_list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def write_user_config(text: str) -> Path:
    """The user's config.toml (HOME is a temp dir in every test)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "cast" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def server_table(name: str, *flags: str, extra: str = "") -> str:
    argv = server_argv(*flags)
    return (
        f'[mcp_servers.{name}]\ncommand = "{argv[0]}"\nargs = {toml_list(argv[1:])}\nstartup_timeout_sec = {STARTUP}\n{extra}\n'
    )


@contextmanager
def http_server(tmp_path: Path, *flags: str) -> Iterator[str]:
    """The test server over streamable HTTP; yields its url."""
    port_file = tmp_path / "port"
    proc = subprocess.Popen(server_argv("--http", str(port_file), *flags), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not port_file.exists():  # written once the socket listens
            if proc.poll() is not None:
                raise RuntimeError("the HTTP test server exited")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/mcp"
    finally:
        proc.terminate()
        proc.wait(30)
