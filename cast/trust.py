"""Which workspaces the user trusts to loosen cast's security settings through their own
`.cast/config.toml`.

A cloned repository carries its `.cast/config.toml`; cast reads it as data, and the keys that could
loosen security (config.LOOSENING) count only in a workspace the user trusted, here: asked once on a
terminal, or `cast trust` / `cast trust --revoke`. The answer lives in the user's config dir, where
no repository (and no command under workspace-write) can write, keyed by the workspace's real path,
so a symlink to a trusted directory is trusted and a directory moved into its place after a
`--revoke` is not. A "no" is remembered too: the question is asked once, not at every run.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from cast.config import ConfigError, config_dir, loosening_keys

TRUSTED = "trusted"
UNTRUSTED = "untrusted"
HEADER = (
    "# Workspaces whose .cast/config.toml may loosen cast's security settings (sandbox, allow, models),\n"
    "# keyed by real path. Written by `cast trust`, `cast trust --revoke` and the question cast asks once.\n"
)


def store() -> Path:
    return config_dir() / "trusted.toml"


def key(root: Path) -> str:
    return os.path.realpath(root)


def _read() -> dict[str, dict[str, str]]:
    path = store()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    table = data.get("workspaces", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'workspaces' must be a table")
    return {name: entry for name, entry in table.items() if isinstance(entry, dict)}


def decision(root: Path) -> str | None:
    """ "trusted", "untrusted" (the user said no), or None (never asked)."""
    entry = _read().get(key(root))
    status = entry.get("status") if entry else None
    return status if status in (TRUSTED, UNTRUSTED) else None


def is_trusted(root: Path) -> bool:
    return decision(root) == TRUSTED


def record(root: Path, trusted: bool) -> Path:
    """Remember the user's answer for `root`; returns the file it went to."""
    from cast.fsutil import atomic_write

    entries = _read()
    entries[key(root)] = {"status": TRUSTED if trusted else UNTRUSTED, "since": date.today().isoformat()}
    lines = [HEADER, "[workspaces]\n"]
    for name, entry in sorted(entries.items()):
        fields = ", ".join(f"{field} = {json.dumps(str(value))}" for field, value in sorted(entry.items()))
        lines.append(f"{json.dumps(name)} = {{ {fields} }}\n")  # a JSON string is a TOML basic string
    path = store()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(lines).encode("utf-8"))
    return path


def said_before(root: Path, keys: list[str]) -> bool:
    """Whether the warning that these keys are ignored was shown here already: it is said once
    for each set of keys (kept in cast's private state), not again on every command after."""
    from cast.fsutil import atomic_write
    from cast.state import private_dir

    said = ",".join(sorted(keys))
    try:
        marker = private_dir(root, "notices") / "ignored-config"
        try:
            if marker.read_text(encoding="utf-8") == said:
                return True
        except FileNotFoundError:
            pass
        atomic_write(marker, said.encode("utf-8"))
    except (OSError, ValueError):
        return False  # nowhere to remember it: say it
    return False


def question(root: Path, keys: list[str]) -> str:
    from cast.text import terminal_safe

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
        from cast.text import terminal_safe

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
