"""What a sandboxed command cannot see or reach, per kernel layer, measured with real planted
secrets and real host listeners; with the layer off the same probes succeed, which is what shows
each probe can fail."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandboxkit import Listener

from cast.sandbox import visible
from cast.sandbox.limits import configure
from cast.sandbox.policy import READ_ONLY, isolation, workspace_write
from cast.tools.process import read_only_env, run_command

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-planted-1",
    "GH_TOKEN": "ghp-planted-2",
    "MY_SERVICE_TOKEN": "planted-3",
    "AWS_SECRET_ACCESS_KEY": "planted-4",
    "DB_PASSWORD": "planted-5",
    "GOOGLE_APPLICATION_CREDENTIALS": "/planted-6",
}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    return root


@pytest.fixture
def planted_home(monkeypatch: pytest.MonkeyPatch) -> Path:
    home = Path(os.environ["HOME"])
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("PLANTED-SSH-KEY\n")
    (home / ".aws").mkdir(exist_ok=True)
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = PLANTED-AWS\n")
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return home


@pytest.fixture(autouse=True)
def default_settings():
    yield
    configure()


def _run(command: str, work: Path, sandbox=READ_ONLY, timeout: float = 30):
    env = read_only_env(work) if sandbox is READ_ONLY else None
    return run_command(command, work, timeout, env=env, sandbox=sandbox)


def test_the_environment_carries_no_secret_and_home_is_an_empty_scratch(layer, work, planted_home):
    for policy in (READ_ONLY, workspace_write(work)):
        result = _run("printenv ANTHROPIC_API_KEY; env; echo HOME=$HOME; ls -A $HOME | wc -l", work, policy)
        assert not any(value in result.output for value in SECRETS.values()), result.output
        home = result.output.split("HOME=")[-1].splitlines()[0]
        assert home != str(planted_home) and "cast-scratch-" in home and result.output.splitlines()[-1] == "0"
    assert isolation().env_scrubbed


def test_a_passthrough_name_reaches_the_command_and_nothing_else(layer, work, planted_home):
    configure(passthrough=["MY_SERVICE_TOKEN"])
    result = _run("env", work)
    assert "planted-3" in result.output and "sk-ant-planted-1" not in result.output and "ghp-planted-2" not in result.output


def test_home_secrets_are_unreadable(layer, work, planted_home, monkeypatch):
    monkeypatch.setattr(visible, "SHARED_TEMP", ())  # the home alone must hide them, not /tmp's cover
    command = f"cat {planted_home}/.ssh/id_rsa {planted_home}/.aws/credentials; ls -A {planted_home}; cat ~/.ssh/id_rsa"
    for policy in (READ_ONLY, workspace_write(work)):
        result = _run(command, work, policy)
        assert "PLANTED" not in result.output and ".ssh" not in result.output.splitlines(), result.output
    assert isolation().home_hidden


def test_the_shared_temp_dir_is_hidden_but_the_workspace_and_scratch_are_not(layer, work, tmp_path):
    (tmp_path / "stray-secret").write_text("PLANTED-TMP")
    (work / "src" / "code.py").write_text("WORKSPACE-CONTENT\n")
    result = _run(f"cat {tmp_path}/stray-secret; cat src/code.py; echo s > $TMPDIR/x && cat $TMPDIR/x", work)
    assert "PLANTED-TMP" not in result.output and "WORKSPACE-CONTENT" in result.output and "\ns" in result.output


def _unix_listeners(where: Path) -> tuple[socket.socket, socket.socket, str]:
    path_sock = socket.socket(socket.AF_UNIX)
    path = str(where / "host.sock")
    path_sock.bind(path)
    abstract = socket.socket(socket.AF_UNIX)
    name = f"cast-test-{os.getpid()}-{time.monotonic_ns()}"
    abstract.bind("\0" + name)
    for sock in (path_sock, abstract):
        sock.listen(4)
        sock.setblocking(False)
    return path_sock, abstract, name


def _reached(*socks: socket.socket) -> list[bool]:
    time.sleep(0.1)
    found = []
    for sock in socks:
        try:
            sock.accept()[0].close()
            found.append(True)
        except BlockingIOError:
            found.append(False)
    return found


PROBE = (
    "python3 - <<'EOF'\nimport socket, sys\nfor address in sys.argv[1:] or {targets!r}:\n"
    "    try:\n        s = socket.socket(socket.AF_UNIX); s.connect(address); s.send(b'x'); print('REACHED', repr(address))\n"
    "    except OSError as exc:\n        print('refused', exc)\nEOF"
)


def test_host_unix_sockets_are_unreachable_by_path_and_by_abstract_name(layer, work):
    path_sock, abstract, name = _unix_listeners(work)  # in the workspace: visible by path
    try:
        command = PROBE.format(targets=[str(work / "host.sock"), "\0" + name])
        for policy in (READ_ONLY, workspace_write(work), workspace_write(work, network=True)):
            result = _run(command, work, policy)
            assert "REACHED" not in result.output and result.output.count("refused") == 2, result.output
            assert _reached(path_sock, abstract) == [False, False]
        assert isolation().unix_sockets_blocked
    finally:
        path_sock.close()
        abstract.close()


def test_no_udp_or_tcp_leaves(layer, work, listener: Listener):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    port = udp.getsockname()[1]
    try:
        command = f"echo leak > /dev/udp/127.0.0.1/{port}; exec 3<>/dev/tcp/127.0.0.1/{listener.port} && echo connected"
        result = _run(command, work)
        assert "connected" not in result.output
        time.sleep(0.1)
        with pytest.raises(BlockingIOError):
            udp.recv(100)
        assert not listener.connected() and isolation().network_blocked
    finally:
        udp.close()


def test_without_a_layer_the_same_probes_succeed(sandbox_off, work, planted_home):
    """The off switch is honest: nothing is hidden, and isolation() says so. The command's own
    environment is still the allowlist (that needs no kernel layer), but without one cast's own
    /proc/PID/environ is readable to it, so the environment does not count as scrubbed."""
    path_sock, abstract, name = _unix_listeners(work)
    try:
        result = _run(
            f"printenv ANTHROPIC_API_KEY; cat {planted_home}/.ssh/id_rsa; " + PROBE.format(targets=[str(work / "host.sock")]),
            work,
        )
        assert "PLANTED-SSH-KEY" in result.output and "REACHED" in result.output
        assert "sk-ant-planted-1" not in result.output
        assert _reached(path_sock) == [True]
    finally:
        path_sock.close()
        abstract.close()
    off = isolation()
    assert not (off.env_scrubbed or off.home_hidden or off.unix_sockets_blocked or off.strong)


PROC_PROBE = (
    "import os, sys; from pathlib import Path; from cast.sandbox.policy import READ_ONLY; "
    "from cast.tools.process import run_command; me = os.getpid(); "
    'r = run_command(f"cat /proc/{me}/environ /proc/$PPID/environ; head -c 64 /proc/{me}/mem", Path(sys.argv[1]), 30, '
    "sandbox=READ_ONLY if sys.argv[2] == 'on' else None); print(r.output)"
)


@pytest.mark.parametrize("sandboxed", ["on", "off"])
def test_casts_own_environment_is_not_readable_through_proc(layer, work, sandboxed):
    """cast's process holds the API key from its start; without a pid namespace (Landlock) its
    /proc entry is still there, and Landlock's ptrace scoping is what keeps `environ` shut.
    Unsandboxed, the same probe reads it."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-planted-proc"}
    done = subprocess.run(
        [sys.executable, "-c", PROC_PROBE, str(work), sandboxed], env=env, capture_output=True, text=True, timeout=60
    )
    assert ("sk-ant-planted-proc" in done.stdout) == (sandboxed == "off"), done.stdout + done.stderr


def test_system_secrets_are_empty_under_bubblewrap(layer, work):
    """Root can read /etc/shadow and /run/secrets; bubblewrap shows them empty. (Landlock cannot
    carve files out of /etc: docs/safety.md.)"""
    if layer != "bubblewrap" or not os.access("/etc/shadow", os.R_OK) or not os.path.getsize("/etc/shadow"):
        pytest.skip("needs bubblewrap and a readable, non-empty /etc/shadow (root)")
    result = _run("cat /etc/shadow 2>/dev/null | wc -c; ls -A /etc/ssh | wc -l", work)
    assert result.output.split() == ["0", "0"], result.output


def test_toolchains_in_the_home_still_work(layer, work, planted_home):
    """HOME is a scratch dir, yet a `pip install --user` module (~/.local) is importable: the
    toolchain's own directory is shown read-only and pointed at, nothing else of the home."""
    site = planted_home / ".local" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "castusermod.py").write_text("print('usermod-ok')\n")
    result = _run(
        "python3 -c 'import site, sys; sys.path.append(site.getusersitepackages()); import castusermod'; cat ~/.ssh/id_rsa", work
    )
    assert "usermod-ok" in result.output and "PLANTED" not in result.output, result.output
