"""Test counts from a command's output, read from each test runner's own closing lines.

A tick, a claim ("47 passing") and the report rest on what the runner printed, so the counts must
come from its closing lines, not from the exit code alone. Every runner is one row of `RUNNERS`:
the patterns of its closing report, how the numbers in it are worded, and lines counted one by one
where the runner prints no totals (go's `--- PASS:`, TAP's `ok 1`). The counts use one vocabulary
(`KEYS`, pytest's words); a runner that prints only a total and its failures gets `passed` as
what is left. Where the output holds several runners' reports (`pytest && npm test`) or one
runner's several reports (cargo's per-binary lines, Maven's per-module totals), they all count.
Output no row recognises gives no counts: the exit code alone speaks for it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["KEYS", "RUNNERS", "Runner", "parse_test_counts"]

KEYS = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed", "deselected")
_WITHIN = ("failed", "errors", "skipped", "xfailed", "xpassed")  # what a printed total holds besides passes

NUMBER_WORD = r"(?P<n>\d+) (?P<w>[a-z][a-z ]*[a-z])"  # "3 passed", "1 timed out"
WORD_NUMBER = r"(?P<w>[A-Za-z][A-Za-z ]*)(?:=|: +)(?P<n>\d+)"  # "failures=1", "Failures: 1"


@dataclass(frozen=True)
class Runner:
    """One runner's closing lines. Each match of `summary` is one report: its named groups
    (`total` or a key of `KEYS`) are counts, and the `pair` matches in its `body` group (or the
    whole match) are `(number, word)` with `words` naming the key. `tallies` count lines (a key
    per pattern); a runner with a summary counts them only where a summary was found. `within` is
    what a printed total holds besides passes; `yields_to` names runners whose report, when
    present, already counts the same tests."""

    name: str
    summary: tuple[str, ...] = ()
    pair: str = NUMBER_WORD
    words: Mapping[str, str] = field(default_factory=dict)
    tallies: tuple[tuple[str, str], ...] = ()
    within: tuple[str, ...] = _WITHIN
    yields_to: tuple[str, ...] = ()


_PYTEST_WORDS = {w: w for w in KEYS} | {"error": "errors"}

RUNNERS: tuple[Runner, ...] = (
    Runner(
        "pytest",
        (
            r"^=+ (?P<body>[^=\n]*?\b(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b[^=\n]*?)"
            r" in [\d.]+s\b[^=\n]*=+$",
            r"^(?P<body>\d+ (?:passed|failed)\b[^\n]*)$",  # -q, and plain "12 passed, 0 failed"
        ),
        words=_PYTEST_WORDS,
    ),
    Runner(
        "unittest",
        (r"^Ran (?P<total>\d+) tests? in [\d.]+s *\n *\n(?:OK|FAILED)(?: \((?P<body>[^)\n]*)\))?",),
        WORD_NUMBER,
        {
            "failures": "failed",
            "errors": "errors",
            "skipped": "skipped",
            "expected failures": "xfailed",
            "unexpected successes": "xpassed",
        },
    ),
    Runner(
        "mocha",
        (r"^ *(?P<passed>\d+) passing \([^)\n]*\)\n(?: *(?P<skipped>\d+) pending\n?)?(?: *(?P<failed>\d+) failing)?",),
    ),
    Runner(
        "jest",
        (r"^Tests: +(?P<body>[^\n]*\d+ total)$",),
        words={"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped", "total": "total"},
    ),
    Runner(
        "vitest",
        (r"^ *Tests +(?P<body>\d+ [a-z]+(?: \| \d+ [a-z]+)*) \((?P<total>\d+)\)",),
        words={"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped"},
    ),
    Runner(
        "node",  # node --test: TAP's "# pass 3" by default, the spec reporter's "ℹ pass 3"
        (r"^(?P<m>[#ℹ]) tests (?P<total>\d+)\n(?P<body>(?:(?P=m) \w+ [\d.]+\n?)+)",),
        r"(?P<w>pass|fail|cancelled|skipped|todo) (?P<n>\d+)",
        {"pass": "passed", "fail": "failed", "cancelled": "failed", "skipped": "skipped", "todo": "skipped"},
    ),
    Runner(
        "go",  # go test -v; without -v only failures are named, and only they count
        tallies=((r"^--- PASS: ", "passed"), (r"^--- FAIL: ", "failed"), (r"^--- SKIP: ", "skipped")),
    ),
    Runner(
        "cargo",
        (r"^test result: (?:ok|FAILED)\. (?P<body>[^\n]*)$",),
        words={"passed": "passed", "failed": "failed", "ignored": "skipped"},
    ),
    Runner(
        "nextest",
        (r"^ *Summary \[ *[\d.]+s\] +\d+ tests? run: (?P<body>[^\n]*)$",),
        words={"passed": "passed", "failed": "failed", "skipped": "skipped", "timed out": "failed", "exec failed": "errors"},
    ),
    Runner(
        "ctest",  # a skipped test counts among ctest's "passed"; its list of tests that did not run names them
        (r"^\d+% tests passed, (?P<failed>\d+) tests? failed out of (?P<total>\d+)$",),
        tallies=((r"^\s+\d+ - .+ \(Skipped\)$", "skipped"),),
    ),
    Runner(
        "rspec",  # errors outside of examples are not among the examples
        (
            r"^(?P<total>\d+) examples?, (?P<failed>\d+) failures?(?:, (?P<skipped>\d+) pending)?"
            r"(?:, (?P<errors>\d+) errors? occurred outside of examples)?$",
        ),
        within=("failed", "skipped"),
    ),
    Runner(
        "minitest",
        (r"^(?P<total>\d+) runs, \d+ assertions, (?P<failed>\d+) failures, (?P<errors>\d+) errors, (?P<skipped>\d+) skips$",),
    ),
    Runner(
        "phpunit",
        (r"^OK \((?P<total>\d+) tests?, \d+ assertions?\)$", r"^Tests: (?P<total>\d+), Assertions: \d+(?P<body>[^\n]*)\.$"),
        WORD_NUMBER,
        {"Failures": "failed", "Errors": "errors", "Skipped": "skipped", "Incomplete": "skipped"},
    ),
    Runner(
        "maven",  # Surefire/Failsafe's totals; the per-class lines go on with ", Time elapsed"
        (
            r"^(?:\[(?:INFO|ERROR|WARNING)\] )?Tests run: (?P<total>\d+), Failures: (?P<failed>\d+), "
            r"Errors: (?P<errors>\d+), Skipped: (?P<skipped>\d+)(?:, Flakes: \d+)?$",
        ),
    ),
    Runner("gradle", (r"^(?P<total>\d+) tests? completed, (?P<body>[^\n]*)$",), words={"failed": "failed", "skipped": "skipped"}),
    Runner(
        "dotnet",
        (
            r"^(?:Passed|Failed)! +- Failed: +(?P<failed>\d+), Passed: +(?P<passed>\d+), Skipped: +(?P<skipped>\d+), Total: +\d+",
            r"^Test run summary: [^\n]*\n +total: \d+\n +failed: (?P<failed>\d+)\n +succeeded: (?P<passed>\d+)\n"
            r" +skipped: (?P<skipped>\d+)",
        ),
    ),
    Runner(
        "bats",  # the pretty formatter on a terminal
        (r"^(?P<total>\d+) tests?, (?P<body>\d+ failures?[^\n]*)$",),
        words={"failure": "failed", "failures": "failed", "skipped": "skipped", "not run": "skipped"},
    ),
    Runner(
        "tap",  # bats (and prove) through a pipe: a plan line, then one line per test
        (r"^1\.\.\d+$",),
        tallies=(
            (r"^ok \d+\b(?!.*# (?:skip|SKIP))", "passed"),
            (r"^ok \d+\b.*# (?:skip|SKIP)", "skipped"),
            (r"^not ok \d+\b(?!.*# TODO)", "failed"),
            (r"^not ok \d+\b.*# TODO", "xfailed"),
        ),
        yields_to=("node",),
    ),
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _report(runner: Runner, match: re.Match[str]) -> dict[str, int]:
    counts = {k: int(v) for k, v in match.groupdict().items() if v is not None and (k in KEYS or k == "total")}
    body = match.group("body") if "body" in match.re.groupindex else match.group(0)
    for pair in re.finditer(runner.pair, body or ""):
        key = runner.words.get(pair.group("w").strip())
        if key is not None:
            counts[key] = counts.get(key, 0) + int(pair.group("n"))
    return counts


def _counts(runner: Runner, text: str) -> dict[str, int] | None:
    """This runner's counts in `text`, summed over its reports; None when it is not there."""
    reports = [m for pattern in runner.summary for m in re.finditer(pattern, text, re.M)]
    if runner.summary and not reports:
        return None
    counts: dict[str, int] = {}
    for match in reports:
        for key, number in _report(runner, match).items():
            counts[key] = counts.get(key, 0) + number
    tallied = {key: len(re.findall(pattern, text, re.M)) for pattern, key in runner.tallies}
    if not reports and not any(tallied.values()):
        return None
    for key, number in tallied.items():
        if number:
            counts[key] = counts.get(key, 0) + number
    total = counts.pop("total", None)
    if total is not None and "passed" not in counts:
        counts["passed"] = max(0, total - sum(counts.get(k, 0) for k in runner.within))
    return counts


def parse_test_counts(output: str) -> dict[str, int]:
    """Counts from every runner whose closing lines `output` holds, in `KEYS` order; {} for none."""
    if not output:  # a command with no output (most proven ones) is spared every runner's patterns
        return {}
    text = _ANSI.sub("", output.replace("\r\n", "\n"))
    found: dict[str, dict[str, int]] = {}
    for runner in RUNNERS:
        counts = _counts(runner, text)
        if counts is not None:
            found[runner.name] = counts
    for runner in RUNNERS:
        if runner.name in found and any(other in found for other in runner.yields_to):
            del found[runner.name]
    merged: dict[str, int] = {}
    for counts in found.values():
        for key, number in counts.items():
            merged[key] = merged.get(key, 0) + number
    return {key: merged[key] for key in KEYS if key in merged}
