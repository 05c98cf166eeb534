"""Guards that live in code because a model cannot be trusted to notice its own loops.

`CallRecord` answers an identical read-only call from the record while nothing has changed;
`FailureStreak` nudges a tool that failed twice in a row and stops the run at the third;
`Repeats` does the same for a command that gives the same outcome with nothing changed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cast.tools.base import Observation
from cast.tools.results import Failed, Ran, Result

FAILURE_NUDGE_AT = 2
FAILURE_STOP_AT = 3

# What a run stopped at its step ceiling keeps: the plan's ticks are on disk, so executing it again
# starts at its first unticked item, and the session goes on where it stopped.
STEP_LIMIT = (
    "step limit of {} reached; raise --max-steps to go on: `cast execute` resumes a plan at its first unticked item, "
    "`cast resume` goes on with this session"
)


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
    """Consecutive failing turns per tool. A turn counts once per tool: three speculative reads
    that miss in one parallel batch are one failure, not a reason to stop; and a success of the
    tool in the same turn clears it. So the model always sees the nudge before the stop."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}  # tool -> failing turns in a row; a TurnStreaks moves them
        self.last_error: dict[str, str] = {}

    def turn(self) -> TurnStreaks:
        return TurnStreaks(self)

    @staticmethod
    def nudge(name: str) -> str:
        return (
            f"[cast: {name} has failed in {FAILURE_NUDGE_AT} turns in a row. Do not repeat the same "
            "approach: re-read the error, check your assumptions (paths, arguments), or use another "
            f"tool. If {name} fails in the next turn too, the run ends.]"
        )


class TurnStreaks:
    """One turn's view of the streaks: records each call's outcome, once per tool per turn."""

    def __init__(self, owner: FailureStreak) -> None:
        self.owner = owner
        self.failed: set[str] = set()
        self.succeeded: set[str] = set()

    def record(self, name: str, ok: bool, error: str = "") -> int:
        """The tool's new streak when this call moved it (its first failure this turn), else 0."""
        streak = self.owner.counts
        if ok:
            streak[name] = 0
            self.succeeded.add(name)
        elif name not in self.failed and name not in self.succeeded:
            self.failed.add(name)
            streak[name] = streak.get(name, 0) + 1
            self.owner.last_error[name] = error
            return streak[name]
        return 0

    def exhausted(self) -> tuple[str, str] | None:
        for name in sorted(self.failed - self.succeeded):
            if self.owner.counts.get(name, 0) >= FAILURE_STOP_AT:
                return name, self.owner.last_error.get(name, "")
        return None


REPEAT_NUDGE_AT = 2
REPEAT_STOP_AT = 3


class Repeats:
    """No progress: the same command, the same outcome, and no file changed since it last ran.
    The second such run is nudged, the third ends the run. What counts as the outcome is the exit
    code, the test counts and a timeout, not the text (timings and addresses differ every run)."""

    def __init__(self) -> None:
        self.changes = 0  # files changed by any tool this turn
        self._last: dict[str, tuple[tuple[Any, ...], int, int]] = {}  # command -> (outcome, changes then, repeats)

    def reset(self) -> None:
        """A new user turn: the user may have changed things, and asked for the run on purpose."""
        self.changes, self._last = 0, {}

    def record(self, result: Result | None, changed: bool) -> int:
        """How many times in a row this command has now given this outcome with nothing changed
        (1 for a first run or a changed outcome); 0 for a call that is not a command that ran."""
        if changed:
            self.changes += 1
        if not isinstance(result, Ran):
            return 0
        outcome = (result.exit_code, tuple(sorted(result.tests.items())), result.timed_out)
        before = self._last.get(result.command)
        count = before[2] + 1 if before is not None and before[0] == outcome and before[1] == self.changes else 1
        self._last[result.command] = (outcome, self.changes, count)
        return count

    def check(self, obs: Observation) -> str | None:
        """Record a result; a second repeat gets the nudge appended, a third returns why the run ends
        (as does an error no retry can fix: a full disk)."""
        ran = obs.result
        if isinstance(ran, Failed) and ran.fatal:
            return ran.fatal
        repeats = self.record(ran, bool(obs.changed))
        if not isinstance(ran, Ran):
            return None
        if repeats == REPEAT_NUDGE_AT:
            obs.text += "\n" + self.nudge(ran.command, ran.exit_code)
        return self.reason(ran.command, ran.exit_code) if repeats >= REPEAT_STOP_AT else None

    @staticmethod
    def nudge(command: str, code: Any) -> str:
        return (
            f"[cast: `{command}` gave the same result as its last run (exit {code}) and no file has changed "
            "since, so running it again will not tell you anything new. Change something first, or stop and "
            "say what blocks you. If it runs again with nothing changed, the run ends.]"
        )

    @staticmethod
    def reason(command: str, code: Any) -> str:
        return f"no progress: `{command}` exited {code} {REPEAT_STOP_AT} times in a row with no file changed in between"


_ASKING = re.compile(
    r"\b(let me know (?:how|which|whether|what|if I should)|tell me|please (confirm|advise|choose|decide)|how (do|would) you (want|like)|which (one|option|approach)"
    r" (do|would|should) you|should I|do you want|would you (like|prefer)|shall I|want me to)\b",
    re.IGNORECASE,
)


def asks_user(messages: list[dict[str, Any]]) -> bool:
    """The model ended its turn with a question for the user (its last paragraph asks, or ends in
    "?"): the user answers, not the self-check. Only the last paragraph counts, so a question the
    model asked itself on the way does not end the run."""
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    if last is None:
        return False
    text = "\n".join(b.get("text", "") for b in last["content"] if isinstance(b, dict) and b.get("type") == "text").strip()
    paragraph = text.rsplit("\n\n", 1)[-1].strip()
    return bool(paragraph) and (paragraph.endswith("?") or bool(_ASKING.search(paragraph)))
