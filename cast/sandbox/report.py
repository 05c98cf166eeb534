"""What the sandbox hides and blocks on this machine, one line each, for `cast doctor` (and the
threat model in docs/safety.md says the same in prose).

Each line is (name, holds, detail). The facts come from isolation(), which tests/sandbox proves
per layer with planted secrets and real host listeners.
"""

from __future__ import annotations

from cast.sandbox.limits import settings
from cast.sandbox.policy import Isolation, isolation

Line = tuple[str, bool, str]


def _home_detail(found: Isolation) -> str:
    if not found.home_hidden:
        return "NOT hidden: commands can read ~/.ssh, ~/.aws, ~/.config/gh and the rest of your home"
    how = "empty read-only tmpfs over it" if found.layer == "bubblewrap" else "Landlock allows reads only of system dirs"
    return f"hidden ({how}); HOME is an empty scratch dir; toolchains (~/.pyenv, ~/.cargo/bin, ...) readable; /tmp hidden too"


def _sockets_detail(found: Isolation) -> str:
    if not found.unix_sockets_blocked:
        return "NOT blocked: commands can connect to ssh-agent, docker.sock, D-Bus"
    return "blocked by path and abstract name (seccomp refuses AF_UNIX sockets; socketpair still works)"


def _network_detail(found: Isolation) -> str:
    if found.layer == "bubblewrap":
        return "blocked (private network namespace: only its own loopback)"
    if found.network_blocked:
        return "blocked (Landlock refuses TCP; seccomp refuses IP sockets, so no UDP or DNS either)"
    return "NOT blocked"


def _limits_detail(found: Isolation) -> str:
    limits = settings().limits
    if found.limits:
        return f"{limits.describe()} (config sandbox_limits)"
    return f"{limits.describe()}, but the process cap does not hold here (root, and a kernel before 6.14)"


def lines(plan_commands: tuple[bool, str] | None = None) -> list[Line]:
    """The facts as doctor lines; `plan_commands` is (runs unverified, why) from the config."""
    found = isolation()
    if found.layer in ("none", "off"):
        return [("isolation", False, "nothing is hidden or blocked: no kernel sandbox (plan mode runs only proven commands)")]
    passthrough = ", ".join(settings().passthrough) or "none"
    out: list[Line] = [
        (
            "environment",
            found.env_scrubbed,
            f"scrubbed: only harmless names (PATH, LANG, TERM, ...) and sandbox_env_passthrough ({passthrough})"
            if found.env_scrubbed
            else "NOT scrubbed",
        ),
        ("home", found.home_hidden, _home_detail(found)),
        ("unix sockets", found.unix_sockets_blocked, _sockets_detail(found)),
        ("network", found.network_blocked, _network_detail(found)),
        (
            "processes",
            found.pid_namespace,
            "private pid namespace: other processes invisible, all killed with the command"
            if found.pid_namespace
            else "no pid namespace: other processes' command lines visible (their environment is not); all killed at the end",
        ),
        ("limits", found.limits, _limits_detail(found)),
    ]
    if plan_commands is not None:
        runs, why = plan_commands
        out.append(("plan commands", True, f"{'unverified ones run sandboxed' if runs else 'proven read-only only'}: {why}"))
    return out
