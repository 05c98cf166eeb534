"""Claims in the model's final message, each checked against what cast observed.

Wording is endless ("tests pass", "pytest reports 3 passed", "the suite is green now", "✅ all
good"), so matching phrases cannot be the whole answer. The self-check's one structured-output
request asks the model to list the factual claims in its final message, each with what it rests
on (a command, a file, an item); cast then checks each against the observations, never against
the model's say-so. A small deterministic layer runs as well, so the common cases are caught
with the scripted model, with a model that lists nothing, and with one that lists selectively:
when both layers speak of one sentence, the stricter verdict stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cast.text import plural
from cast.tools.evidence import CommandRun, normal, runs

CLAIM_KINDS = ("tests", "command", "file", "item", "explore", "nothing")  # explore: what a subagent reported
CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "Every factual claim in the final message about tests, commands, files or plan items.",
    "items": {
        "type": "object",
        "properties": {
            "claim": {"type": "string", "description": "The claim, quoted or closely paraphrased."},
            "rests_on": {"type": "string", "enum": list(CLAIM_KINDS)},
            "ref": {
                "type": "string",
                "description": 'The command line, file path or item number ("all" for every item); empty if none.',
            },
            "says": {"type": "string", "enum": ["passed", "failed", "ran", "changed", "done"]},
        },
        "required": ["claim", "rests_on", "ref", "says"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True)
class Claim:
    text: str
    kind: str
    checked: bool
    evidence: str


@dataclass
class Facts:
    """What claims are checked against."""

    commands: list[CommandRun] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    done: dict[int, str] = field(default_factory=dict)  # item number -> text, ticked
    left: dict[int, str] = field(default_factory=dict)
    plan_lost: str = ""
    unsupported: dict[int, str] = field(default_factory=dict)  # item number -> what its tick lacked

    def last_test(self) -> CommandRun | None:
        return next((c for c in reversed(self.commands) if c.is_test and c.outcome != "declined"), None)

    def last_run(self, command: str) -> CommandRun | None:
        return next((c for c in reversed(self.commands) if runs(c.command, command.strip("`"))), None)


Verdict = tuple[bool, str]
_COUNTS = re.compile(r"\b(\d+)\s+(?:tests?\s+|unit tests?\s+)?(passed|passing|pass|failed|failing|errors?)\b", re.IGNORECASE)
_RAN = re.compile(r"\bran\s+(\d+)\s+tests?\b", re.IGNORECASE)


def _counts_agree(text: str, run: CommandRun) -> str:
    """'' when the numbers a claim quotes ("3 passed", "ran 3 tests") are the run's; else why not."""
    for number, word in _COUNTS.findall(text):
        key = "passed" if word.lower().startswith("pass") else ("failed" if word.lower().startswith("fail") else "errors")
        if key in run.tests and run.tests[key] != int(number):
            return f"the last run reported {run.tests[key]} {key}, not {number}"
        if key not in run.tests and int(number) and (run.tests or key == "passed"):
            return f"the last run reported no count of {key}"
    ran = _RAN.search(text)
    if ran and run.tests and sum(run.tests.values()) != int(ran[1]):
        return f"the last run counted {plural(sum(run.tests.values()), 'test')}, not {ran[1]}"
    return ""


def tests_pass(facts: Facts, text: str, command: str = "") -> Verdict:
    run = facts.last_run(command) if command else facts.last_test()
    if run is None:
        return False, f"`{command}` was not run" if command else "no test command was run"
    if not run.passed:
        return False, f"the last test run {run.describe()}" if not command else f"its last run {run.describe()}"
    wrong = _counts_agree(text, run)
    if wrong:
        return False, wrong
    failing = [c for c in _last_per_command(facts.commands) if c.is_test and not c.passed and c is not run]
    if failing and not command:
        return False, f"the last run of {failing[-1].describe()}"
    return True, f"the last test run {run.describe()}"


def _last_per_command(runs: list[CommandRun]) -> list[CommandRun]:
    last: dict[str, CommandRun] = {}
    for run in runs:
        if run.outcome != "declined":
            last[normal(run.command)] = run
    return list(last.values())


def all_done(facts: Facts) -> Verdict:
    if facts.plan_lost:
        return False, f"the plan file is {facts.plan_lost}"
    if facts.left:
        return False, f"{len(facts.left)} plan item{'s' * (len(facts.left) != 1)} still unticked"
    if facts.unsupported:
        n = min(facts.unsupported)
        return False, f"item {n} was ticked without evidence ({facts.unsupported[n]})"
    return (True, "no plan items are left") if facts.done else (False, "there is no plan checklist to have done")


_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


def counted_done(facts: Facts, match: re.Match[str]) -> Verdict:
    """ "All three items are done", "2 tasks complete": the number must be the plan's."""
    word = match["n"].lower()
    said = int(word) if word.isdigit() else _NUMBERS.get(word, -1)
    total, done = len(facts.done) + len(facts.left), len(facts.done)
    if match["all"]:
        if said != total:
            return False, f"the plan has {total} item{'s' * (total != 1)}, not {said}"
        return all_done(facts)
    if said > done:
        return False, f"{done} plan item{'s' * (done != 1)} {'is' if done == 1 else 'are'} ticked, not {said}"
    return True, f"{done} of {plural(total, 'plan item')} {'is' if done == 1 else 'are'} ticked"


def success(facts: Facts, text: str) -> Verdict:
    ok, why = tests_pass(facts, text)
    if not ok:
        return ok, why
    if facts.done or facts.left or facts.plan_lost:
        done, left = all_done(facts)
        if not done:
            return done, left
        return True, f"{why}, and no plan items are left"
    return ok, why


def file_changed(facts: Facts, path: str) -> Verdict:
    path = path.strip("`'\" ").removeprefix("./")
    hit = next((p for p in facts.changed if path and (p == path or p.endswith("/" + path))), None)
    return (True, f"{hit} was changed in this run") if hit else (False, f"no observed change to {path}")


def item_done(facts: Facts, ref: str) -> Verdict:
    if ref.strip().lower() in ("all", "every", "both", "*", ""):
        return all_done(facts)
    number = re.search(r"\d+", ref)
    if not number:
        return False, f"no plan item {ref!r}"
    n = int(number[0])
    if n in facts.done:
        if facts.plan_lost:
            return False, f"item {n} is ticked but the plan file is {facts.plan_lost}"
        if n in facts.unsupported:
            return False, f"item {n} was ticked without evidence ({facts.unsupported[n]})"
        return True, f"item {n} is ticked"
    return False, f"item {n} is not ticked" if n in facts.left else f"the plan has no item {n}"


def command_claim(facts: Facts, text: str, ref: str, says: str) -> Verdict:
    run = facts.last_run(ref) if ref else None
    if run is None:
        return False, f"no command `{normal(ref)}` was observed" if ref else "it names no command"
    if run.outcome == "declined":
        return False, f"{run.describe()}: it did not run"
    if says == "failed":
        return (not run.passed), run.describe()
    if says == "passed" or (says != "ran" and run.is_test):
        if not run.passed:
            return False, run.describe()
        wrong = _counts_agree(text, run)
        return (False, wrong) if wrong else (True, run.describe())
    return True, run.describe()


# -- the model's list -----------------------------------------------------------------------------
def check_listed(listed: list[dict[str, Any]], facts: Facts) -> list[Claim]:
    claims = []
    for entry in listed:
        if not isinstance(entry, dict) or not str(entry.get("claim", "")).strip():
            continue
        text, kind = " ".join(str(entry["claim"]).split())[:200], str(entry.get("rests_on", "nothing"))
        ref, says = str(entry.get("ref", "") or ""), str(entry.get("says", "") or "")
        if kind == "tests":
            ok, why = (
                command_claim(facts, text, ref, "failed")
                if says == "failed"
                else tests_pass(facts, text, ref if facts.last_run(ref) else "")
            )
        elif kind == "command":
            ok, why = command_claim(facts, text, ref, says)
        elif kind == "file":
            ok, why = file_changed(facts, ref)
        elif kind == "item":
            ok, why = item_done(facts, ref)
        elif kind == "explore":
            ok, why = False, "rests on an explore's report: what a subagent saw, not checked by cast"
        else:
            ok, why = False, "it rests on nothing cast observed"
        claims.append(Claim(text, kind, ok, why))
    return claims


# -- the deterministic layer ----------------------------------------------------------------------
NEGATION = re.compile(r"\b(?:not|never|cannot|unable|fail(?:s|ed|ing|ures?)?|broken|red)\b|n't\b", re.IGNORECASE)
_HARMLESS = re.compile(
    r"\b(?:0|zero|no)\s+(?:failed|failures?|errors?|failing)\b|\bwithout\s+(?:any\s+)?(?:failures?|errors?)\b", re.IGNORECASE
)
_PATH = r"`?(?P<path>[\w.-]+(?:/[\w.-]+)*\.\w{1,8})`?"
_CMD = r"`(?P<cmd>[^`]+)`"
Rule = Callable[[Facts, "re.Match[str]", str], Verdict]

RULES: tuple[tuple[str, re.Pattern[str], Rule], ...] = (
    (
        "tests pass",
        re.compile(
            r"\b(?:tests?|test\s+suite|suite|specs?|test\s+run)\b[^.\n;]{0,40}?\b(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?|ok)\b"
            r"|\b\d+\s+(?:tests?\s+)?(?:passed|passing)\b|\bran\s+\d+\s+tests?\b"
            r"|\b(?:pytest|unittest|jest|vitest|tox|go test|cargo test|npm test)\b[^.\n;]{0,40}?\b(?:pass(?:es|ed)?|green|ok|succeed(?:s|ed)?)\b",
            re.IGNORECASE,
        ),
        lambda f, m, s: tests_pass(f, s, _test_command_in(s, f)),
    ),
    (
        "success",
        re.compile(
            r"✅|✔|\ball\s+(?:good|green|set)\b|\b(?:everything|it all)\s+(?:works|passes|is\s+(?:fine|good|green|working|done))\b"
            r"|\bworks\s+(?:now|as expected)\b",
            re.IGNORECASE,
        ),
        lambda f, m, s: success(f, s),
    ),
    (
        "command ran",
        re.compile(r"\b(?:ran|run|running|executed)\s+" + _CMD, re.IGNORECASE),
        lambda f, m, s: command_claim(f, s, m["cmd"], "ran"),
    ),
    (
        "verified",
        re.compile(
            r"\b(?:verified|confirmed|double-checked|checked that)\b(?:[^.\n]*?\b(?:with|by running|running|using|via)\s+"
            + _CMD
            + ")?",
            re.IGNORECASE,
        ),
        lambda f, m, s: command_claim(f, s, m["cmd"], "passed") if m["cmd"] else _verified(f),
    ),
    (
        "file changed",
        re.compile(
            r"\b(?:updated|modified|edited|changed|created|added|wrote|fixed)\s+(?:the\s+file\s+|file\s+)?" + _PATH, re.IGNORECASE
        ),
        lambda f, m, s: file_changed(f, m["path"]),
    ),
    (
        "build passes",
        re.compile(
            r"\b(?:build|lint(?:ing|er)?|type[- ]?check(?:s|ing)?|mypy|ruff)\b[^.\n]*?\b(?:pass(?:es|ed)?|succeed(?:s|ed)?|clean|green)\b",
            re.IGNORECASE,
        ),
        lambda f, m, s: _built(f),
    ),
    (
        "items done",
        re.compile(
            r"\b(?P<all>all\s+(?:of\s+)?(?:the\s+)?)?(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
            r"\s+(?:plan\s+|checklist\s+)?(?:items?|tasks?|steps?)\b[^.\n]*?\b(?:done|complete(?:d)?|finished|ticked)\b",
            re.IGNORECASE,
        ),
        lambda f, m, s: counted_done(f, m),
    ),
    (
        "all items done",
        re.compile(
            r"\b(?:all|both|every)\s+(?:the\s+|of the\s+)?(?:plan\s+|checklist\s+)?(?:items?|tasks?|steps?)\b[^.\n]*?\b(?:done|complete(?:d)?|finished|ticked)\b",
            re.IGNORECASE,
        ),
        lambda f, m, s: all_done(f),
    ),
    (
        "item done",
        re.compile(r"\bitem\s+(?P<n>\d+)\b[^.\n]*?\b(?:done|complete(?:d)?|finished|ticked|verified)\b", re.IGNORECASE),
        lambda f, m, s: item_done(f, m["n"]),
    ),
)
BUILD_COMMAND = re.compile(r"\b(?:build|make|compile|lint|ruff|flake8|mypy|pyright|tsc|eslint|cargo check|go vet)\b")


def _test_command_in(sentence: str, facts: Facts) -> str:
    """A backticked test command the sentence names and cast saw run, if any."""
    for span in re.findall(r"`([^`]+)`", sentence):
        run = facts.last_run(span)
        if run is not None and run.is_test:
            return str(span)
    return ""


def _verified(facts: Facts) -> Verdict:
    good = [c for c in facts.commands if c.passed]
    if not good:
        return False, "no command was run that could verify it"
    last = facts.last_test()
    if last is not None and not last.passed:
        return False, f"the last test run {last.describe()}"
    return True, f"{len(good)} command(s) exited 0, last {good[-1].describe()}"


def _built(facts: Facts) -> Verdict:
    runs = [c for c in facts.commands if BUILD_COMMAND.search(c.command) and c.outcome != "declined"]
    if not runs:
        return False, "no build or lint command was run"
    return runs[-1].passed, runs[-1].describe()


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+|;\s+", text)
    return [re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", p).strip() for p in parts if p.strip()]


_PLANNED = re.compile(r"\b(?:each|to be|will be|would be|should be|must be|can be|is to be|are to be|gets?)\s+$", re.IGNORECASE)


def check_text(text: str, facts: Facts) -> list[Claim]:
    claims = []
    for sentence in sentences(text):
        if NEGATION.search(_HARMLESS.sub("", sentence)):
            continue
        for kind, pattern, rule in RULES:
            match = pattern.search(sentence)
            if match and kind == "verified" and _PLANNED.search(sentence[: match.start()]):
                continue  # "each verified with `make test`": how a plan means to check, not a check made
            if match:
                ok, why = rule(facts, match, sentence)
                claims.append(Claim(sentence[:200], kind, ok, why))
    return claims


def _key(text: str) -> str:
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def check_claims(text: str, facts: Facts, listed: list[dict[str, Any]] | None = None) -> list[Claim]:
    """Both layers: the model's list checked against facts, then the deterministic rules; a
    sentence both speak of keeps the stricter verdict."""
    claims = check_listed(listed or [], facts)
    for found in check_text(text, facts):
        same = next(
            (c for c in claims if _key(c.text) and (_key(c.text) in _key(found.text) or _key(found.text) in _key(c.text))), None
        )
        if same is None:
            claims.append(found)
        elif same.checked and not found.checked:
            claims[claims.index(same)] = Claim(same.text, same.kind, False, found.evidence)
    return claims
