"""What the sandbox costs per command: the wall time of `true` run the way cast runs it
(run_command: scratch dir, environment, layer, output reader, kill), unconfined and under each
kernel layer this machine has, next to its parts run bare (plain `bash -c true`, `python -I -S`,
the launcher alone, bubblewrap alone with cast's own mounts). Every round runs each variant once,
in turn (A B A B ...), so a change in the machine's load hits them all alike. Prints the load
before and after and a Markdown table of medians, each against its own baseline: plain bash for
the launcher, bare bwrap with the same mounts for cast under bubblewrap.

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

from cast.sandbox import bwrap, limits, policy  # noqa: E402
from cast.sandbox import scratch as scratch_dir  # noqa: E402
from cast.sandbox.policy import READ_ONLY, Policy, bwrap_binary, detect, launcher, throwaway  # noqa: E402
from cast.tools import orchestrator, process, shell  # noqa: E402
from cast.tools.process import run_command  # noqa: E402

BASH = "plain `bash -c true`"
BARE_RO, BARE_OVERLAY = "bare bwrap, cast's read-only mounts", "bare bwrap, cast's mounts + throwaway overlay"
PLAN_CALL = "plan mode's bash tool call, `true` proven (check, environment, bubblewrap, observation)"
BASELINE = {  # each figure's own baseline
    "`python -I -S -c pass`": BASH,
    "the launcher alone, no spec": BASH,
    "cast, no sandbox (launcher forked by the fork server)": BASH,
    "cast, no sandbox (a launcher process per command, as before)": BASH,
    "cast, landlock read-only (a launcher process per command, as before)": BASH,
    "cast, landlock read-only, no pid cap (a launcher process per command)": BASH,
    BARE_RO: BASH,
    "cast, bubblewrap read-only": BARE_RO,
    "cast, bubblewrap read-only, launcher inside (the fallback)": BARE_RO,
    "cast, bubblewrap plan mode (throwaway overlay)": BARE_OVERLAY,
    PLAN_CALL: BARE_RO,
    BARE_OVERLAY: BASH,
    "cast, landlock read-only": BASH,
}


def _quiet(argv: list[str]) -> Callable[[], object]:
    return lambda: subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)


def _in_layer(
    name: str, cwd: Path, sandbox: Policy = READ_ONLY, direct: bool = True, call: Callable[[], object] | None = None
) -> Callable[[], object]:
    """run_command (or `call`) under layer `name`, probed once here (not per run), with or without
    the launcher inside bwrap."""
    os.environ["CAST_SANDBOX"] = name
    detect.cache_clear()
    layer, works = detect(), policy.direct_works() and direct

    def run() -> object:
        process.detect = policy.detect = orchestrator.detect = shell.detect = lambda: layer  # type: ignore[method-assign]
        policy.direct_works = lambda: works  # type: ignore[method-assign]
        return call() if call is not None else run_command("true", cwd, 10, sandbox=sandbox)

    return run


def _without_forkserver(run: Callable[[], object]) -> Callable[[], object]:
    def once() -> object:
        os.environ["CAST_FORKSERVER"] = "0"
        try:
            return run()
        finally:
            del os.environ["CAST_FORKSERVER"]

    return once


def _without_pid_cap(run: Callable[[], object]) -> Callable[[], object]:
    """As on a kernel whose pid_max is not per namespace (before 6.14), or without root: no pid
    namespace holds the tree, so the launcher keeps itself outside the command's Landlock domain."""

    def once() -> object:
        kept = limits.Limits.pid_max
        limits.Limits.pid_max = lambda self: 0  # type: ignore[method-assign]
        try:
            return run()
        finally:
            limits.Limits.pid_max = kept  # type: ignore[method-assign]

    return once


def _plan_call(cwd: Path) -> Callable[[], object]:
    """The whole bash tool call a planner makes (tools/shell.py), as a plan run makes it."""
    from cast.tools.base import ToolContext, run_tool
    from cast.tools.shell import PLAN_BASH
    from cast.workspace import Workspace

    ctx = ToolContext(workspace=Workspace(cwd))
    return lambda: run_tool(PLAN_BASH, {"command": "true"}, ctx)


def repository() -> Path:
    """A small git repository: what a planner works in (cast's read-only env reads its config)."""
    cwd = Path(tempfile.mkdtemp(prefix="cast-bench-"))
    (cwd / "README.md").write_text("# bench\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "start"]):
        subprocess.run(["git", *argv], cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return cwd


def _bare_bwrap(binary: str, sandbox: Policy, cwd: Path) -> list[str]:
    """bwrap with the mounts and namespaces cast gives a command (its scratch dir too, in memory
    where cast's is), running `true`."""
    scratch, size = scratch_dir.new(sandbox, detect())
    return [binary, *bwrap.args(sandbox, scratch, str(cwd.resolve()), after_proc=[], scratch_size=size), "--", "true"]


def variants(cwd: Path) -> list[tuple[str, Callable[[], object]]]:
    found: list[tuple[str, Callable[[], object]]] = [
        (BASH, _quiet(["bash", "-c", "true"])),
        ("`python -I -S -c pass`", _quiet([sys.executable, "-I", "-S", "-c", "pass"])),
        ("the launcher alone, no spec", _quiet([*launcher({}), "true"])),
        ("cast, no sandbox (launcher forked by the fork server)", lambda: run_command("true", cwd, 10)),
        (
            "cast, no sandbox (a launcher process per command, as before)",
            _without_forkserver(lambda: run_command("true", cwd, 10)),
        ),
    ]
    binary = bwrap_binary()
    os.environ["CAST_SANDBOX"] = "auto"
    detect.cache_clear()
    if binary and detect().name == "bubblewrap":
        found += [
            (BARE_RO, _quiet(_bare_bwrap(binary, READ_ONLY, cwd))),
            ("cast, bubblewrap read-only", _in_layer("auto", cwd)),
            ("cast, bubblewrap read-only, launcher inside (the fallback)", _in_layer("auto", cwd, direct=False)),
            (PLAN_CALL, _in_layer("auto", cwd, call=_plan_call(cwd))),
        ]
        if policy.overlay_works():
            found += [
                (BARE_OVERLAY, _quiet(_bare_bwrap(binary, throwaway(cwd), cwd))),
                ("cast, bubblewrap plan mode (throwaway overlay)", _in_layer("auto", cwd, throwaway(cwd))),
            ]
    os.environ["CAST_SANDBOX"] = "landlock"
    detect.cache_clear()
    if detect().name == "landlock":
        found.append(("cast, landlock read-only", _in_layer("landlock", cwd)))
        found.append(
            (
                "cast, landlock read-only (a launcher process per command, as before)",
                _without_forkserver(_in_layer("landlock", cwd)),
            )
        )
        found.append(
            (
                "cast, landlock read-only, no pid cap (a launcher process per command)",
                _without_pid_cap(_without_forkserver(_in_layer("landlock", cwd))),
            )
        )
    return found


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def machine() -> str:
    return (
        f"{platform.node()}: Linux {platform.release()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, {'root' if os.geteuid() == 0 else 'not root'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20)
    n = parser.parse_args().n
    cwd = repository()
    runs = variants(cwd)
    times: dict[str, list[float]] = {label: [] for label, _ in runs}
    for _label, run in runs:  # warm-up: first probes, caches
        run()
    before = load()
    for _ in range(n):
        for label, run in runs:
            started = time.perf_counter()
            run()
            times[label].append((time.perf_counter() - started) * 1000)
    print(f"machine: {machine()}; {n} interleaved rounds; load average {before} before, {load()} after")
    print("| command | median | against | ratio |")
    print("|---|---|---|---|")
    for label, values in times.items():
        ms, against = statistics.median(values), BASELINE.get(label)
        ratio = f"{ms / statistics.median(times[against]):.2f}x" if against in times else "—"
        print(f"| {label} | {ms:.1f} ms | {against or 'baseline'} | {ratio} |")


if __name__ == "__main__":
    main()
