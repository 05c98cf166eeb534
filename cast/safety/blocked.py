"""The one exception the read-only checker raises.

Every rule that refuses a command raises ``Blocked`` with a sentence a person
can act on; the checker turns it into a verdict. Keeping it in its own module
lets the word, option and script checkers share it without importing each other.
"""

from __future__ import annotations


class Blocked(Exception):
    """A command (or part of one) cannot be proven read-only."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SecretRead(Blocked):
    """The command would read a secret: refused in every mode, never put to the user as a
    question (an approval, or --yes, would run it outside the sandbox that hides the secret)."""
