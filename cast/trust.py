"""Which workspaces the user trusts to loosen cast's security settings through their own
`.cast/config.toml`: the question, `cast trust` and doctor's line (the record itself: trusted.py).

A cloned repository carries its `.cast/config.toml`; cast reads it as data, and the keys that could
loosen security (config.LOOSENING) count only in a workspace the user trusted, here: asked once on a
terminal, or `cast trust` / `cast trust --revoke`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cast.config import ConfigError, loosening_keys
from cast.text import terminal_safe
from cast.trusted import TRUSTED, key
from cast.trusted import decision as decision  # what callers ask of trust: the record's answers, from here
from cast.trusted import is_trusted as is_trusted
from cast.trusted import record as record


def question(root: Path, keys: list[str]) -> str:
    names = ", ".join(keys)
    what = f"{names}, settings that loosen" if len(keys) > 1 else f"{names}, a setting that loosens"
    them = "they count" if len(keys) > 1 else "it counts"
    return (
        f"{terminal_safe(str(root))}/.cast/config.toml sets {what} cast's security; "
        f"{them} only if you trust this workspace (cast trust --revoke undoes it).\n"
        "Trust it? [y]es / [N]o: "
    )


@dataclass(frozen=True)
class TrustRequest:
    """May this workspace's config loosen security? Asked by a front-end (the terminal, a
    program's answer with `--answers stdin`) before a run is built, as any question is."""

    root: str
    keys: tuple[str, ...]  # what it sets that would otherwise be ignored

    @property
    def question(self) -> str:
        return question(Path(self.root), list(self.keys))


def settle(root: Path, ask: Callable[[TrustRequest], bool | None] | None) -> None:
    """Ask once (`ask` is None where nobody can be asked) whether to trust `root` when its config
    sets keys that would otherwise be ignored. An answer is kept, yes or no; a question left
    (Ctrl+C, end of input) is asked again next time, and this run trusts nothing."""
    if ask is None or decision(root) is not None:
        return
    keys = loosening_keys(root)
    if keys:
        answer = ask(TrustRequest(str(root), tuple(keys)))
        if answer is not None:
            record(root, answer)


@dataclass(frozen=True)
class Changed:
    """What `cast trust` / `cast trust --revoke` did: `cast trust --json` prints it as it is."""

    workspace: str  # the real path trust is keyed by
    trusted: bool  # now
    before: str | None  # "trusted", "untrusted" or None (never asked)
    record: str  # the file the answer went to
    loosening: tuple[str, ...]  # what the workspace's config sets that trust decides

    def to_json(self) -> dict[str, object]:
        return {
            "workspace": self.workspace,
            "trusted": self.trusted,
            "was_trusted": self.before == TRUSTED,
            "before": self.before,
            "record": self.record,
            "loosening_keys": list(self.loosening),
        }

    def words(self) -> str:
        keys = f" (now {'counted' if self.trusted else 'ignored'}: {', '.join(self.loosening)})" if self.loosening else ""
        where = terminal_safe(self.workspace)
        if self.trusted:
            return f"trusted {where}: its .cast/config.toml may loosen security settings{keys} (in {self.record})"
        was = "no longer trusted" if self.before == TRUSTED else "not trusted (it was not before either)"
        return f"{was} {where}: its .cast/config.toml may only tighten security settings{keys}"


def changed(root: Path, trusted: bool) -> Changed:
    """Record the user's `cast trust` / `cast trust --revoke` and what it means for this workspace."""
    before = decision(root)
    where = record(root, trusted)
    return Changed(key(root), trusted, before, str(where), tuple(loosening_keys(root)))


def change(root: Path, trusted: bool) -> str:
    """`changed`, in words."""
    return changed(root, trusted).words()


def status(root: Path) -> tuple[bool, str]:
    """`cast doctor`'s line: whether the workspace is trusted, and what that changes here."""
    try:
        keys = loosening_keys(root)
    except ConfigError as exc:  # the clone's file: doctor says what is wrong with it, and goes on
        return False, f"cannot read the workspace's config: {exc}"
    if decision(root) == TRUSTED:
        return True, "trusted: .cast/config.toml may loosen security settings (cast trust --revoke)"
    if keys:
        return False, f"not trusted: .cast/config.toml's {', '.join(keys)} ignored (`cast trust` to let them count)"
    return True, "not trusted: .cast/config.toml may tighten security settings, and loosens none"
