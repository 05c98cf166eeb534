"""What a run's explores reported (the claims of its final message that rest only on them are
explore_claims.py's).

An explore's answer is an observation of what a child run read, not a fact cast verified: the
child's commands are not the run's commands (a test it saw pass proves nothing about the tree the
report judges), and a file it read is not one the run's model looked at. So the report keeps them
apart: `ExploreRecord` collects each explore's typed result (`Explored`) and the files the run's
own calls read, and `explore_claims.mark` says of a claim that cast could not check, and that names a command or
a file only an explore reported, that it rests on that explore alone. It never turns a claim into a
checked one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cast.agent import events as ev
from cast.tools.results import Explored

_COMMAND = re.compile(r"`(?P<command>[^`]+)` (?:exit_code=-?\d+|not run)")


@dataclass
class ExploreRecord:
    """Feed it every event of the run; `explored` is what each explore returned, in order."""

    explored: list[Explored] = field(default_factory=list)
    own_reads: set[str] = field(default_factory=set)  # files the run's own model read

    def observe(self, event: ev.Event) -> None:
        if not isinstance(event, ev.ToolResult):
            return
        if isinstance(event.result, Explored):
            self.explored.append(event.result)
        elif event.name == "read_file" and event.ok and isinstance(event.input, dict):
            self.own_reads.add(str(event.input.get("path", "")).removeprefix("./"))

    def commands(self) -> list[tuple[str, str]]:
        """(command, what the explore said of it) for each command an explore ran."""
        found = []
        for each in self.explored:
            for line in each.commands:
                match = _COMMAND.match(line)
                if match:
                    found.append((match["command"], line))
        return found

    def files(self) -> set[str]:
        """Files only an explore read: the run's own model never read them."""
        return {path for each in self.explored for path in each.files} - self.own_reads

    def lines(self) -> list[str]:
        """The report's section: each explore, how it ended, what it read and spent."""
        if not self.explored:
            return []
        out = [f"Explores: {len(self.explored)} (what subagents read, not verified by cast)"]
        for each in self.explored:
            cost = f", ${each.cost:.4f}" if each.cost is not None else ""
            out.append(
                f"  {each.status:<11} {each.task[:80]} — {each.model}, {each.steps} steps, "
                f"{len(each.files)} files read, {len(each.commands)} commands, {each.tokens:,} tokens{cost}"
            )
        return out
