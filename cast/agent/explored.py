"""What a run's explores reported, and the claims of its final message that rest only on them.

An explore's answer is an observation of what a child run read, not a fact cast verified: the
child's commands are not the run's commands (a test it saw pass proves nothing about the tree the
report judges), and a file it read is not one the run's model looked at. So the report keeps them
apart: `ExploreRecord` collects each explore's typed result (`Explored`) and the files the run's
own calls read, and `mark` says of a claim that cast could not check, and that names a command or
a file only an explore reported, that it rests on that explore alone. It never turns a claim into a
checked one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cast.agent import events as ev
from cast.agent.claims import Claim, Facts, sentences
from cast.tools.evidence import is_test_command, runs
from cast.tools.results import Explored

_COMMAND = re.compile(r"`(?P<command>[^`]+)` (?:exit_code=-?\d+|not run)")
_PATHLIKE = re.compile(r"`?(?P<path>[\w.-]+(?:/[\w.-]+)*\.\w{1,8})`?")


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


ONLY_EXPLORED = "rests only on an explore's report ({said}): what a subagent saw, not checked by cast"


def mark(claims: list[Claim], record: ExploreRecord, facts: Facts, text: str) -> list[Claim]:
    """`claims` with each unchecked one that names an explore's command or an explore-only file
    said to rest on that explore, and each other sentence of `text` naming a file only an explore
    read added as such a claim."""
    if not record.explored:
        return claims
    commands, files = record.commands(), record.files()
    marked = [_marked(claim, commands, files, facts) for claim in claims]
    seen = {claim.text for claim in marked}
    for sentence in sentences(text):
        if sentence[:200] in seen:
            continue
        path = next((m["path"] for m in _PATHLIKE.finditer(sentence) if _explored_only(m["path"], files)), None)
        if path is not None:
            marked.append(Claim(sentence[:200], "explore", False, ONLY_EXPLORED.format(said=f"it read {path}")))
    return marked


TEST_CLAIMS = ("tests pass", "tests", "success", "verified", "build passes")  # claims a test run would check


def _marked(claim: Claim, commands: list[tuple[str, str]], files: set[str], facts: Facts) -> Claim:
    if claim.checked:
        return claim
    for command, said in commands:
        if facts.last_run(command) is not None:
            continue  # the run itself ran it: the claim's own verdict stands
        named = command in claim.text or any(runs(command, span) for span in _spans(claim.text))
        if named or (claim.kind in TEST_CLAIMS and is_test_command(command)):
            return Claim(claim.text, claim.kind, False, ONLY_EXPLORED.format(said=said))
    path = next((m["path"] for m in _PATHLIKE.finditer(claim.text) if _explored_only(m["path"], files)), None)
    if path is not None:
        return Claim(claim.text, claim.kind, False, ONLY_EXPLORED.format(said=f"it read {path}"))
    return claim


def _spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _explored_only(path: str, files: set[str]) -> bool:
    path = path.removeprefix("./")
    return any(path == f or f.endswith("/" + path) for f in files)
