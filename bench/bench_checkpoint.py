"""Checkpoint cost: one journal record (snapshot of the tree + append) of a 5,000-file workspace,
after the first one. Prints a Markdown row with the median and the worst of N runs.

    python bench/bench_checkpoint.py [-n 20] [--files 5000]

Each run edits one file and adds one, as an agent's step would, then takes a checkpoint the way
`cast execute` does before an item. The first snapshot (which hashes every file) is timed apart.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cast.checkpoints.journal import Journal


def make_tree(root: Path, count: int) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    for n in range(count):
        directory = root / f"pkg{n // 200:02d}" / f"mod{n // 20 % 10}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"file{n:05d}.py").write_text(f"# file {n}\n" + "x = 1\n" * (n % 40))


def _cpu() -> float:
    """CPU seconds of this process and the git processes it ran: what the wall time is made of
    when the machine is not shared."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--files", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "work"
        root.mkdir()
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")  # the store goes with the tree
        make_tree(root, args.files)
        journal = Journal(root)
        started = time.perf_counter()
        journal.record("item", "bench", "plan.md", 1, "first")
        first = time.perf_counter() - started
        times, cpu = [], []
        for n in range(args.n):
            (root / "pkg00" / "mod0" / "file00000.py").write_text(f"# edited {n}\n")
            (root / f"new{n}.py").write_text("new\n")
            started, used = time.perf_counter(), _cpu()
            record = journal.record("item", "bench", "plan.md", n + 2, "again")
            times.append(time.perf_counter() - started)
            cpu.append(_cpu() - used)
        assert not record["skipped"]
    median, worst = statistics.median(times) * 1000, max(times) * 1000
    load = os.getloadavg()[0]
    print("| benchmark | result | target |")
    print("|---|---|---|")
    print(
        f"| checkpoint of a {args.files:,}-file tree after the first, `bench/bench_checkpoint.py` | "
        f"{median:.0f} ms median, {worst:.0f} ms worst of {args.n}; {statistics.median(cpu) * 1000:.0f} ms CPU "
        f"(first checkpoint {first * 1000:.0f} ms; load average {load:.1f}) | < 300 ms |"
    )


if __name__ == "__main__":
    main()
