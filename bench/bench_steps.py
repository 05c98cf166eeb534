"""The harness's own cost per step, early and late in a long session.

A plan run is built the way `cast plan` builds it (session journal, usage log, evidence report,
context economy, read tracking) and driven by an instant model: it answers each request at once
with one `read_file` of the next of 1,200 small files (~1.5 KB each; none read twice), so nothing but cast's own work
is timed. The run goes 1,100 steps: the context passes the aging threshold and is compacted on
the way, as a real long session would. Per-step time is the median gap between consecutive
`StepStarted` events in a window of 50 steps around step 100 and around step 1,000 (the mean
is printed too: it shows the rare steps that age or compact the context).

    python3 bench/bench_steps.py          # prints a Markdown row per window and the ratio

Target: under 3 ms a step at both, and the ratio of the two under 1.5 (the cost of a step must
not grow with the session).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cast.agent import events as ev
from cast.models import base as m
from cast.models.scripted import ScriptedModel

FILES = 1_200  # more than the steps: no file is read twice
STEPS = 1_100
WINDOWS = (100, 1_000)
HALF = 25
TARGET_MS, TARGET_RATIO = 3.0, 1.5


class InstantModel:
    """The scripted model, answering at once: each request reads the next file (a different one
    every step, as a real session does), and a request without tools (compaction) gets a summary.
    Its usage is the scripted model's own estimate, so that estimate's cost is measured too."""

    name = "instant"
    spec = None

    def __init__(self) -> None:
        turns = [
            {"text": "Next file.", "tool_uses": [{"name": "read_file", "input": {"path": f"src/f{n:04d}.py"}}]}
            for n in range(FILES)
        ]
        self.script = ScriptedModel(turns, name="instant")

    def stream(self, request: m.Request) -> Iterator[m.ModelEvent]:
        if not request.tools:
            yield m.Stop("end_turn", ({"type": "text", "text": "## Done\n- read many files\n## Open\n- keep reading"},))
            return
        yield from self.script.stream(request)


def make_files(root: Path) -> None:
    src = root / "src"
    src.mkdir(parents=True)
    for n in range(FILES):
        lines = [f"def function_{n}_{i}(value: int) -> int:\n    return value * {i} + {n}\n" for i in range(30)]
        (src / f"f{n:04d}.py").write_text("".join(lines))


def measure() -> dict[int, tuple[float, float]]:
    from cast import runs

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        make_files(root)
        run = runs.plan_run("read everything", runs.Options(cwd=root, max_steps=STEPS), model=InstantModel())
        starts: dict[int, float] = {}
        stop: Any = None
        for event in run.agent.run("Read every file under src/ and plan nothing."):
            if isinstance(event, ev.StepStarted):
                starts[event.step] = time.perf_counter()
            elif isinstance(event, ev.Stopped):
                stop = event
        run.outcome()
    assert stop is not None and len(starts) >= max(WINDOWS) + HALF, (stop, len(starts))
    result = {}
    for center in WINDOWS:
        gaps = [starts[s + 1] - starts[s] for s in range(center - HALF, center + HALF)]
        result[center] = (statistics.median(gaps) * 1000, statistics.mean(gaps) * 1000)
    return result


def main() -> int:
    ms = measure()
    print("| step | ms per step, median of 50 | mean of 50 |\n|---|---|---|")
    for step, (median, mean) in ms.items():
        print(f"| {step:,} | {median:.2f} | {mean:.2f} |")
    early, late = ms[WINDOWS[0]][0], ms[WINDOWS[1]][0]
    ratio = late / early
    met = early < TARGET_MS and late < TARGET_MS and ratio < TARGET_RATIO
    print(
        f"\nratio step {WINDOWS[1]:,} / step {WINDOWS[0]}: {ratio:.2f} "
        f"(target < {TARGET_MS:g} ms at both and ratio < {TARGET_RATIO}: {'met' if met else 'not met'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
