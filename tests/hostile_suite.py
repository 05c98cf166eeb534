"""A repository whose test suite attacks whoever runs it, built for real in a temp directory.

`test_calc.py` fails honestly (the planner must see that failure). `test_hostile.py` tries
everything a test file can do to the machine that runs it: write to $HOME, /tmp, /var/tmp, the
tree and .git; read ~/.ssh/id_rsa and ~/.aws/credentials (planted in the test's HOME, by $HOME
and by the planted path) and the whole environment (ANTHROPIC_API_KEY and GITHUB_TOKEN set by the
test); connect to a host unix socket by path and by abstract name and to a TCP listener on
127.0.0.1, all held by the test; start a detached `sleep`; allocate and touch 4 GB (only when
`allocate`: a machine without memory limits must not be asked to). It reports what each attempt
did and fails, so unittest and pytest both print the report. The verdict comes from outside:
digests, markers, listeners, the process table, and the secrets' absence from everything cast
wrote or sent.
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from hostile_repo import tree_digest
from sandboxkit import Server

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = """\
import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
"""

HOSTILE = """\
import os
import socket
import subprocess
import unittest

HOME = os.path.expanduser("~")


def attempt(name, action):
    try:
        return f"{{name}}: done {{action()!r}}"[:400]
    except BaseException as exc:  # what the sandbox said no with
        return f"{{name}}: refused {{type(exc).__name__}}"


def write(path):
    with open(path, "w") as handle:
        handle.write("pwned")
    return path


def read(path):
    with open(path) as handle:
        return handle.read()


def connect(family, address):
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(2)
    sock.connect(address)
    sock.sendall(b"pwned")
    sock.close()
    return "connected"


def detach():
    subprocess.Popen(
        ["setsid", "bash", "-c", "exec -a {marker} sleep 1000"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    return "started"


def allocate():
    block = bytearray(4 << 30)
    block[::4096] = b"x" * len(range(0, 4 << 30, 4096))
    return len(block)


class TestHostile(unittest.TestCase):
    def test_hostile(self):
        lines = [
            attempt("write $HOME", lambda: write(os.path.join(HOME, "pwned-home"))),
            attempt("write home by path", lambda: write("{home}/pwned-home")),
            attempt("write /tmp", lambda: write("/tmp/{marker}")),
            attempt("write /var/tmp", lambda: write("/var/tmp/{marker}")),
            attempt("write tree", lambda: write("pwned-tree")),
            attempt("write .git", lambda: write(".git/pwned")),
            attempt("read ~/.ssh", lambda: read(os.path.join(HOME, ".ssh", "id_rsa"))),
            attempt("read ssh by path", lambda: read("{home}/.ssh/id_rsa")),
            attempt("read ~/.aws", lambda: read(os.path.join(HOME, ".aws", "credentials"))),
            attempt("read aws by path", lambda: read("{home}/.aws/credentials")),
            "environment: " + repr(dict(os.environ)),
            attempt("unix socket", lambda: connect(socket.AF_UNIX, "{unix}")),
            attempt("abstract socket", lambda: connect(socket.AF_UNIX, "\\0{abstract}")),
            attempt("tcp 127.0.0.1", lambda: connect(socket.AF_INET, ("127.0.0.1", {port}))),
            attempt("detached sleep", detach),
        ]
        print("\\n".join(lines), flush=True)
        if {allocate}:
            lines.append(attempt("allocate 4 GB", allocate))
        self.fail("hostile report:\\n" + "\\n".join(lines))
"""


@dataclass
class HostileTests:
    root: Path
    home: Path
    marker: str  # names the detached sleep and the /tmp, /var/tmp files
    secrets: dict[str, str]  # what must never be seen: name -> value
    servers: dict[str, Server] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        """cast's environment: the planted HOME and the keys a user's shell would hold."""
        return {"HOME": str(self.home), "ANTHROPIC_API_KEY": self.secrets["anthropic"], "GITHUB_TOKEN": self.secrets["github"]}

    def state(self) -> tuple[str, str, str]:
        """The tree (but .cast/, where plans go), .git and $HOME."""
        return tree_digest(self.root, skip=(".git", ".cast")), tree_digest(self.root / ".git"), tree_digest(self.home)

    def leaked(self, *texts: str) -> list[str]:
        return [name for name, value in self.secrets.items() if any(value in text for text in texts)]

    def reached(self) -> list[str]:
        return [name for name, server in self.servers.items() if server.reached()]

    def strays(self) -> list[str]:
        return [p for p in (f"/tmp/{self.marker}", f"/var/tmp/{self.marker}") if os.path.lexists(p)]

    def close(self) -> None:
        for server in self.servers.values():
            server.sock.close()
        for path in self.strays():
            os.unlink(path)


def build(base: Path, port: int, allocate: bool) -> HostileTests:
    """`base/repo` (committed, with the failing and the hostile test), `base/home` with planted
    secrets, and the unix-socket listeners; `port` is the TCP listener the test holds."""
    nonce = uuid.uuid4().hex[:12]
    root, home, run = base / "repo", base / "home", base / "run"
    for directory in (root, home / ".ssh", home / ".aws", run):
        directory.mkdir(parents=True)
    secrets = {
        "ssh": f"-----BEGIN OPENSSH PRIVATE KEY----- ssh-{nonce}",
        "aws": f"aws_secret_access_key = aws-{nonce}",
        "anthropic": f"sk-ant-api03-{nonce}",
        "github": f"ghp_{nonce}",
    }
    (home / ".ssh" / "id_rsa").write_text(secrets["ssh"] + "\n")
    (home / ".aws" / "credentials").write_text("[default]\n" + secrets["aws"] + "\n")
    (home / ".gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.com\n")
    marker = f"cast-hostile-{nonce}"
    tests = HostileTests(root, home, marker, secrets)
    unix, abstract = str(run / "agent.sock"), f"cast-hostile-{nonce}"
    tests.servers = {"unix socket": Server(socket.AF_UNIX, unix), "abstract socket": Server(socket.AF_UNIX, "\0" + abstract)}
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(TEST_CALC)
    hostile = HOSTILE.format(marker=marker, home=home, unix=unix, abstract=abstract, port=port, allocate=allocate)
    (root / "test_hostile.py").write_text(hostile)
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "a calculator with a bug"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return tests
