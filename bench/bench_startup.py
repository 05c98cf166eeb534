"""Startup latency: time to the first REPL prompt in a pseudo-terminal, and the wall time of
`cast --help` and `cast --version`, each next to bare `python3 -c pass` measured in the same run.
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


def measure(label: str, run, n: int) -> tuple[str, list[float]]:
    run()  # warm the file cache; not counted
    return label, [run() for _ in range(n)]


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
        bare = measure("bare `python3 -c pass`", lambda: wall_time([sys.executable, "-c", "pass"], repo), args.n)
        rows = [
            (*measure("`cast --version`", lambda: wall_time([*cast, "--version"], repo), args.n), "≤ 1.5× bare"),
            (*measure("`cast --help`", lambda: wall_time([*cast, "--help"], repo), args.n), "≤ 2.5× bare"),
            (
                *measure(
                    "time to first prompt (`cast`, pty)", lambda: time_to_prompt(repl_command(f"script:{script}"), repo), args.n
                ),
                "≤ 250 ms",
            ),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(bare[1])
    print(f"| measurement (n={args.n}) | median | ratio to bare Python | target |")
    print("|---|---:|---:|---|")
    print(f"| {bare[0]} | {base * 1000:.0f} ms | 1.00× | |")
    for label, times, target in rows:
        median = statistics.median(times)
        print(f"| {label} | {median * 1000:.0f} ms | {median / base:.2f}× | {target} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
