"""The sandbox-exec (Seatbelt) profile for macOS: everything readable, writes only beneath the
scratch dir and the policy's writable paths, no network unless the policy allows it.

Text generation only, so it can be checked anywhere; it runs only on macOS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.sandbox.grant import Policy


def _quote(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def profile(policy: Policy, scratch: str | None) -> str:
    writable = ([scratch] if scratch else []) + list(policy.writable)
    lines = [
        "(version 1)",
        "(deny default)",
        "(allow process-exec)",
        "(allow process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow file-read*)",
        "(allow sysctl-read)",
        "(allow mach-lookup)",
        "(allow ipc-posix-shm-read-data)",
        '(allow file-write-data (literal "/dev/null") (literal "/dev/stdout") (literal "/dev/stderr"))',
    ]
    if writable:
        lines.append("(allow file-write* " + " ".join(f"(subpath {_quote(p)})" for p in writable) + ")")
    if policy.network:
        lines.append("(allow network*)")
    return "\n".join(lines) + "\n"
