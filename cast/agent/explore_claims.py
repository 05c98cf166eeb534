"""Claims that rest only on an explore: a sentence of the model's final message naming a command
only an explore ran, or a file only an explore read, is marked unchecked, with what the subagent
said of it. Apart from the record (explored.py), which watches the whole run, because this reads
the claims (claims.py) and runs only when the report is built.
"""

from __future__ import annotations

import re

from cast.agent.claims import Claim, Facts, sentences
from cast.agent.explored import ExploreRecord
from cast.tools.evidence import is_test_command, runs

_PATHLIKE = re.compile(r"`?(?P<path>[\w.-]+(?:/[\w.-]+)*\.\w{1,8})`?")

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
