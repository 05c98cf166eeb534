"""What the sandbox costs per command: the wall time of `bash -c true` run the way cast runs it,
unconfined (launcher only) and under each kernel layer this machine has, next to plain
`bash -c true` measured in the same run. Prints a Markdown table of medians over N runs.

    python bench/bench_sandbox.py [-n 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cast.sandbox.policy import READ_ONLY, detect  # noqa: E402
from cast.tools.process import run_command  # noqa: E402


def median_ms(run: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20)
    n = parser.parse_args().n
    cwd = Path(tempfile.mkdtemp(prefix="cast-bench-"))
    bare = median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=False), n)
    rows = [("plain `bash -c true`", bare)]
    rows.append(("cast, no sandbox (launcher)", median_ms(lambda: run_command("true", cwd, 10), n)))
    for layer in ("auto", "landlock"):
        os.environ["CAST_SANDBOX"] = layer
        detect.cache_clear()
        found = detect()
        if found.active:
            rows.append((f"cast, {found.name} read-only", median_ms(lambda: run_command("true", cwd, 10, sandbox=READ_ONLY), n)))
    print("| command | median | vs plain bash |")
    print("|---|---|---|")
    for name, ms in rows:
        print(f"| {name} | {ms:.1f} ms | {ms / bare:.1f}x |")


if __name__ == "__main__":
    main()
