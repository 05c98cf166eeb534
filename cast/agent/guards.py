"""Guards that live in code because a model cannot be trusted to notice its own loops.

`CallRecord` answers an identical read-only call from the record while nothing has changed;
`FailureStreak` nudges a tool that failed twice in a row and stops the run at the third.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

FAILURE_NUDGE_AT = 2
FAILURE_STOP_AT = 3


def call_key(name: str, arguments: Any) -> str:
    return name + ":" + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Recorded:
    step: int
    generation: int
    text: str
    summary: str


class CallRecord:
    """Successful read-only results keyed by (tool, input), valid for one workspace generation.

    The generation moves whenever anything may have changed: a write tool ran, a command changed
    files, or a file read earlier changed on disk. A stale entry is never served."""

    def __init__(self) -> None:
        self.generation = 0
        self._entries: dict[str, Recorded] = {}

    def changed(self) -> None:
        self.generation += 1

    def lookup(self, name: str, arguments: Any) -> Recorded | None:
        entry = self._entries.get(call_key(name, arguments))
        return entry if entry and entry.generation == self.generation else None

    def remember(self, name: str, arguments: Any, step: int, text: str, summary: str) -> None:
        self._entries[call_key(name, arguments)] = Recorded(step, self.generation, text, summary)


class FailureStreak:
    def __init__(self) -> None:
        self._streak: dict[str, int] = {}

    def record(self, name: str, ok: bool) -> int:
        self._streak[name] = 0 if ok else self._streak.get(name, 0) + 1
        return self._streak[name]

    @staticmethod
    def nudge(name: str) -> str:
        return (
            f"[cast: {name} has failed {FAILURE_NUDGE_AT} times in a row. Do not repeat the same "
            "approach: re-read the error, check your assumptions (paths, arguments), or use another "
            f"tool. A {FAILURE_STOP_AT}rd consecutive failure of {name} ends the run.]"
        )
