"""Checkpoints on a monorepo-sized git tree, each figure against what git itself takes.

    python bench/bench_monorepo_checkpoints.py [--files 50000] [-n 5] [--dir /work/tmp]

Builds a synthetic tree of N files (committed, packed), then times, interleaved A B A B and
reported as medians (wall time, and CPU time of cast and the git it ran):
- the first checkpoint alone (a new store: the run-start snapshot, which borrows the user's index
  and objects), against `git status`, on the clean tree and with three files changed by hand;
- a first execute run's checkpoints (a new store: the run-start snapshot, the item's checkpoint,
  the probe and the record around one edit, the tick) against `git status`, and against what a
  store without the user's index pays (`git add -A && git write-tree` into an empty index);
- a later full snapshot after one edit, against `git status`;
- `cast undo` of a one-edit item (prepare and apply), against `git status`;
- cast's `git status` after every file's timestamp changed (a checkout, a build): the first call
  and the second, against a status on the user's index that cannot keep what it refreshed.
Prints Markdown rows, with the load average before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PLAIN = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}
PLAIN |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
PLAIN |= {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gc.auto", "GIT_CONFIG_VALUE_0": "0"}  # no gc in the background


def plain_git(root: Path, *args: str, env: dict[str, str] | None = None) -> None:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | PLAIN | (env or {})
    subprocess.run(["git", *args], cwd=root, env=full, check=True, stdout=subprocess.DEVNULL)


def make_tree(root: Path, count: int) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    for n in range(count):
        directory = root / f"top{n % 4}" / f"pkg{n // 400:03d}" / f"mod{n // 40 % 10}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"file{n:06d}.py").write_text(f"# file {n}\n" + "x = 1\n" * (n % 40))
    plain_git(root, "init", "-q")
    plain_git(root, "add", "-A")
    plain_git(root, "commit", "-qm", "tree")
    plain_git(root, "gc", "-q")


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(action: Callable[[], object]) -> tuple[float, float]:
    wall, used = time.perf_counter(), cpu()
    action()
    return time.perf_counter() - wall, cpu() - used


def touch_all(root: Path, round_: int) -> None:
    """New stat data, content unchanged, as a checkout or a copy leaves it. The times are in the
    past: a time at or after the index's own would make git treat every entry as racily clean and
    re-hash it on every call, which no checkout does."""
    earlier = time.time_ns() - (3600 + round_) * 1_000_000_000
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            os.utime(os.path.join(directory, name), ns=(earlier, earlier))


class Bench:
    def __init__(self, root: Path, state: Path, rounds: int):
        self.root, self.state, self.rounds = root, state, rounds
        self.edited, *self.dirtied = sorted((root / "top1" / "pkg101").rglob("*.py"))[:4]
        self.original = self.committed(self.edited)
        self.edited.write_bytes(self.original)  # a tree kept from an earlier run starts clean, as it ends
        self.clean = {path: self.committed(path) for path in self.dirtied}
        self.rows: list[str] = []

    def committed(self, path: Path) -> bytes:
        rel = path.relative_to(self.root).as_posix()
        return subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=self.root, capture_output=True, check=True).stdout

    def dirty(self, action: Callable[[], object]) -> Callable[[], None]:
        """`action` with three files changed by hand (not staged), put back after."""

        def run() -> None:
            for path, text in self.clean.items():
                path.write_bytes(text + b"# changed by hand\n")
            try:
                action()
            finally:
                for path, text in self.clean.items():
                    path.write_bytes(text)

        return run

    def status(self) -> None:
        plain_git(self.root, "status", "--porcelain=v1", "-uall")

    def first_checkpoint(self) -> None:
        from cast.checkpoints.journal import Journal

        shutil.rmtree(self.state / "cast", ignore_errors=True)
        Journal(self.root).record("probe", "bench", "plan.md", None, "run start")

    def first_run(self) -> None:
        from cast.checkpoints.journal import Journal

        shutil.rmtree(self.state / "cast", ignore_errors=True)
        journal = Journal(self.root)
        rel = self.edited.relative_to(self.root).as_posix()
        journal.record("probe", "bench", "plan.md", None, "run start")
        journal.record("item", "bench", "plan.md", 1, "one", paths=[])
        journal.record("probe", "bench", "plan.md", None, "before edit_file", paths=[rel])
        self.edited.write_bytes(self.original + b"# edited\n")
        journal.record("cast", "bench", "plan.md", None, "edit_file", paths=[rel])
        journal.record("done", "bench", "plan.md", 1, "one", paths=[])
        self.edited.write_bytes(self.original)

    def add_all(self) -> None:
        scratch = Path(tempfile.mkdtemp(dir=self.state))
        env = {"GIT_DIR": str(scratch / "git"), "GIT_WORK_TREE": str(self.root), "GIT_INDEX_FILE": str(scratch / "index")}
        plain_git(self.root, "init", "-q", "--bare", str(scratch / "git"))
        plain_git(self.root, "add", "-A", env=env)
        plain_git(self.root, "write-tree", env=env)
        shutil.rmtree(scratch)

    def compare(self, name: str, cast: Callable[[], object], base: Callable[[], object], base_name: str, rounds: int = 0) -> None:
        ours, theirs = [], []
        for _ in range(rounds or self.rounds):
            theirs.append(timed(base))
            ours.append(timed(cast))
        wall, cpu_s = statistics.median(t[0] for t in ours), statistics.median(t[1] for t in ours)
        b_wall, b_cpu = statistics.median(t[0] for t in theirs), statistics.median(t[1] for t in theirs)
        self.rows.append(
            f"| {name} | {wall * 1000:.0f} ms ({cpu_s * 1000:.0f} ms CPU) | {base_name}: {b_wall * 1000:.0f} ms "
            f"({b_cpu * 1000:.0f} ms CPU) | {wall / b_wall:.2f}x ({cpu_s / max(b_cpu, 1e-9):.2f}x CPU) |"
        )

    def run(self) -> None:
        from cast import git
        from cast.checkpoints import undo
        from cast.checkpoints.journal import Journal

        self.compare("the first checkpoint (run start, a new store)", self.first_checkpoint, self.status, "`git status`")
        self.compare(
            "the same, three files changed by hand", self.dirty(self.first_checkpoint), self.dirty(self.status), "`git status`"
        )
        self.compare("first execute run's checkpoints (5 records, one edit)", self.first_run, self.status, "`git status`")
        self.compare(
            "first execute run's checkpoints", self.first_run, self.add_all, "`git add -A && git write-tree`", min(3, self.rounds)
        )
        journal = Journal(self.root)

        def later() -> None:
            self.edited.write_bytes(self.original + f"# {time.time_ns()}\n".encode())
            journal.record("probe", "bench", "plan.md", None, "full look")

        self.compare("later full snapshot after one edit", later, self.status, "`git status`")

        def undo_item() -> None:
            rel = self.edited.relative_to(self.root).as_posix()
            journal.record("item", "bench", "plan.md", 9, "undo me", paths=[])
            self.edited.write_bytes(self.original + b"# to undo\n")
            journal.record("cast", "bench", "plan.md", None, "edit_file", paths=[rel])
            journal.record("done", "bench", "plan.md", 9, "undo me", paths=[])
            wall, used = timed(lambda: undo.apply(journal, undo.prepare_undo(journal, 9, "plan.md")))
            undo_times.append((wall, used))

        undo_times: list[tuple[float, float]] = []
        status_times = []
        for _ in range(self.rounds):
            status_times.append(timed(self.status))
            undo_item()
        u, s = statistics.median(t[0] for t in undo_times), statistics.median(t[0] for t in status_times)
        self.rows.append(
            f"| `cast undo` of a one-edit item | {u * 1000:.0f} ms ({statistics.median(t[1] for t in undo_times) * 1000:.0f} ms CPU) "
            f"| `git status`: {s * 1000:.0f} ms | {u / s:.2f}x |"
        )

        first, second, stale = [], [], []
        for round_ in range(self.rounds):
            touch_all(self.root, round_)
            stale.append(timed(lambda: plain_git(self.root, "status", "--porcelain", env={"GIT_OPTIONAL_LOCKS": "0"}))[0])
            first.append(timed(lambda: git.status(self.root))[0])
            second.append(timed(lambda: git.status(self.root))[0])
        med = statistics.median
        self.rows.append(
            f"| cast's `git status` after every file was touched | first call {med(first) * 1000:.0f} ms, second "
            f"{med(second) * 1000:.0f} ms | a status that cannot keep its refresh (each call): {med(stale) * 1000:.0f} ms "
            f"| second call {med(second) / med(stale):.2f}x |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=5)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--dir", default=None, help="where to build the tree (default: the system temp dir)")
    parser.add_argument("--tree", default=None, help="a tree this script built before (kept with --keep), instead of a new one")
    parser.add_argument("--keep", default=None, help="build the tree here and keep it, for later runs' --tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root, state = Path(args.tree or args.keep or Path(tmp) / "tree"), Path(tmp) / "state"
        state.mkdir()
        os.environ["XDG_STATE_HOME"] = str(state)  # the stores go with the tree
        started = time.perf_counter()
        if not args.tree:
            root.mkdir(parents=True)
            make_tree(root, args.files)
        built = time.perf_counter() - started
        load = os.getloadavg()
        bench = Bench(root, state, args.n)
        bench.run()
        store = subprocess.run(["du", "-sk", str(state / "cast")], capture_output=True, text=True).stdout.split()[0]
        print(f"{args.files:,} files, built in {built:.0f} s; load average {load[0]:.1f} before, {os.getloadavg()[0]:.1f} after;")
        print(f"medians of {args.n} interleaved rounds; checkpoint store {int(store) / 1024:.1f} MiB after the runs\n")
        print("| figure | cast | baseline | ratio |")
        print("|---|---|---|---|")
        print("\n".join(bench.rows))
        bench.edited.write_bytes(bench.original)  # the tree as it was found, for the next run's --tree


if __name__ == "__main__":
    main()
