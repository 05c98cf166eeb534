"""Time to the first request: how long after `cast plan TASK` starts, and how long after Enter in the
REPL, the first Messages API request reaches the server (tests/fakeapi.py, the strict fake, on
localhost), interleaved with bare `python3 -c pass` (A B A B ...) so a loaded machine shows as a
ratio. Prints a Markdown table of medians over N runs and the load average.

    python bench/bench_first_request.py [-n 7] [--pythonpath DIR]   # DIR: another cast checkout to compare
    python bench/bench_first_request.py --against DIR [-n 7]      # this cast and DIR's, one-shot, A B A B
    python bench/bench_first_request.py --imports [-n 7]          # what importing each client costs
    python bench/bench_first_request.py --burn 3 [-n 7]           # with 3 busy processes: a machine at load 3+

Each run is a fresh process in a fresh temporary git repository with an API key for the fake; the
Models API answer is cached as after a first run of the day. The REPL task is typed one second
after the prompt appears; the clock starts at Enter. The child is stopped once the request is in.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakeapi import FakeAPI, text  # noqa: E402

PROMPT = "plan ›"


class TimedAPI(FakeAPI):
    """The fake, noting when each Messages request arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Event()
        self.at = 0.0

    def _handle(self, handler) -> None:  # type: ignore[no-untyped-def]
        if handler.command == "POST" and not self.arrived.is_set():
            self.at = time.perf_counter()
            self.arrived.set()
        super()._handle(handler)


def cast_command() -> list[str]:
    script = Path(sys.executable).with_name("cast")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cast"]


PYTHONPATH: str | None = None  # --pythonpath


def environment(api: FakeAPI, home: Path) -> dict[str, str]:
    values = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CAST_")) and k != "PYTHONDONTWRITEBYTECODE"}
    if PYTHONPATH is not None:
        values["PYTHONPATH"] = PYTHONPATH
    values.update(
        ANTHROPIC_BASE_URL=api.url,
        ANTHROPIC_API_KEY="test-key",
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".state"),
        TERM="xterm-256color",
        PROMPT_TOOLKIT_NO_CPR="1",
        EDITOR="true",
    )
    return values


def fresh_repo(work: Path) -> Path:
    repo = Path(tempfile.mkdtemp(dir=work))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "README.md").write_text("# bench\n")
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    return repo


def arm(api: TimedAPI) -> None:
    api.arrived.clear()
    api.responses.clear()
    api.requests.clear()
    api.reply(text("Looking."))


def one_shot(api: TimedAPI, work: Path, home: Path) -> float:
    repo = fresh_repo(work)
    arm(api)
    started = time.perf_counter()
    child = subprocess.Popen(
        [*cast_command(), "plan", "Add a subtract function"],
        cwd=repo,
        env=environment(api, home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if not api.arrived.wait(60):
            raise RuntimeError("cast plan sent no request within 60 s")
        return api.at - started
    finally:
        child.kill()
        child.wait()


def repl(api: TimedAPI, work: Path, home: Path) -> float:
    repo = fresh_repo(work)
    arm(api)
    command = cast_command()
    child = pexpect.spawn(
        command[0], command[1:], cwd=str(repo), env=environment(api, home), encoding="utf-8", dimensions=(30, 100), timeout=60
    )
    try:
        child.expect_exact(PROMPT)
        time.sleep(1.0)
        child.send("Add a subtract function")
        started = time.perf_counter()
        child.send("\r")
        if not api.arrived.wait(60):
            raise RuntimeError("the REPL sent no request within 60 s")
        return api.at - started
    finally:
        child.close(force=True)


def bare() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


SDK_PART = """
import importlib.util, sys, types
spec = importlib.util.find_spec("anthropic")
package = types.ModuleType("anthropic")
package.__path__, package.__spec__ = list(spec.submodule_search_locations), spec
sys.modules["anthropic"] = package  # the package's __init__ (all of anthropic.types) skipped
import anthropic._client, anthropic.resources.messages
"""
IMPORTS = {
    "bare `python3 -c pass`": "pass",
    "`import anthropic` (all of the SDK)": "import anthropic",
    "the SDK's client and messages resource only, its package `__init__` skipped": SDK_PART,
    "`import httpx2, httpcore2, cast.models.direct`": "import httpx2, httpcore2, cast.models.direct",
}


def imports(n: int) -> int:
    """Process wall time of each import, interleaved, as a Markdown table."""
    load = os.getloadavg()[0]
    times: dict[str, list[float]] = {label: [] for label in IMPORTS}
    for _ in range(n):
        for label, code in IMPORTS.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times[label].append(time.perf_counter() - started)
    base = statistics.median(times["bare `python3 -c pass`"])
    print(f"| import (n={n} interleaved, load average {load:.1f} → {os.getloadavg()[0]:.1f}) | median | ratio to bare |")
    print("|---|---:|---:|")
    for label, seen in times.items():
        print(f"| {label} | {statistics.median(seen) * 1000:.0f} ms | {statistics.median(seen) / base:.1f}× |")
    return 0


def against(n: int, other: str) -> int:
    """One-shot start → first request of this checkout and of `other`, with bare Python, A B C A B C ..."""
    global PYTHONPATH
    work = Path(tempfile.mkdtemp(prefix="cast-bench-first-"))
    api = TimedAPI().start()
    api.serve_models()
    home = work / "home"
    home.mkdir()
    load_before = os.getloadavg()[0]
    series: dict[str, list[float]] = {"bare": [], str(ROOT): [], other: []}
    try:
        for path in (str(ROOT), other):  # warm-ups, not counted
            PYTHONPATH = path
            one_shot(api, work, home)
        for _ in range(n):
            series["bare"].append(bare())
            for path in (str(ROOT), other):
                PYTHONPATH = path
                series[path].append(one_shot(api, work, home))
    finally:
        api.stop()
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(series["bare"])
    print(
        f"| `cast plan TASK`: start → first request (n={n}, load average {load_before:.1f} → {os.getloadavg()[0]:.1f}) | median | ratio to bare |"
    )
    print("|---|---:|---:|")
    for label, seen in series.items():
        print(f"| {label} | {statistics.median(seen) * 1000:.0f} ms | {statistics.median(seen) / base:.2f}× |")
    return 0


def burn(count: int) -> list[subprocess.Popen[bytes]]:
    """`count` processes that only spin, so the measurement runs on a machine at a known load (the
    issue's "at load 3"); started a minute ahead, as the load average is a one-minute mean."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    deadline = time.monotonic() + 120
    while os.getloadavg()[0] < count - 0.3 and time.monotonic() < deadline:
        time.sleep(2)
    return burners


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs per measurement (default 7)")
    parser.add_argument("--pythonpath", help="run the cast found there (PYTHONPATH for the child)")
    parser.add_argument("--imports", action="store_true", help="time the imports of the SDK and of the direct client instead")
    parser.add_argument("--against", help="another cast checkout: its one-shot first request interleaved with this one's")
    parser.add_argument("--burn", type=int, default=0, metavar="N", help="N busy processes running throughout (load N and more)")
    args = parser.parse_args()
    burners = burn(args.burn)
    try:
        if args.imports:
            return imports(args.n)
        if args.against:
            return against(args.n, args.against)
        return measure(args)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def measure(args: argparse.Namespace) -> int:
    global PYTHONPATH
    PYTHONPATH = args.pythonpath
    work = Path(tempfile.mkdtemp(prefix="cast-bench-first-"))
    api = TimedAPI().start()
    api.serve_models()
    home = work / "home"
    home.mkdir()
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {"bare": [], "one-shot": [], "repl": []}
    try:
        one_shot(api, work, home)  # warms the file cache and the day's Models API cache; not counted
        for _ in range(args.n):
            times["bare"].append(bare())
            times["one-shot"].append(one_shot(api, work, home))
            times["bare"].append(bare())
            times["repl"].append(repl(api, work, home))
    finally:
        api.stop()
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(times["bare"])
    load = f"{load_before:.1f} → {os.getloadavg()[0]:.1f}"
    busy = f", {args.burn} busy processes" if args.burn else ""
    print(
        f"| first request (n={args.n}, load average {load}, {os.cpu_count()} CPUs{busy}) | median | ratio to bare Python | target |"
    )
    print("|---|---:|---:|---|")
    print(f"| bare `python3 -c pass` | {base * 1000:.0f} ms | 1.00× | |")
    for label, key, target in (
        ("`cast plan TASK`: start → first request", "one-shot", "≤ 1.0 s"),
        ("REPL: Enter → first request (typed 1 s after the prompt)", "repl", "≤ 0.3 s"),
    ):
        median = statistics.median(times[key])
        print(f"| {label} | {median * 1000:.0f} ms | {median / base:.1f}× | {target} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
