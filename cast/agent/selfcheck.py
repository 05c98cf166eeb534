"""The self-check: when the executor says it is done, is it?

Models stop early: an item skipped, a failing test run taken for a passing one. Asking the model
"are you sure?" mostly gets "yes". So the check looks at facts first — the plan file's unticked
items on disk, the exit code of the last test run cast observed — and only when those show
nothing missing does it spend one short model call, which sees the task, the plan and the steps
actually executed (tool names and their observed summaries, not the model's account of them) and
answers in strict JSON. A reply that is not the expected JSON counts as "unknown" and ends the
check: a confused verdict must not keep a run going.

It runs at most once per run: if it sends the executor back, the next completion is accepted.
That bounds the cost, and a model that still disagrees after being told what is missing is better
reported (see report.py) than argued with.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cast.agent import events as ev
from cast.agent.context import ask
from cast.agent.report import Observations, PlanState, final_text
from cast.agent.transcript import text_block
from cast.models import base as m
from cast.text import call_label, clip

PLAN_CHARS = 8_000
STEPS_SHOWN = 80

VERDICT_SYSTEM = """\
You check whether a coding agent has finished its task. You get the task, the plan it was
executing, the steps it actually executed (tool calls with the results cast observed), and its final
message. Judge from the executed steps, not from the final message's claims. Reply with JSON only,
no prose and no code fence: {"complete": true, "missing": []} when the task is done, or
{"complete": false, "missing": ["<short, concrete thing still to do>", ...]} when it is not."""


@dataclass
class Verdict:
    complete: bool | None  # None: unknown (invalid reply or the call failed)
    missing: list[str] = field(default_factory=list)
    source: str = ""  # facts, model, invalid, error


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
        return Verdict(data["complete"], [str(x).strip() for x in missing if str(x).strip()], "model")
    return Verdict(None, [], "invalid")


class SelfCheck:
    """`Hooks.on_finish` for execute mode. Feed it every loop event with `observe`."""

    def __init__(self, model: m.Model, *, task: str, plan_path: Path | None = None,
                 on_usage: Callable[[m.Usage, str], None] | None = None, max_tokens: int = 512):
        self.model = model
        self.task = task
        self.plan_path = Path(plan_path) if plan_path else None
        self.on_usage = on_usage
        self.max_tokens = max_tokens
        self.obs = Observations()
        self.plan = PlanState(self.plan_path)  # kept across runs: it is what the file last said
        self.verdict: Verdict | None = None
        self._calls: dict[str, str] = {}
        self._executed: list[str] = []
        self._sent_back = False

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, ev.StepStarted) and event.step == 1:
            self.reset()  # a new run of the agent: the once-per-run budget starts again
        self.obs.observe(event)
        self.plan.observe(event)
        if isinstance(event, ev.ToolCall):
            self._calls[event.id] = call_label(event.name, event.input, limit=120)
        elif isinstance(event, ev.ToolResult):
            label = self._calls.get(event.id, event.name)
            self._executed.append(f"{label} -> {'ok' if event.ok else 'FAILED'}: {event.summary}")

    def reset(self) -> None:
        self.obs = Observations()
        self.verdict = None
        self._calls, self._executed, self._sent_back = {}, [], False

    # -- deterministic facts ----------------------------------------------------------------
    def facts(self) -> list[str]:
        """What is provably missing: unticked plan items the executor did not mark blocked (as
        last read, if the plan file has gone), and a last test run that failed."""
        open_items = [i for i in self.plan.read() if not i.checked and self.obs.tasks.get(i.number) != "blocked"]
        missing = []
        if self.plan.lost and open_items:
            listed = "; ".join(f"{i.number}. {i.text!r}" for i in open_items)
            missing.append(
                f"The plan file {self.plan_path} is {self.plan.lost}; {len(open_items)} items were unfinished "
                f"when it was last read: {listed}. Items cannot be ticked until the file is back."
            )
        else:
            missing += [f"Plan item {i.number} is not ticked: {i.text!r}" for i in open_items]
        last = self.obs.last_test()
        if last is not None and not last.passed:
            missing.append(f"The last test run failed: {last.describe()}")
        return missing

    # -- the hook -------------------------------------------------------------------------------
    def __call__(self, agent: Any) -> str | None:
        if self._sent_back:
            return None
        missing = self.facts()
        if missing:
            self.verdict = Verdict(False, missing, "facts")
        else:
            self.verdict = self._ask_model(final_text(agent.transcript.messages))
            if self.verdict.complete is not False:
                return None
            missing = self.verdict.missing or ["the check found the task unfinished without naming what; compare the plan with what you did"]
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
        body = "\n\n".join([
            f"# Task\n{self.task or '(not given)'}",
            f"# Plan\n{clip(plan, PLAN_CHARS)}" if plan else "# Plan\n(none)",
            "# Steps executed\n" + (f"({skipped} earlier steps not shown)\n" if skipped else "")
            + ("\n".join(f"{n}. {s}" for n, s in enumerate(steps, skipped + 1)) or "(none)"),
            "# Last test run\n" + (tests.describe() if tests else "none observed"),
            f"# Final message\n{clip(final, 4_000) or '(empty)'}",
        ])
        request = m.Request(VERDICT_SYSTEM, (), ({"role": "user", "content": [text_block(body)]},), self.max_tokens)
        try:
            text, usage = ask(self.model, request)
        except m.ModelError:
            return Verdict(None, [], "error")
        if self.on_usage:
            self.on_usage(usage, "self-check")
        return parse_verdict(text)
