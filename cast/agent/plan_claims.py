"""A plan run's final message describes the plan it wrote. "Two items, each one verified with
`python3 -m unittest`" or "item 2 adds a test, verified with `pytest -q`" is how the plan means to
check its items, naming the very command the plan names for them, not a check the planner made: the
report (words and --json alike) does not hold it up as an unchecked claim. A sentence in the first
person ("I verified it with `make test`") or naming a command the plan does not name stays a claim."""

from __future__ import annotations

import re
from pathlib import Path

from cast.agent.claims import Claim
from cast.plans.checklist import PlanError, PlanFile
from cast.tools.evidence import item_body, named_checks

PLAN_KINDS = {"verified", "command ran", "item done"}  # what a description of the plan's checks reads as
_ABOUT_THE_PLAN = re.compile(r"\b(?:items?|steps?|tasks?|each|both|plan|checklist)\b", re.IGNORECASE)
_SAID_DONE = re.compile(r"\b(?:I|I've|I'm|we|we've)\b", re.IGNORECASE)
_TICKS = re.compile(r"`([^`]+)`")


def plan_checks(plan: Path) -> set[str]:
    """The commands the plan names as its items' verifications (none when it cannot be read)."""

    try:
        parsed = PlanFile(plan)
        text = plan.read_text(encoding="utf-8", errors="replace")
    except (PlanError, OSError):
        return set()
    return {check for item in parsed.items for check in named_checks(item.text, item_body(text, item.line))}


def describes_plan(claim: Claim, checks: set[str]) -> bool:
    if claim.kind not in PLAN_KINDS or _SAID_DONE.search(claim.text) or not _ABOUT_THE_PLAN.search(claim.text):
        return False
    return any(" ".join(span.split()) in checks for span in _TICKS.findall(claim.text))


def without_plan_description(claims: list[Claim], plan: Path) -> list[Claim]:
    checks = plan_checks(plan)
    return [claim for claim in claims if not describes_plan(claim, checks)] if checks else claims
