"""How a stdio MCP server is started: inside cast's sandbox, like a command.

A server is a program someone else wrote, running for as long as the run does. It gets what a
sandboxed command gets (`cast.sandbox`): the allowlisted environment plus its own `env`, an empty
scratch HOME with the user's secrets hidden, no host unix sockets, and no network unless the
user's own config says `network = true`. Started for plan mode it sees the workspace read-only
(and is restarted, never reused, for execute, where it may write the workspace like an approved
command under workspace-write). Without a kernel layer a repository's server does not start at
all; the user's own starts with the scrubbed environment only, and says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cast.mcp.client import Launch, ServerError
from cast.mcp.config import Server, expand, secret_reads
from cast.sandbox.environment import sandbox_env
from cast.sandbox.policy import READ_ONLY, SCRATCH_PREFIX, Policy, detect, workspace_write, wrap


@dataclass
class Started:
    """A launch and what it holds: the scratch dir to remove when the server stops, and the
    sandbox it runs in, in words (for `cast mcp` and /mcp)."""

    launch: Launch
    scratch: str
    sandbox: str

    def discard(self) -> None:
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


def launch(server: Server, root: Path, mode: str, passthrough: tuple[str, ...] = ()) -> Started:
    """The launch of `server` for a run in `mode` ("plan" or "execute"); ServerError when it may not start."""
    if server.transport == "http":
        headers = {name: expand(value, os.environ, server) for name, value in server.headers.items()}
        if server.bearer_token_env_var:
            token = os.environ.get(server.bearer_token_env_var, "")
            if not token:
                raise ServerError(f"{server.bearer_token_env_var} is not set (bearer_token_env_var)")
            headers["Authorization"] = f"Bearer {token}"
        return Started(Launch(url=server.url, headers=headers), "", "not sandboxed: a remote server")
    if secrets := secret_reads(server):
        raise ServerError(
            f"a repository's server may not read {', '.join(secrets)}: declare it in your own config to pass secrets"
        )

    layer = detect()
    if not layer.active and server.from_project:
        raise ServerError(f"no kernel sandbox here ({layer.name}): a repository's server runs only inside one")
    network = server.network and not server.from_project
    policy = Policy(network=network) if mode == "plan" else workspace_write(root, network)
    if mode == "plan" and not network:
        policy = READ_ONLY
    scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX)
    env = sandbox_env(dict(os.environ), scratch, passthrough)
    env.update({name: expand(value, os.environ, server) for name, value in server.env.items()})
    argv = wrap([server.command, *server.args], policy, scratch, layer, workspace=str(root))
    words = f"{layer.name}: workspace {'read-only' if mode == 'plan' else 'writable'}, {'network' if network else 'no network'}"
    return Started(Launch(argv=argv, env=env, cwd=str(root)), scratch, words if layer.active else f"unsandboxed ({layer.name})")
