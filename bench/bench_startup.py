"""Startup latency: time to the first REPL prompt in a pseudo-terminal, and the wall time of
`cast --help` and `cast --version`, each next to bare `python3 -c pass` measured in the same run.
The runs take turns (bare, --version, --help, prompt, bare, ...), so load falls on all alike.
Prints a Markdown table of medians over N runs with the ratio to bare Python and the target.

    python bench/bench_startup.py [-n 10]

The REPL runs in a fresh temporary git repository with a scripted model (no network, no key);
the clock stops when the prompt text `plan ›` appears on the terminal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "plan ›"


def cast_command() -> list[str]:
    """`cast` when installed next to this interpreter, else `python -m cast`."""
    script = Path(sys.executable).with_name("cast")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cast"]


def repl_command(model: str) -> list[str]:
    return [*cast_command(), "--model", model]


def env() -> dict[str, str]:
    """No API key, and bytecode caching on (an installed cast has its .pyc files; the warm-up run
    writes them for a source checkout)."""
    values = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_") and k != "PYTHONDONTWRITEBYTECODE"}
    values.update(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    return values


def time_to_prompt(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    child = pexpect.spawn(command[0], command[1:], cwd=str(cwd), env=env(), encoding="utf-8", dimensions=(30, 100), timeout=30)
    try:
        child.expect_exact(PROMPT)
        elapsed = time.perf_counter() - started
        child.send("\x04")  # Ctrl+D leaves
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return elapsed


def wall_time(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def interleaved(runs: list, n: int) -> list[list[float]]:
    """Each run n times, taking turns (A B C A B C ...), so a change in the machine's load falls
    on all of them alike; one untimed round first warms the file cache."""
    for run in runs:
        run()
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(n):
        for run, seen in zip(runs, times):
            seen.append(run())
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="runs per measurement (default 10)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cast-bench-"))
    try:
        repo = work / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        (repo / "README.md").write_text("# bench\n")
        script = work / "script.jsonl"
        script.write_text('{"text": "hi"}\n')
        cast = cast_command()
        load = os.getloadavg()[0]
        bare, *measured = interleaved(
            [
                lambda: wall_time([sys.executable, "-c", "pass"], repo),
                lambda: wall_time([*cast, "--version"], repo),
                lambda: wall_time([*cast, "--help"], repo),
                lambda: time_to_prompt(repl_command(f"script:{script}"), repo),
            ],
            args.n,
        )
        labels = [
            ("`cast --version`", "≤ 1.5× bare"),
            ("`cast --help`", "≤ 2.5× bare"),
            ("time to first prompt (`cast`, pty)", "≤ 250 ms"),
        ]
        rows = [(label, times, target) for (label, target), times in zip(labels, measured)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(bare)
    print(
        f"| measurement (n={args.n} interleaved, load average {load:.1f} → {os.getloadavg()[0]:.1f}) | median | ratio to bare Python | target |"
    )
    print("|---|---:|---:|---|")
    print(f"| bare `python3 -c pass` | {base * 1000:.0f} ms | 1.00× | |")
    for label, times, target in rows:
        median = statistics.median(times)
        print(f"| {label} | {median * 1000:.0f} ms | {median / base:.2f}× | {target} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
