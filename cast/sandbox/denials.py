"""Did the sandbox, rather than the command's own logic, make it fail?

A command that fails on a denied write or connection must say so in its observation, or the
model will "fix" code that was never wrong. The kernel gives no side channel we can read without
privileges, so this reads the signs every program prints for EROFS, EACCES, EPERM and an absent
network, plus the launcher's own refusal; it can over-report, never hide a success.
"""

from __future__ import annotations

LAUNCHER_REFUSED = 125

_SIGNS: tuple[tuple[str, str], ...] = (
    ("cast sandbox:", "the sandbox could not be set up"),
    ("read-only file system", "a write outside the workspace and the temp dir"),
    ("erofs", "a write outside the workspace and the temp dir"),
    ("permission denied", "a write or connection the sandbox does not allow"),
    ("eacces", "a write or connection the sandbox does not allow"),
    ("operation not permitted", "an operation the sandbox does not allow"),
    ("eperm", "an operation the sandbox does not allow"),
    ("network is unreachable", "a network connection (no network in the sandbox)"),
    ("temporary failure in name resolution", "a network lookup (no network in the sandbox)"),
    ("could not resolve host", "a network lookup (no network in the sandbox)"),
    ("name or service not known", "a network lookup (no network in the sandbox)"),
)


def denial(exit_code: int, output: str) -> str | None:
    """What the sandbox seems to have denied, or None when the failure looks like the command's own."""
    if exit_code == 0:
        return None
    text = output.lower()
    for sign, what in _SIGNS:
        if sign in text:
            return what
    return None
