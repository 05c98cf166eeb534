"""list_files, grep and read_file on a synthetic monorepo, against ripgrep alone.

    python3 bench/bench_monorepo.py [--files 50000 220000] [-n 5]

Each figure is a median of n interleaved rounds (cast, baseline, cast, baseline, ...). cast's call
runs in a fresh process that times only the tool call and reports that process's peak RSS, so
memory is the tool's, not the benchmark's. The baseline is the rg command cast's tool stands on,
output to /dev/null. Prints Markdown rows and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import monotree  # noqa: E402

CALL = r"""
import json, re, sys, time
from pathlib import Path
from cast.tools.base import ToolContext, run_tool
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.workspace import Workspace
tool, root, args = sys.argv[1], Path(sys.argv[2]), json.loads(sys.argv[3])
ctx = ToolContext(workspace=Workspace(root))
start = time.perf_counter()
obs = run_tool({"list_files": LIST_FILES, "grep": GREP, "read_file": READ_FILE}[tool], args, ctx)
took = time.perf_counter() - start
# VmHWM: this address space's peak; getrusage's ru_maxrss would carry the forking bench's RSS over the exec
peak_kb = int(re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text())[1])
print(json.dumps({"s": took, "rss_mb": peak_kb / 1024, "head": obs.text.splitlines()[0][:160]}))
"""


def cast_call(tool: str, root: Path, args: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CALL, tool, str(root), json.dumps(args)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def rg_call(root: Path, argv: list[str]) -> float:
    from cast.tools.ripgrep import rg_binary

    start = time.perf_counter()
    subprocess.run(
        [rg_binary(), "--no-config", "--hidden", "--no-require-git", *argv],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def measure(root: Path, rounds: int) -> None:
    files = sum(1 for _ in root.rglob("*.py"))
    cases = [
        ("list_files", {}, ["--files"]),
        ("grep", {"pattern": "e"}, ["--no-heading", "--line-number", "--regexp", "e"]),
        ("grep", {"pattern": "return x \\+ 12345$"}, ["--no-heading", "--line-number", "--regexp", "return x \\+ 12345$"]),
    ]
    for tool, args, baseline in cases:
        ours, theirs, rss, head = [], [], [], ""
        for _ in range(rounds):
            result = cast_call(tool, root, args)
            ours.append(result["s"])
            rss.append(result["rss_mb"])
            head = result["head"]
            theirs.append(rg_call(root, baseline))
        a, b = statistics.median(ours), statistics.median(theirs)
        label = f"`{tool} {json.dumps(args)}`"
        print(
            f"| {files:,} files | {label} | {a:.3f} s, peak RSS {max(rss):.0f} MB | rg alone {b:.3f} s | {a / b:.2f}× | {head} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, nargs="*", default=[50_000])
    parser.add_argument("-n", type=int, default=5)
    options = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| tree | cast call | cast | baseline | ratio | first line |")
    print("|---|---|---|---|---|---|")
    for count in options.files:
        measure(monotree.build(count), options.n)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
