"""What the sandbox costs per command: the wall time of `true` run the way cast runs it
(run_command: scratch dir, environment, launcher, layer, output reader, kill), unconfined and under
each kernel layer this machine has, next to its parts run bare (plain `bash -c true`, `python -I
-S`, the launcher alone, bubblewrap alone). Every round runs each variant once, in turn, so a
change in the machine's load hits them all alike. Prints the machine's state and a Markdown
table of medians.

    python bench/bench_sandbox.py [-n 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cast.sandbox.policy import READ_ONLY, bwrap_binary, detect, launcher  # noqa: E402
from cast.tools.process import run_command  # noqa: E402


def _quiet(argv: list[str]) -> Callable[[], object]:
    return lambda: subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)


def _in_layer(name: str, cwd: Path) -> Callable[[], object]:
    def run() -> object:
        os.environ["CAST_SANDBOX"] = name
        detect.cache_clear()
        return run_command("true", cwd, 10, sandbox=READ_ONLY)

    return run


def variants(cwd: Path) -> list[tuple[str, Callable[[], object]]]:
    found: list[tuple[str, Callable[[], object]]] = [
        ("plain `bash -c true` (baseline)", _quiet(["bash", "-c", "true"])),
        ("`python -I -S -c pass`", _quiet([sys.executable, "-I", "-S", "-c", "pass"])),
        ("the launcher alone, no spec", _quiet([*launcher({}), "true"])),
        ("cast, no sandbox (launcher)", lambda: run_command("true", cwd, 10)),
    ]
    binary = bwrap_binary()
    if binary:
        bare = [binary, "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
        found.append(("bubblewrap alone (`bwrap --unshare-all ... true`)", _quiet(bare)))
    for name in ("auto", "landlock"):
        os.environ["CAST_SANDBOX"] = name
        detect.cache_clear()
        layer = detect()
        if layer.active and all(f"cast, {layer.name}" not in label for label, _ in found):
            found.append((f"cast, {layer.name} read-only", _in_layer(name, cwd)))
    return found


def machine() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"{platform.node()}: Linux {platform.release()}, {os.cpu_count()} CPUs, load average {load}, "
        f"Python {platform.python_version()}, {'root' if os.geteuid() == 0 else 'not root'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20)
    n = parser.parse_args().n
    cwd = Path(tempfile.mkdtemp(prefix="cast-bench-"))
    runs = variants(cwd)
    times: dict[str, list[float]] = {label: [] for label, _ in runs}
    for _label, run in runs:  # warm-up: first probes, caches
        run()
    for _ in range(n):
        for label, run in runs:
            started = time.perf_counter()
            run()
            times[label].append((time.perf_counter() - started) * 1000)
    print(f"machine: {machine()}; {n} interleaved rounds")
    base = statistics.median(times[runs[0][0]])
    print("| command | median | vs plain bash |")
    print("|---|---|---|")
    for label, values in times.items():
        ms = statistics.median(values)
        print(f"| {label} | {ms:.1f} ms | {ms / base:.1f}x |")


if __name__ == "__main__":
    main()
