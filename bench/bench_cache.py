"""What prompt caching, aging and mode switches cost a planning session at today's prices.

Replays a scripted planning session (list, grep, file reads, write_plan) through cast's real run
assembly (runs.py), its Anthropic provider and the real SDK, against the strict fake Messages API
from tests/fakeapi.py (which checks every request as today's API does, thinking prefixes
included), and bills it from the usage the fake reports: its emulated prompt caching. The
`CacheMeter` below re-prices the same requests independently, as a cross-check:

- each request is flattened into its blocks in cache order (tools, system, messages), ~chars/4
  tokens each;
- at each cache_control breakpoint the API looks back (up to 20 blocks) for the longest prefix a
  previous request cached: those tokens are a cache read;
- the rest of the prefix up to the last breakpoint is newly cached: a cache write; every
  breakpoint prefix of at least the model's minimum (512 tokens on Sonnet 5.5) becomes readable;
- whatever follows the last breakpoint is plain input (1x).

Prices are Claude Sonnet 5.5's, as multiples of its input price: cache read 0.05x, 5-minute cache
write 1.25x, output 5x (the 5-minute lifetime is not modelled: a replay has no pauses). The bill
counts input and output, so a summary call is paid for in full.

Rows: a mixed planning session as a naive agent would send it (no caching, no aging), cached but
never aged, and with cast's defaults on a model without server-side context editing (client
aging past 40k tokens keeping 2 steps, which switches the conversation to drop_block) and on Sonnet 5.5 as it is
(server-side context editing, cleared in batches: cast/models/clearing.py); a read-heavy session with
aging forced early (20k tokens) in epochs and on every step. Then the mode switch: the mixed
session followed by 12 execute-mode steps, switched three ways: with mid-conversation tool
changes (nothing sent changes; Claude Opus 5, the fake's model with that beta, billed at the same
multiples), by declaring the new tools with drop_block (every message kept), and by a fresh
conversation from a summary (compaction into the new mode). Last, the mixed session's figure per
model family: the same tokens at each family's multiples (docs/context-and-cost.md).

    python3 bench/bench_cache.py          # prints Markdown tables and the headline ratios
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent))

from fakeapi import FakeAPI, text, tool_use

from cast import runs
from cast.agent import events as ev
from cast.config import Config
from cast.models.anthropic import AnthropicModel
from cast.models.catalog import builtin

READ, WRITE, OUTPUT = 0.05, 1.25, 5.0  # Sonnet 5.5, times its input price
MIN_CACHEABLE = 512  # tokens; shorter prefixes are not cached (Sonnet 5.5)
LOOKBACK = 20  # blocks the API checks before each breakpoint
STEPS = 40
EXECUTE_STEPS = 12
DEFAULTS = Config()  # cast's aging settings, as a user gets them
AGE, KEEP = f"{DEFAULTS.age_threshold_tokens // 1000}k", DEFAULTS.keep_recent_steps
SONNET = builtin("claude-sonnet-5-5")
assert SONNET is not None
CLIENT_AGING = replace(SONNET, context_management=False)  # cast ages the context itself
OPUS5 = builtin("claude-opus-5")  # a model with mid-conversation tool changes (billed at the same multiples)
assert OPUS5 is not None
TOOL_CHANGES = replace(OPUS5, context_management=False)
SUMMARY = (
    "## Done\n"
    + "".join(f"- read src/mod_{n:02d}.py: its helpers call the cache through two entry points\n" for n in range(40))
    + "## Decisions\n- keep the cache API; move the retry limit into config\n## Open\n- write the changes\n"
)


# -- the cache meter --------------------------------------------------------------------------
def _strip(block: Any) -> Any:
    return {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block


def flatten(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(serialized block without its marker, carries a breakpoint) in cache order."""
    out: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        out.append((json.dumps(_strip(tool), sort_keys=True), "cache_control" in tool))
    system = body.get("system") or []
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        out.append((json.dumps(["system", _strip(block)], sort_keys=True), "cache_control" in block))
    for message in body.get("messages", []):
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
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


# -- the session --------------------------------------------------------------------------------
SEED = 7  # the project's; other seeds give other module sizes, for checking a figure is not a fluke


def make_workspace(root: Path) -> list[str]:
    """A deterministic Python project: 48 modules of 2-16 KB and an AGENTS.md."""
    rng = random.Random(SEED)
    words = [
        "config",
        "session",
        "parse",
        "render",
        "token",
        "cache",
        "request",
        "reply",
        "plan",
        "item",
        "path",
        "tool",
        "event",
        "usage",
        "model",
        "stream",
        "error",
        "retry",
        "limit",
        "state",
    ]
    files = []
    for n in range(48):
        lines = [f'"""Module {n}: {" ".join(rng.sample(words, 6))}."""', "from __future__ import annotations", ""]
        size = rng.choice([2_000, 3_000, 4_000, 5_000, 6_000, 8_000, 11_000, 16_000])
        while sum(len(line) + 1 for line in lines) < size:
            name = "_".join(rng.sample(words, 2))
            lines += [
                f"def {name}_{len(lines)}({rng.choice(words)}: str, {rng.choice(words)}: int = 0) -> str:",
                f'    """{" ".join(rng.sample(words, 8)).capitalize()}."""',
                f"    if {rng.choice(words)} > {rng.randint(0, 99)}:",
                f"        return {rng.choice(words)}.{rng.choice(words)}({rng.randint(0, 9)})",
                f"    return f'{{{rng.choice(words)}}}-{rng.choice(words)}'",
                "",
            ]
        path = root / "src" / f"mod_{n:02d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        files.append(f"src/mod_{n:02d}.py")
    (root / "AGENTS.md").write_text(
        "# Project notes\n"
        + "".join(f"- Rule {i}: keep {rng.choice(words)} handling in src/, test with pytest -q.\n" for i in range(40))
    )
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
    turns.append(
        [
            text("I have what I need."),
            tool_use(
                f"toolu_{STEPS - 2:03d}", "write_plan", {"name": "plan", "content": f"# Plan: refactor caching\n\n{checklist}\n"}
            ),
        ]
    )
    turns.append([text("The plan is written: 8 steps, each verified with pytest -q.")])
    return turns


def execute_script(files: list[str]) -> list[list[dict[str, Any]]]:
    """12 execute-mode steps after the switch: re-read files the change touches, then report."""
    turns = [
        [text("Checking the module before changing it."), tool_use(f"toolu_x{n:02d}", "read_file", {"path": files[n]})]
        for n in range(EXECUTE_STEPS)
    ]
    return turns + [[text("Checked the first modules; ready to edit.")]]


@dataclass
class Row:
    label: str
    requests: int
    read: int
    write: int
    plain: int
    output: int
    epochs: int = 0
    compactions: int = 0
    kept: str = ""  # what the model still sees after a mode switch
    meter: float = 0.0  # the same requests billed by CacheMeter, as a cross-check of the fake

    @property
    def input(self) -> int:
        return self.read + self.write + self.plain

    @property
    def billed(self) -> float:
        """Cost in token-equivalents at the base input price."""
        return self.read * READ + self.write * WRITE + self.plain + self.output * OUTPUT

    @property
    def naive(self) -> float:
        """The same requests with no caching."""
        return self.input + self.output * OUTPUT

    def markdown(self, naive: float) -> str:
        return (
            f"| {self.label} | {self.requests} | {self.input:,} | {self.read:,} | {self.write:,} | {self.plain:,} | "
            f"{self.output:,} | {self.epochs}/{self.compactions} | {self.billed:,.0f} | {self.meter:,.0f} | "
            f"**{self.billed / naive:.3f}x** |"
        )


# Per model family, as multiples of its input price: cache read, 5-minute cache write, output
# (https://platform.claude.com/docs/en/build-with-claude/prompt-caching: reads 0.1x, except 0.05x on
# Opus 5.5 and Sonnet 5.5 and 0.025x on Fable/Mythos 5.1 and 5.2; writes 1.25x; output from each
# model's list price). The token counts are the mixed session's, replayed once on Sonnet 5.5's
# cache minimum (512 tokens, which every prefix here passes).
FAMILIES = {
    "Sonnet 5.5, Opus 5.5": (0.05, 1.25, 5.0),
    "Fable / Mythos 5.1 and 5.2": (0.025, 1.25, 5.0),
    "Haiku 5.5, Sonnet 5, Opus 5, Opus 4.x, Sonnet 4.6, Haiku 4.5": (0.1, 1.25, 5.0),
}
FAMILY_HEADER = (
    "\n| model family | cache read / write / output | mixed 40-step session: server-side editing in batches "
    "| aging on the client | cached, never aged |\n|---|---|---|---|---|"
)

HEADER = (
    "| session | requests | input tokens | cache read (0.05x) | cache write (1.25x) | plain (1x) | output (5x) "
    "| epochs/compactions | billed (input-token eq.) | CacheMeter's bill | vs naive agent |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|"
)


def run(
    label: str,
    spec: Any,
    *,
    heavy: bool = False,
    age: int = DEFAULTS.age_threshold_tokens,
    compact: int = DEFAULTS.compact_threshold_tokens,
    keep: int = DEFAULTS.keep_recent_steps,
    min_batch: int | None = None,
    switch: str = "",
    responder: Callable[[list[list[dict[str, Any]]]], Callable[[list[Any]], Any]] | None = None,
) -> Row:
    """One session through runs.plan_run; `switch` ("changes", "drop_block", "fresh") adds the
    switch to execute mode and the execute steps. `responder`, given the scripted turns, returns the
    fake API's responder: a model that answers from what it sees instead of replaying them."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # no personal AGENTS.md
        files = make_workspace(root)
        (root / ".cast" / "config.toml").parent.mkdir(exist_ok=True)
        (root / ".cast" / "config.toml").write_text(
            f"age_threshold_tokens = {age}\ncompact_threshold_tokens = {compact}\nkeep_recent_steps = {keep}\n"
        )
        turns = script(files, heavy)
        if switch:
            turns += ([[text(SUMMARY)]] if switch == "fresh" else []) + execute_script(files)
        api = FakeAPI().start()
        if responder is not None:
            api.responder = responder(turns)
        for blocks in turns if responder is None else []:
            api.reply(*blocks, output_tokens=len(json.dumps(blocks)) // 4)
        try:
            options = runs.Options(cwd=root, max_steps=2 * STEPS, yes=True)
            _, config = runs.setup(options)
            model = AnthropicModel(spec.id, config, api_key="bench", base_url=api.url)
            model.spec = spec  # type: ignore[attr-defined]  # the capabilities this row assumes
            plan = runs.plan_run("refactor caching", options, model=model)
            assert plan.economy is not None
            if min_batch is not None:
                plan.economy.min_batch = min_batch
            stops = [_drive(plan, "Plan a refactor of the caching helpers across src/.")]
            kept = ""
            if switch:
                before = [json.dumps(m, sort_keys=True) for m in plan.agent.transcript.messages]
                if switch == "fresh":
                    plan.economy.force()  # the next request starts a new conversation from a summary
                plan.switch("execute")
                mark = len(api.requests)
                stops.append(_drive(plan, "Now execute: check the first modules of the plan."))
                after = next(r.body for r in api.requests[mark:] if r.body.get("tools"))["messages"]
                sent = {json.dumps(_unmarked(m), sort_keys=True) for m in after}
                kept = f"{sum(m in sent for m in before)} of {len(before)} messages"
            plan.outcome()
            assert all(stop.status == "done" for stop in stops), stops
            assert not api.responses, f"{len(api.responses)} scripted turns left unused"
            assert all(r.status == 200 for r in api.requests), [r.error for r in api.requests if r.status != 200]
        finally:
            api.stop()
        assert plan.usage is not None
        total = plan.usage.total()
        meter = CacheMeter()
        checked = [meter.charge(r.body) for r in api.requests]
        row = Row(
            label,
            len(api.requests),
            total.cache_read_tokens,
            total.cache_write_tokens,
            total.input_tokens,
            total.output_tokens,
            plan.economy.epochs,
            plan.economy.compactions,
            kept,
        )
        row.meter = sum(c.read * READ + c.write * WRITE + c.plain for c in checked) + row.output * OUTPUT
        return row


def family_bill(row: Row, read: float, write: float, output: float) -> float:
    """`row`'s tokens at another family's multiples of its input price."""
    return row.read * read + row.write * write + row.plain + row.output * output


def _unmarked(message: dict[str, Any]) -> dict[str, Any]:
    content = message["content"]
    return {**message, "content": [_strip(b) for b in content] if isinstance(content, list) else content}


def _drive(run_: runs.Run, text_: str) -> ev.Stopped:
    stop = None
    for event in run_.agent.run(text_):
        if isinstance(event, ev.Stopped):
            stop = event
    assert stop is not None
    return stop


def main() -> int:
    no_aging = {"age": 10**9, "compact": 10**9}
    cached = run("mixed plan session, cached, never aged", CLIENT_AGING, **no_aging)
    naive = cached.naive
    rows = [
        replace(
            cached,
            label="mixed plan session, naive agent (no caching, no aging)",
            read=0,
            write=0,
            plain=cached.input,
            meter=naive,
        ),
        cached,
        run(f"mixed, cast defaults without server-side editing (age {AGE}, keep {KEEP} steps)", CLIENT_AGING),
        run(f"mixed, cast defaults with server-side context editing (cleared in batches past {AGE}, keep {KEEP})", SONNET),
        run("read-heavy plan session, cast defaults", CLIENT_AGING, heavy=True),
        run("read-heavy, aging at 20k tokens in epochs", CLIENT_AGING, heavy=True, age=20_000, compact=60_000),
        run(
            "read-heavy, aging at 20k tokens every step (no epochs)",
            CLIENT_AGING,
            heavy=True,
            age=20_000,
            compact=60_000,
            min_batch=0,
        ),
    ]
    print(HEADER)
    for row in rows:
        print(row.markdown(naive))
    switches = [
        run("switch with tool changes (nothing sent changes)", TOOL_CHANGES, switch="changes"),
        run("switch by new tools + drop_block (cast's choice)", CLIENT_AGING, switch="drop_block"),
        run("switch to a fresh conversation from a summary", CLIENT_AGING, switch="fresh"),
    ]
    print(
        "\n| plan session, then switch to execute and 12 steps | requests | billed (input-token eq.) | vs tool changes "
        "| the model still sees after the switch |\n|---|---|---|---|---|"
    )
    for row in switches:
        print(f"| {row.label} | {row.requests} | {row.billed:,.0f} | {row.billed / switches[0].billed:.2f}x | {row.kept} |")
    print(
        f"\nmixed 40-step plan session: cast costs {rows[3].billed / naive:.3f}x a naive agent with server-side "
        f"context editing (Sonnet 5.5's default), {rows[2].billed / naive:.3f}x aging on the client, "
        f"{rows[1].billed / naive:.3f}x cached without aging."
    )
    print(FAMILY_HEADER)
    for family, (read, write, output) in FAMILIES.items():
        base = cached.input + cached.output * output
        server, client, never = (family_bill(r, read, write, output) / base for r in (rows[3], rows[2], rows[1]))
        print(f"| {family} | {read:g}x / {write:g}x / {output:g}x | **{server:.3f}x** | {client:.3f}x | {never:.3f}x |")
    fresh, dropped = switches[2], switches[1]
    print(
        f"mode switch without tool changes: drop_block costs {dropped.billed / fresh.billed:.2f}x a fresh conversation "
        f"and keeps {dropped.kept} against {fresh.kept}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
