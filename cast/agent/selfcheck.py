"""The self-check: when the executor says it is done, is it, and what does its message claim?

Models stop early: an item skipped, a failing test run taken for a passing one. Asking the model
"are you sure?" mostly gets "yes". So the facts decide first — the plan file's unticked items on
disk (or the plan gone), each test command's last run as cast observed it. Each time the executor
ends its turn, one short model call sees the task, the plan, the steps actually executed (tool
names and their observed summaries, not the model's account of them) and the final message, and
answers with structured output (`Request.output_schema`): whether anything is missing, and the
factual claims the final message makes, each with what it rests on, for the report to check
against the observations (claims.py). A reply that is not the expected JSON counts as "unknown":
a confused verdict must not keep a run going, and the report still checks claims by its own rules.

It sends the executor back at most once per run: the next completion is accepted (and checked
for claims). That bounds the cost, and a model that still disagrees after being told what is
missing is better reported (see report.py) than argued with. The check is a side call: its JSON
is never part of the conversation or shown as the model's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cast.agent import events as ev
from cast.agent.claims import CLAIMS_SCHEMA
from cast.agent.context import ask
from cast.agent.observed import Observations, PlanState
from cast.agent.transcript import final_text, text_block
from cast.models import base as m
from cast.text import call_label, clip, plural
from cast.tools.evidence import Ledger

PLAN_CHARS = 8_000
STEPS_SHOWN = 80

VERDICT_SYSTEM = """\
You check whether a coding agent has finished its task. You get the task, the plan it was
executing, the steps it actually executed (tool calls with the results cast observed), and its final
message. Judge from the executed steps, not from the final message's claims. Answer in the JSON
schema given: "complete" is true when the task is done; "missing" lists short, concrete things
still to do (empty when complete); "claims" lists every factual claim the final message makes
about tests, commands, files or plan items, each with what it rests on ("tests", "command",
"file", "item", or "nothing"), "ref" (the command line, file path or item number; "all" for every
item) and what it "says" (passed, failed, ran, changed, done). List claims as the message makes
them, true or not: cast checks each against what it observed."""
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "complete": {"type": "boolean"},
        "missing": {"type": "array", "items": {"type": "string"}},
        "claims": CLAIMS_SCHEMA,
    },
    "required": ["complete", "missing", "claims"],
    "additionalProperties": False,
}


@dataclass
class Verdict:
    complete: bool | None  # None: unknown (invalid reply or the call failed)
    missing: list[str] = field(default_factory=list)
    source: str = ""  # facts, model, invalid, error
    claims: list[dict[str, Any]] = field(default_factory=list)  # as the model listed them, unchecked


def parse_verdict(text: str) -> Verdict:
    """Strict shape, lenient framing: the first JSON object in the reply (fences and stray prose
    around it tolerated) must have a boolean `complete`; `missing` must be a list of strings."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            data, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict) or not isinstance(data.get("complete"), bool):
            continue
        missing = data.get("missing", [])
        if not isinstance(missing, list):
            missing = []
        claims = data.get("claims", [])
        claims = [c for c in claims if isinstance(c, dict)] if isinstance(claims, list) else []
        return Verdict(data["complete"], [str(x).strip() for x in missing if str(x).strip()], "model", claims)
    return Verdict(None, [], "invalid")


class SelfCheck:
    """`Hooks.on_finish` for execute mode. Feed it every loop event with `observe`."""

    def __init__(
        self,
        model: m.Model,
        *,
        task: str,
        plan_path: Path | None = None,
        on_usage: Callable[[m.Usage, str], None] | None = None,
        max_tokens: int = 0,  # 0: the provider picks per model (thinking counts toward max_tokens)
        ledger: Ledger | None = None,  # the run's one ledger, fed by the run; None: keep and feed one
    ):
        self.model = model
        self.task = task
        self.plan_path = Path(plan_path) if plan_path else None
        self.on_usage = on_usage
        self.max_tokens = max_tokens
        self.ledger = ledger
        self.obs = Observations(ledger)
        self.plan = PlanState(self.plan_path)  # kept across runs: it is what the file last said
        self.verdict: Verdict | None = None
        self.checked_text: str | None = None  # the final message the last model call looked at
        self._executed: list[str] = []
        self._sent_back = False

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted) and event.step == 1:
            self.reset()  # a new run of the agent: the once-per-run budget starts again
        self.obs.observe(event)
        self.plan.observe(event)
        if isinstance(event, ev.ToolResult):
            label = call_label(event.name, event.input, limit=120) if event.input is not None else event.name
            self._executed.append(f"{label} -> {'ok' if event.ok else 'FAILED'}: {event.summary}")

    def reset(self) -> None:
        self.obs = Observations(self.ledger)  # a shared ledger is read from here on
        self.verdict, self.checked_text = None, None
        self._executed, self._sent_back = [], False

    # -- deterministic facts ----------------------------------------------------------------
    def facts(self) -> list[str]:
        """What is provably missing: unticked plan items the executor did not mark blocked (as
        last read, if the plan file has gone), and a last test run that failed."""
        open_items = [i for i in self.plan.read() if not i.checked and self.obs.tasks.get(i.number) != "blocked"]
        missing = []
        if self.plan.lost and open_items:
            listed = "; ".join(f"{i.number}. {i.text!r}" for i in open_items)
            missing.append(
                f"The plan file {self.plan_path} is {self.plan.lost}; {plural(len(open_items), 'item')} {'was' if len(open_items) == 1 else 'were'} unfinished "
                f"when it was last read: {listed}. Items cannot be ticked until the file is back."
            )
        else:
            missing += [f"Plan item {i.number} is not ticked: {i.text!r}" for i in open_items]
        for run in self.obs.failing_tests():
            missing.append(f"The last test run failed: {run.describe()}")
        return missing

    def claims_for(self, text: str) -> list[dict[str, Any]] | None:
        """The claims the model listed in `text`, if the last check looked at exactly that."""
        if self.verdict is None or self.checked_text is None or self.checked_text.strip() != text.strip():
            return None
        return self.verdict.claims

    # -- the hook -------------------------------------------------------------------------------
    def __call__(self, agent: Any) -> str | None:
        final = final_text(agent.transcript.messages)
        verdict = self._ask_model(final)
        self.checked_text = final
        if self._sent_back:
            self.verdict = verdict
            return None
        missing = self.facts()
        if missing:
            self.verdict = Verdict(False, missing, "facts", verdict.claims)
        else:
            self.verdict = verdict
            if verdict.complete is not False:
                return None
            missing = verdict.missing or [
                "the check found the task unfinished without naming what; compare the plan with what you did"
            ]
        self._sent_back = True
        lines = "\n".join(f"- {entry}" for entry in missing)
        return (
            "[cast self-check: the task is not finished yet.]\n" + lines + "\n"
            "Finish what is missing (call update_task for each item as you complete it). If something "
            "cannot be done, mark it blocked with update_task and a note saying why. Then reply with "
            "your summary."
        )

    def _ask_model(self, final: str) -> Verdict:
        plan = ""
        if self.plan_path:
            try:
                plan = self.plan_path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                plan = "(the plan file could not be read)"
        steps = self._executed[-STEPS_SHOWN:]
        skipped = len(self._executed) - len(steps)
        tests = self.obs.last_test()
        failing = self.obs.failing_tests()
        body = "\n\n".join(
            [
                f"# Task\n{self.task or '(not given)'}",
                f"# Plan\n{clip(plan, PLAN_CHARS)}" if plan else "# Plan\n(none)",
                "# Steps executed\n"
                + (f"({plural(skipped, 'earlier step')} not shown)\n" if skipped else "")
                + ("\n".join(f"{n}. {s}" for n, s in enumerate(steps, skipped + 1)) or "(none)"),
                "# Last test run\n"
                + (tests.describe() if tests else "none observed")
                + "".join(f"\nFailing on its last run: {run.describe()}" for run in failing if run is not tests),
                f"# Final message\n{clip(final, 4_000) or '(empty)'}",
            ]
        )
        request = m.Request(
            VERDICT_SYSTEM, (), ({"role": "user", "content": [text_block(body)]},), self.max_tokens, output_schema=VERDICT_SCHEMA
        )
        try:
            text, usage = ask(self.model, request)
        except m.ModelError:
            return Verdict(None, [], "error")
        if self.on_usage:
            self.on_usage(usage, "self-check")
        return parse_verdict(text)
