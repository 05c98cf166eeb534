"""What explore costs and saves a read-heavy planning session.

The same session three ways, through cast's real run assembly (runs.py: the explore extension, the
usage book), its Anthropic provider, against the strict fake Messages API from tests/fakeapi.py
(which checks every request as today's API does and reports usage from its emulated prompt cache),
on bench_cache.py's 48-module project. Two questions, the same 18 files read to answer them:

- without explore: the planner (Sonnet 5.5) lists, greps and reads all 18 files itself, then
  reads the 3 that matter again where it plans from them, and writes the plan;
- with explore: the planner lists, asks both questions as two explores in one turn (run at once),
  each child greps and reads its 9 files and answers in ~1.2k characters, then the planner reads the
  3 files that matter and writes the plan; children on the cheapest current model the Models API
  offers (Haiku 5.5), and again on the planner's own model (Sonnet 5.5).

Reported: the planner's final transcript (characters, and the tokens of its last request), the
whole bill at list prices (planner plus children, from the run's one usage book, every call priced
at its own model's rates), steps and requests.

    python3 bench/bench_explore.py        # prints a Markdown table and the headline ratios
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_cache import make_workspace
from fakeapi import FakeAPI, text, tool_use

from cast import runs
from cast.agent import events as ev
from cast.models.anthropic import AnthropicModel

PLANNER = "claude-sonnet-5-5"
QUESTIONS = (
    "Where do the modules call the cache helpers, and through which entry points?",
    "How does the retry limit flow from the config to the stream functions?",
)
MATTERS = 3  # files the plan rests on, read by the planner itself either way


def answer(files: list[str]) -> str:
    """A child's final message: findings with paths and lines, as the explore prompt asks."""
    lines = [f"- `{path}:{12 + 7 * n}` calls `cache_{n}` through the shared entry point; see lines {12 + 7 * n}-{20 + 7 * n}."
             for n, path in enumerate(files)]  # fmt: skip
    return "Found it.\n" + "\n".join(lines) + f"\nThe ones that matter for the change: {', '.join(files[:2])}."


def reply(api: FakeAPI, conversation: str, *blocks: dict[str, Any]) -> None:
    api.reply_to(conversation, *blocks, output_tokens=len(json.dumps(blocks)) // 4)


def script_without(api: FakeAPI, files: list[str]) -> None:
    say = text("Reading on; I need to see how these modules use the cache before planning.")
    reply(api, "parent", text("The layout first."), tool_use("toolu_p00", "list_files", {}))
    reply(api, "parent", say, tool_use("toolu_p01", "grep", {"pattern": "def cache_", "path": "src"}))
    reply(api, "parent", say, tool_use("toolu_p02", "grep", {"pattern": "retry", "path": "src"}))
    for n in range(0, len(files), 2):
        pair = files[n : n + 2]
        reply(api, "parent", say, *(tool_use(f"toolu_p1{n:02d}_{k}", "read_file", {"path": p}) for k, p in enumerate(pair)))
    for n, path in enumerate(files[:MATTERS]):
        reply(api, "parent", say, tool_use(f"toolu_p3{n}", "read_file", {"path": path, "offset": 1, "limit": 80}))
    finish(api, files)


def script_with(api: FakeAPI, files: list[str]) -> None:
    reply(api, "parent", text("The layout first."), tool_use("toolu_p00", "list_files", {}))
    reply(
        api,
        "parent",
        text("Two questions that each need many files: explores."),
        *(tool_use(f"toolu_e{k}", "explore", {"task": question}) for k, question in enumerate(QUESTIONS)),
    )
    halves = (files[: len(files) // 2], files[len(files) // 2 :])
    for question, mine in zip(QUESTIONS, halves):
        reply(api, question, tool_use("toolu_c00", "grep", {"pattern": "def cache_|retry", "path": "src"}))
        for n in range(0, len(mine), 2):
            reply(
                api,
                question,
                *(tool_use(f"toolu_c1{n:02d}_{k}", "read_file", {"path": p}) for k, p in enumerate(mine[n : n + 2])),
            )
        reply(api, question, text(answer(mine)))
    say = text("The explores point at these; reading the lines the plan rests on.")
    for n, path in enumerate(files[:MATTERS]):
        reply(api, "parent", say, tool_use(f"toolu_p3{n}", "read_file", {"path": path, "offset": 1, "limit": 80}))
    finish(api, files)


def finish(api: FakeAPI, files: list[str]) -> None:
    checklist = "\n".join(f"- [ ] Route `{p}` through the cache entry point; verify with `pytest -q`" for p in files[:MATTERS])
    plan = {"name": "plan", "content": f"# Plan: one cache entry point\n\n{checklist}\n"}
    reply(api, "parent", text("I have what I need."), tool_use("toolu_p90", "write_plan", plan))
    reply(api, "parent", text("The plan is written: 3 steps, each verified with pytest -q."))


@dataclass
class Row:
    label: str
    steps: int
    child_steps: int
    requests: int
    transcript_chars: int
    last_prompt: int
    input_tokens: int
    cost: float

    def markdown(self, base: Row) -> str:
        return (
            f"| {self.label} | {self.steps} | {self.child_steps} | {self.requests} | {self.transcript_chars:,} "
            f"| {self.last_prompt:,} | {self.input_tokens:,} | ${self.cost:.4f} | **{self.cost / base.cost:.2f}x** |"
        )


def conversation(body: dict[str, Any]) -> str:
    first = body["messages"][0]["content"]
    said = first if isinstance(first, str) else first[0].get("text", "")
    return said if said in QUESTIONS else "parent"


def run(label: str, explore: str | None) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        for var, where in (("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache")):
            os.environ[var] = str(Path(tmp) / where)
        files = make_workspace(root)[:18]
        api = FakeAPI().start()
        api.serve_models()  # the Models API: the cheapest current model is found there
        api.route = conversation
        os.environ.update(ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="bench")
        if explore is None:
            script_without(api, files)
            os.environ.pop("CAST_EXPLORE_MODEL", None)
        else:
            script_with(api, files)
            os.environ["CAST_EXPLORE_MODEL"] = explore  # "" : the default, the cheapest one offered
        try:
            options = runs.Options(cwd=root, max_steps=80, yes=True)
            _, config = runs.setup(options)
            model = AnthropicModel(PLANNER, config, api_key="bench", base_url=api.url)
            plan = runs.plan_run("one cache entry point", options, model=model)
            steps = 0
            for event in plan.agent.run("Plan routing every module through one cache entry point."):
                if isinstance(event, ev.Stopped):
                    assert event.status == "done", event.reason
                    steps = event.steps
            plan.close()
            assert all(not queue for queue in api.routed.values()), "scripted turns left unused"
            assert all(r.status == 200 for r in api.requests), [r.error for r in api.requests if r.status != 200]
        finally:
            api.stop()
        assert plan.usage is not None
        parent = [r for r in plan.usage.records if not r.agent]
        children = plan.usage.subagents()
        cost = plan.usage.cost()
        assert cost is not None
        child_requests = sum(row["calls"] for row in children.values())
        return Row(
            label,
            steps,
            child_requests,
            len(api.requests),
            plan.agent.transcript.chars,
            parent[-1].context_tokens,
            plan.usage.total().prompt_tokens,
            cost,
        )


HEADER = (
    "| session (18 files read for 2 questions) | planner steps | child steps | requests | planner's final transcript "
    "(chars) | planner's last prompt (tokens) | input tokens, all calls | bill, planner + children | vs no explore |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def main() -> int:
    rows = [
        run("without explore: the planner reads everything", None),
        run("with explore: 2 children at once, cheapest model (default)", ""),
        run(f"with explore: 2 children at once on the planner's model ({PLANNER})", PLANNER),
    ]
    print(HEADER)
    for row in rows:
        print(row.markdown(rows[0]))
    base, cheap, same = rows
    print(
        f"\nexplore on the default model: the planner's final transcript is {cheap.transcript_chars / base.transcript_chars:.2f}x, "
        f"its last prompt {cheap.last_prompt / base.last_prompt:.2f}x and the whole bill {cheap.cost / base.cost:.2f}x "
        f"of reading everything itself; with the children on the planner's model the bill is {same.cost / base.cost:.2f}x."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
