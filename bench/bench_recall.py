"""What forgetting costs: the aging settings priced with a model that re-reads what it lost.

bench_cache.py replays a fixed script, so a setting that keeps fewer tool results always looks
cheaper there: its model never pays for what it can no longer see. Here the same mixed 40-step
planning session is answered by a model that decides from the prompt it receives (the fake API's
`responder`, shown the prompt after context edits): some steps *recall* a file read earlier (a
planner cross-checking what it saw), and when that file's last whole read is cleared by the
server or elided by cast in the prompt, the model first reads it again (one more step: its output,
the result written to the cache, every later read of it) and then goes on with the script. Those
steps are charged to cast; the naive agent keeps everything and never re-reads, so its bill is the
plain session's.

The recall pattern is an assumption, stated so it can be argued with: from step 6, every `every`-th
step recalls the file read `d` steps before, d cycling through 3, 5, 8, 13 and 21 (near files more
often than far ones). Rows sweep it from never (bench_cache.py's model) to every second step.
A re-read is also the visible part of forgetting; a model that guesses instead of re-reading is
not measured here.

    python3 bench/bench_recall.py            # the sweep as Markdown tables
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cache  # noqa: E402
from bench_cache import CLIENT_AGING, READ, SONNET, WRITE, run  # noqa: E402
from fakeapi import Turn, text, tool_use  # noqa: E402

DISTANCES = (3, 5, 8, 13, 21)
AGES = (30_000, 40_000, 50_000, 60_000, 80_000)
KEEPS = (2, 3, 4, 6)
RATES = (None, 4, 2)  # recall every n-th step; None: never
SHORTLIST = ((40_000, 2), (40_000, 3), (30_000, 2), (80_000, 6))  # (age, keep): cast's default first
SEEDS = (7, 11, 13)  # other projects: module sizes differ, so batches fall elsewhere


def whole_reads(turn: list[dict[str, Any]]) -> list[str]:
    return [
        b["input"]["path"]
        for b in turn
        if b.get("type") == "tool_use" and b["name"] == "read_file" and "offset" not in b["input"]
    ]


def recalls(turns: list[list[dict[str, Any]]], every: int | None) -> dict[int, str]:
    """Turn index -> the file that turn needs to see again (see the module's docstring)."""
    if every is None:
        return {}
    needs = {}
    for n in range(6, len(turns) - 2, every):
        d = DISTANCES[(n // every) % len(DISTANCES)]
        earlier = [m for m in range(n - d, -1, -1) if whole_reads(turns[m])]
        if earlier:
            needs[n] = whole_reads(turns[earlier[0]])[0]
    return needs


def visible(items: list[Any], path: str) -> bool:
    """Whether the model's prompt still holds a whole read of `path`, uncleared and unelided."""
    ids = {
        it.block["id"]
        for it in items
        if it.kind == "assistant"
        and isinstance(it.block, dict)
        and it.block.get("type") == "tool_use"
        and it.block.get("name") == "read_file"
        and it.block.get("input", {}).get("path") == path
        and "offset" not in it.block.get("input", {})
    }
    for it in items:
        block = it.block
        if it.kind == "user" and isinstance(block, dict) and block.get("tool_use_id") in ids:
            content = block.get("content")
            body = content if isinstance(content, str) else " ".join(c.get("text", "") for c in content or [])
            if not body.startswith(("[cleared]", "[elided: ")):
                return True
    return False


class Recaller:
    """The fake's responder: the scripted turns in order, each preceded by a re-read when the file
    it recalls is no longer in the prompt."""

    def __init__(self, turns: list[list[dict[str, Any]]], every: int | None) -> None:
        self.turns, self.needs = turns, recalls(turns, every)
        self.next = self.rereads = 0

    def __call__(self, items: list[Any]) -> Turn:
        need = self.needs.get(self.next)
        if need is not None and not visible(items, need):
            self.rereads += 1
            blocks = [text(f"I need {need} again."), tool_use(f"toolu_again_{self.rereads:03d}", "read_file", {"path": need})]
        else:
            blocks, self.next = self.turns[self.next], self.next + 1
        return Turn(blocks, output_tokens=len(json.dumps(blocks)) // 4)


def priced(age: int, keep: int, every: int | None, spec: Any) -> tuple[float, int]:
    """(the bill in input-token equivalents, the re-reads it took)."""
    made: list[Recaller] = []

    def responder(turns: list[list[dict[str, Any]]]) -> Recaller:
        made.append(Recaller(turns, every))
        return made[-1]

    row = run("recall", spec, age=age, keep=keep, responder=responder)
    return row.billed, made[0].rereads


def main() -> int:
    never_aged = run("naive", CLIENT_AGING, age=10**9, compact=10**9)
    naive = never_aged.naive
    print(f"Sonnet 5.5's multiples (read {READ}x, write {WRITE}x); bill vs the naive agent, re-reads in brackets.")
    for label, spec in (
        ("server-side clearing in batches (keep = tool uses)", SONNET),
        ("aging on the client (keep = steps)", CLIENT_AGING),
    ):
        for every in RATES:
            print(f"\n{label}; recall: {'never' if every is None else f'every {every} steps'}\n")
            print("| age at \\ keep | " + " | ".join(str(k) for k in KEEPS) + " |\n|---|" + "---|" * len(KEEPS))
            for age in AGES:
                cells = []
                for keep in KEEPS:
                    billed, rereads = priced(age, keep, every, spec)
                    cells.append(f"{billed / naive:.3f}x ({rereads})")
                print(f"| {age // 1000}k | " + " | ".join(cells) + " |", flush=True)
    print(f"\nserver-side clearing, median over projects (seeds {SEEDS}); re-reads per seed in brackets\n")
    print("| age, keep | " + " | ".join(f"recall {'never' if e is None else f'every {e}'}" for e in RATES) + " |")
    print("|---|" + "---|" * len(RATES))
    naives = {}
    for seed in SEEDS:
        bench_cache.SEED = seed
        naives[seed] = run("naive", CLIENT_AGING, age=10**9, compact=10**9).naive
    for age, keep in SHORTLIST:
        cells = []
        for every in RATES:
            found = []
            for seed in SEEDS:
                bench_cache.SEED = seed
                billed, rereads = priced(age, keep, every, SONNET)
                found.append((billed / naives[seed], rereads))
            cells.append(f"{statistics.median(r for r, _ in found):.3f}x ({', '.join(str(n) for _, n in found)})")
        print(f"| {age // 1000}k, {keep} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
