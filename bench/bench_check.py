"""Time the plan-mode bash checker over the test corpus.

Run as ``python bench/bench_check.py [rounds]``. Prints throughput and the
median and 99th-percentile time per command as a Markdown table row.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cast.safety.bash_check import check  # noqa: E402
from tests.safety import corpus  # noqa: E402


def main(argv: list[str]) -> int:
    rounds = int(argv[1]) if len(argv) > 1 else 20
    commands = [command for command, _ in corpus.all_cases()]
    check("ls")  # build the parser outside the timings
    samples: list[int] = []
    started = time.perf_counter()
    for _ in range(rounds):
        for command in commands:
            t0 = time.perf_counter_ns()
            check(command)
            samples.append(time.perf_counter_ns() - t0)
    elapsed = time.perf_counter() - started
    samples.sort()
    p50 = statistics.median(samples) / 1000
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] / 1000
    rate = len(samples) / elapsed
    sys.stdout.write("| commands | checks | checks/s | p50 µs | p99 µs |\n")
    sys.stdout.write("|---:|---:|---:|---:|---:|\n")
    sys.stdout.write(f"| {len(commands)} | {len(samples)} | {rate:,.0f} | {p50:.1f} | {p99:.1f} |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
