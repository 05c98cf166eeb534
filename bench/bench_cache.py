"""What prompt caching does to the cost of a 40-step planning session.

Replays a scripted planning session (list, grep, ~45 file reads, write_plan) through cast's real
Anthropic provider and the real SDK, against the fake Messages API from tests/fakeapi.py, and
records the request bodies cast actually sent (cache_control breakpoints included). Then prices
them the way prompt caching does:

- each request is flattened into its blocks in cache order (tools, system, messages), ~chars/4
  tokens each;
- at each cache_control breakpoint the API looks back (up to 20 blocks) for the longest prefix a
  previous request cached: those tokens are a cache read (0.1x);
- the rest of the prefix up to the last breakpoint is newly cached: a cache write (1.25x); every
  breakpoint prefix of at least 1024 tokens becomes readable for later requests;
- whatever follows the last breakpoint is plain input (1x);

and compares that with sending the same requests uncached (1x). The same meter answers the
usage numbers in the fake replies, so cast's own estimate of its context size is realistic.
Input tokens only (output is the same either way); the 5-minute cache lifetime is not modelled
(a replay has no pauses).

Rows: a mixed planning session (listing, greps, whole and partial reads, a sentence of reasoning
per turn) with cast's defaults and with aging off; a read-heavy one (~45 whole files) with the
defaults, with aging forced early (20k tokens) in epochs, and with aging on every step (no epochs).

    python3 bench/bench_cache.py          # prints a Markdown table and the headline ratios

Why the ratio to "the same requests uncached" rises when aging starts: aging shrinks the requests,
so it shrinks that ratio's denominator faster than the bill (every epoch rewrites the cache from
its first change on). The absolute bill (billed column) is what aging lowers; the mixed rows show
both, and the last two rows show why aging must come in epochs.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from fakeapi import FakeAPI, Recorded, Stream, message_events, text, tool_use  # noqa: E402

from cast.agent import events as ev  # noqa: E402
from cast.agent.context import ContextEconomy  # noqa: E402
from cast.agent.loop import Agent, Hooks  # noqa: E402
from cast.config import Config  # noqa: E402
from cast.models.anthropic import AnthropicModel  # noqa: E402
from cast.modes import PLAN, system_prompt  # noqa: E402
from cast.tools.base import ToolContext  # noqa: E402
from cast.workspace import Workspace  # noqa: E402

TARGET = 0.2
READ, WRITE = 0.1, 1.25
MIN_CACHEABLE = 1024  # tokens; shorter prefixes are not cached
LOOKBACK = 20  # blocks the API checks before each breakpoint
STEPS = 40


# -- the cache meter --------------------------------------------------------------------------
def _strip(block: Any) -> Any:
    return {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block


def flatten(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(serialized block without its marker, carries a breakpoint) in cache order."""
    out: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        out.append((json.dumps(_strip(tool), sort_keys=True), "cache_control" in tool))
    system = body.get("system") or []
    for block in ([{"type": "text", "text": system}] if isinstance(system, str) else system):
        out.append((json.dumps(["system", _strip(block)], sort_keys=True), "cache_control" in block))
    for message in body.get("messages", []):
        content = message["content"]
        for block in ([{"type": "text", "text": content}] if isinstance(content, str) else content):
            marked = isinstance(block, dict) and "cache_control" in block
            out.append((json.dumps([message["role"], _strip(block)], sort_keys=True), marked))
    return out


@dataclass
class Charge:
    total: int
    read: int
    write: int
    plain: int


@dataclass
class CacheMeter:
    cached: set[str] = field(default_factory=set)
    charges: list[Charge] = field(default_factory=list)

    def charge(self, body: dict[str, Any]) -> Charge:
        blocks = flatten(body)
        hashes, tokens, digest, total = [], [], hashlib.sha256(), 0
        for serialized, _ in blocks:
            digest.update(serialized.encode())
            hashes.append(digest.copy().hexdigest())
            total += len(serialized) // 4
            tokens.append(total)
        marks = [i for i, (_, marked) in enumerate(blocks) if marked]
        read = 0
        for mark in marks:
            for j in range(mark, max(-1, mark - LOOKBACK), -1):
                if hashes[j] in self.cached:
                    read = max(read, tokens[j])
                    break
        prefix = tokens[marks[-1]] if marks else 0
        write = max(0, prefix - read) if prefix >= MIN_CACHEABLE else 0
        for mark in marks:
            if tokens[mark] >= MIN_CACHEABLE:
                self.cached.add(hashes[mark])
        result = Charge(total, read, write, total - read - write)
        self.charges.append(result)
        return result


class MeteredAPI(FakeAPI):
    """The fake Messages API answering a scripted session, with usage from the cache meter.
    A request without tools is a compaction summary call and gets a summary."""

    def __init__(self, turns: list[list[dict[str, Any]]]):
        super().__init__()
        self.turns = turns
        self.position = 0
        self.meter = CacheMeter()

    def _handle(self, handler: Any) -> None:
        raw = handler.rfile.read(int(handler.headers.get("content-length") or 0))
        body = json.loads(raw)
        with self.lock:
            self.requests.append(Recorded(handler.path, {k.lower(): v for k, v in handler.headers.items()}, body, raw))
            c = self.meter.charge(body)
            if body.get("tools"):
                blocks = self.turns[min(self.position, len(self.turns) - 1)]
                self.position += 1
            else:
                blocks = [text("## Done\n- explored the code\n## Open\n- write the plan")]
        usage = {"input_tokens": c.plain, "cache_read_input_tokens": c.read, "cache_creation_input_tokens": c.write}
        self._send_stream(handler, Stream(message_events(*blocks, usage=usage, output_tokens=120, chunk=4096)))


# -- the session --------------------------------------------------------------------------------
def make_workspace(root: Path) -> list[str]:
    """A deterministic Python project: 48 modules of 2-16 KB and an AGENTS.md."""
    rng = random.Random(7)
    words = ["config", "session", "parse", "render", "token", "cache", "request", "reply", "plan", "item",
             "path", "tool", "event", "usage", "model", "stream", "error", "retry", "limit", "state"]
    files = []
    for n in range(48):
        lines = [f'"""Module {n}: {" ".join(rng.sample(words, 6))}."""', "from __future__ import annotations", ""]
        size = rng.choice([2_000, 3_000, 4_000, 5_000, 6_000, 8_000, 11_000, 16_000])
        while sum(len(line) + 1 for line in lines) < size:
            name = "_".join(rng.sample(words, 2))
            lines += [f"def {name}_{len(lines)}({rng.choice(words)}: str, {rng.choice(words)}: int = 0) -> str:",
                      f'    """{" ".join(rng.sample(words, 8)).capitalize()}."""',
                      f"    if {rng.choice(words)} > {rng.randint(0, 99)}:",
                      f"        return {rng.choice(words)}.{rng.choice(words)}({rng.randint(0, 9)})",
                      f"    return f'{{{rng.choice(words)}}}-{rng.choice(words)}'", ""]
        path = root / "src" / f"mod_{n:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        files.append(f"src/mod_{n:02d}.py")
    (root / "AGENTS.md").write_text("# Project notes\n" + "".join(
        f"- Rule {i}: keep {rng.choice(words)} handling in src/, test with pytest -q.\n" for i in range(40)))
    return files


THOUGHTS = [
    "The caching helpers are spread over several modules; I need to see how they call each other.",
    "This one parses the config and hands a state object on; the retry limit is read here.",
    "Good: the stream functions only use the cache through two entry points.",
    "I still need to know where the usage numbers are rendered before I can plan the change.",
]


def script(files: list[str], heavy: bool = False) -> list[list[dict[str, Any]]]:
    """40 model turns. Mixed (what a planner does): a listing, greps, ~28 whole-file reads (some
    two at a time), a few partial reads, a sentence of reasoning each turn, then write_plan.
    Heavy: ~45 whole files and no greps, the read-heaviest session a 40-step plan could be."""
    turns: list[list[dict[str, Any]]] = [
        [text("Let me look at the layout."), tool_use("toolu_000", "list_files", {})],
        [text("And the project notes."), tool_use("toolu_001", "read_file", {"path": "AGENTS.md"})],
    ]
    queue = list(files)
    greps = ["def cache_", "retry", "def usage_", "limit: int", "stream_", "def plan_", "token", "error_model"]
    while len(turns) < STEPS - 2:
        n = len(turns)
        say = text(THOUGHTS[n % len(THOUGHTS)] + " " + THOUGHTS[(n + 1) % len(THOUGHTS)])
        if not heavy and n % 4 == 2 and greps:
            turns.append([say, tool_use(f"toolu_{n:03d}", "grep", {"pattern": greps.pop(0), "path": "src"})])
        elif not heavy and n % 9 == 5:
            turns.append([say, tool_use(f"toolu_{n:03d}", "read_file", {"path": files[n], "offset": 20, "limit": 60})])
        else:
            batch = [queue.pop(0)] + ([queue.pop(0)] if n % 3 == 0 and queue else [])
            turns.append([say] + [tool_use(f"toolu_{n:03d}_{k}", "read_file", {"path": p}) for k, p in enumerate(batch)])
    checklist = "\n".join(f"- [ ] Update `{p}`; verify with `pytest -q`" for p in files[:8])
    turns.append([text("I have what I need."), tool_use(f"toolu_{STEPS - 2:03d}", "write_plan",
                  {"name": "plan", "content": f"# Plan: refactor caching\n\n{checklist}\n"})])
    turns.append([text("The plan is written: 8 steps, each verified with pytest -q.")])
    return turns


@dataclass
class Row:
    label: str
    requests: int
    uncached: int
    read: int
    write: int
    plain: int
    epochs: int
    compactions: int

    @property
    def billed(self) -> float:
        """Input cost in token-equivalents at the base input price."""
        return self.read * READ + self.write * WRITE + self.plain

    @property
    def ratio(self) -> float:
        return self.billed / self.uncached

    def markdown(self) -> str:
        return (f"| {self.label} | {self.requests} | {self.uncached:,} | {self.read:,} | {self.write:,} | "
                f"{self.plain:,} | {self.epochs}/{self.compactions} | {self.billed:,.0f} | **{self.ratio:.3f}x** |")


HEADER = ("| session | requests | input tokens | cache read (0.1x) | cache write (1.25x) | plain (1x) "
          "| epochs/compactions | billed (token-eq.) | vs same requests uncached |\n|---|---|---|---|---|---|---|---|---|")


def run(label: str, config: Config, *, heavy: bool = False, min_batch: int | None = None) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # no personal AGENTS.md
        files = make_workspace(root)
        api = MeteredAPI(script(files, heavy)).start()
        try:
            model = AnthropicModel(config.model, config, api_key="bench", base_url=api.url)
            economy = ContextEconomy.from_config(config, model, min_batch_tokens=min_batch, reinject=lambda: "")
            workspace = Workspace(root)
            ctx = ToolContext(workspace=workspace, task="refactor caching", services={"session_id": "2026-01-01-bench"})
            agent = Agent(model=model, tools=PLAN.tools, system=system_prompt(workspace), ctx=ctx,
                          max_steps=STEPS + 5, hooks=Hooks(prepare=economy))
            stop = None
            for event in agent.run("Plan a refactor of the caching helpers across src/."):
                economy.observe(event)
                if isinstance(event, ev.Stopped):
                    stop = event
            assert stop is not None and stop.status == "done", stop
            assert api.position == STEPS, f"{api.position} of {STEPS} scripted turns used"
        finally:
            api.stop()
        bodies = [r.body for r in api.requests]
    assert all("cache_control" in json.dumps(body) for body in bodies), "a request went without cache breakpoints"
    meter = CacheMeter()  # re-price the captured requests from scratch
    charges = [meter.charge(body) for body in bodies]
    return Row(label, len(bodies), sum(c.total for c in charges), sum(c.read for c in charges),
               sum(c.write for c in charges), sum(c.plain for c in charges), economy.epochs, economy.compactions)


def main() -> int:
    base = Config()
    off = replace(base, age_threshold_tokens=10**9, compact_threshold_tokens=10**9)
    early = replace(base, age_threshold_tokens=20_000, compact_threshold_tokens=60_000)
    rows = [
        run("mixed plan session, defaults (age 80k, compact 150k)", base),
        run("mixed, no aging", off),
        run("read-heavy plan session, defaults", base, heavy=True),
        run("read-heavy, aging at 20k tokens in epochs", early, heavy=True),
        run("read-heavy, aging at 20k tokens every step (no epochs)", early, heavy=True, min_batch=0),
    ]
    print(HEADER)
    for row in rows:
        print(row.markdown())
    cast, naive = rows[0], rows[1]
    print(f"\ncast, mixed 40-step plan session, defaults: {cast.ratio:.3f}x the same requests uncached "
          f"(target <= {TARGET}x: {'met' if cast.ratio <= TARGET else 'not met'}); "
          f"{cast.billed / naive.uncached:.3f}x a session without caching or aging; "
          f"{cast.billed / naive.billed:.3f}x the same session cached but never aged.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
