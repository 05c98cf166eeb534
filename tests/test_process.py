"""Shell commands really run: huge outputs, timeouts with children, stdin, exit codes."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from cast.tools import liveline
from cast.tools.process import run_command
from cast.tools.shell import observe
from cast.tools.test_runners import parse_test_counts


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


def test_exit_code_and_output(tmp_path):
    result = run_command("echo hello; exit 3", tmp_path, timeout=10)
    assert result.exit_code == 3 and result.head.strip() == "hello" and result.total_bytes == 6


def test_five_megabytes_keep_head_and_tail_with_marker(tmp_path):
    command = "python3 -c \"import sys; sys.stdout.write('H' * 100 + 'x' * (5*1024*1024) + 'T' * 100)\""
    obs = observe(command, run_command(command, tmp_path, timeout=30))
    text = obs.text
    assert text.splitlines()[0] == "exit_code=0"
    assert text.splitlines()[1].startswith("H" * 100) and text.endswith("T" * 100)
    assert text.count("[truncated:") == 1
    assert f"[truncated: showed 30000 of {5 * 1024 * 1024 + 200} chars]" in text
    assert len(text) < 31_000


def test_output_that_fits_has_no_marker(tmp_path):
    command = "python3 -c \"import sys; sys.stdout.write('é' * 12000)\""  # 24,000 bytes: over one half, under the cap
    obs = observe(command, run_command(command, tmp_path, timeout=30))
    assert "truncated" not in obs.text and obs.text.splitlines()[1] == "é" * 12000


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    command = f"sleep 300 & echo $! > {pidfile}; sleep 300"
    started = time.monotonic()
    result = run_command(command, tmp_path, timeout=0.5)
    assert result.timed_out and result.exit_code == 124
    assert time.monotonic() - started < 60  # killed, not waited out (300 s), on however loaded a machine
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 2
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_background_children_do_not_outlive_the_command(tmp_path):
    pidfile = tmp_path / "child.pid"
    result = run_command(f"sleep 300 & echo $! > {pidfile}", tmp_path, timeout=10)
    assert result.exit_code == 0
    time.sleep(0.1)
    assert not alive(int(pidfile.read_text()))


def test_cancel_kills_the_command(tmp_path):
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    result = run_command("sleep 300", tmp_path, timeout=60, cancel=cancel)
    assert result.interrupted and time.monotonic() - started < 60  # killed, not waited out (300 s)


def test_stdin_is_dev_null(tmp_path):
    result = run_command("cat; echo after", tmp_path, timeout=5)
    assert result.exit_code == 0 and result.head.strip() == "after"


def test_bash_env_is_not_sourced(tmp_path, monkeypatch):
    evil = tmp_path / "evil.sh"
    evil.write_text(f"touch {tmp_path}/pwned\n")
    monkeypatch.setenv("BASH_ENV", str(evil))
    run_command("true", tmp_path, timeout=5)
    assert not (tmp_path / "pwned").exists()


def test_bash_observation_puts_exit_code_first_and_counts_tests(tmp_path):
    command = "echo '==== 3 passed, 1 failed in 0.12s ===='; false"
    obs = observe(command, run_command(command, tmp_path, timeout=10))
    lines = obs.text.splitlines()
    assert lines[0] == "exit_code=1"
    assert "[tests: 3 passed, 1 failed]" in lines
    assert obs.result.tests == {"passed": 3, "failed": 1}


def test_counts_from_plain_closing_line():
    assert parse_test_counts("....\n12 passed, 0 failed\n") == {"passed": 12, "failed": 0}
    assert parse_test_counts("nothing here") == {}


def test_plan_bash_ignores_programs_planted_in_the_workspace(tmp_path, monkeypatch):
    from cast.tools.base import ToolContext, run_tool
    from cast.tools.shell import PLAN_BASH
    from cast.workspace import Workspace

    planted = tmp_path / "bin"
    planted.mkdir()
    (planted / "ls").write_text(f"#!/bin/sh\ntouch {tmp_path}/pwned\n")
    (planted / "ls").chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}{os.pathsep}.{os.pathsep}{os.environ['PATH']}")
    obs = run_tool(PLAN_BASH, {"command": "ls"}, ToolContext(workspace=Workspace(tmp_path)))
    assert obs.text.startswith("exit_code=0") and "bin" in obs.text
    assert not (tmp_path / "pwned").exists()


def test_plan_bash_git_diff_leaves_the_index_untouched(repo):
    import hashlib

    from cast.tools.base import ToolContext, run_tool
    from cast.tools.shell import PLAN_BASH
    from cast.workspace import Workspace

    stamp = (repo / "app.py").stat().st_mtime_ns + 5_000_000_000
    os.utime(repo / "app.py", ns=(stamp, stamp))  # same content, stale stat cache: git wants to refresh
    index = repo / ".git" / "index"
    before = hashlib.sha256(index.read_bytes()).hexdigest()
    obs = run_tool(PLAN_BASH, {"command": "git diff --stat && git status --short"}, ToolContext(workspace=Workspace(repo)))
    assert obs.text.startswith("exit_code=0") and obs.text.splitlines()[1:] == ["(no output)"], obs.text  # the copy was read
    assert hashlib.sha256(index.read_bytes()).hexdigest() == before
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True)  # and the same command outside cast does write
    assert hashlib.sha256(index.read_bytes()).hexdigest() != before


def hear(command: str, tmp_path, **kwargs) -> tuple[list[str], object]:
    heard: list[str] = []
    result = run_command(command, tmp_path, timeout=30, on_line=heard.append, **kwargs)
    return heard, result


def test_the_output_hook_hears_each_line_in_order_stdout_and_stderr_and_the_partial_last_one(tmp_path):
    command = "echo one; sleep 0.3; echo two >&2; sleep 0.3; printf 'three\\n\\n'; sleep 0.3; printf four"
    heard, result = hear(command, tmp_path)
    assert heard == ["one", "two", "three", "four"]  # a blank line is no news; the unfinished last line is
    assert result.output == run_command(command, tmp_path, timeout=30).output == "one\ntwo\nthree\n\nfour"


def test_a_line_still_waiting_for_its_newline_is_heard_while_the_command_runs(tmp_path):
    cancel = threading.Event()
    heard: list[str] = []

    def line(text: str) -> None:
        heard.append(text)
        cancel.set()

    result = run_command("printf 'Continue? [y/N] '; sleep 30", tmp_path, timeout=60, cancel=cancel, on_line=line)
    assert heard == ["Continue? [y/N]"]
    assert result.interrupted and result.seconds < 20


def test_the_output_hook_is_throttled_and_ends_on_the_last_line(tmp_path):
    heard, result = hear("seq 1 300000", tmp_path)
    assert result.total_bytes > 1_000_000
    assert heard[-1] == "300000"
    numbers = [int(n) for n in heard]
    assert numbers == sorted(set(numbers))  # in order, none twice
    assert len(heard) <= result.seconds / liveline.INTERVAL + 2


def test_heard_lines_are_printable_and_clipped(tmp_path):
    command = (
        "printf '\\033[1;31mred\\033[0m \\033]0;title\\007[bold]done[/bold]\\n'; sleep 0.2; "
        "printf '10%%\\r50%%\\r100%%\\n'; sleep 0.2; python3 -c \"print('x' * 5000)\""
    )
    heard, _ = hear(command, tmp_path)
    assert heard[:2] == ["red [bold]done[/bold]", "100%"]
    assert len(heard[2]) == liveline.MAX_CHARS and heard[2].endswith("…")


def test_the_output_is_read_on_the_calling_thread_with_no_thread_started(tmp_path, monkeypatch):
    """One select over the pipe and the exit, on the caller's thread: no reader thread is started
    and joined per command (a thread's start alone cost a millisecond on a loaded machine)."""
    monkeypatch.setattr(threading.Thread, "start", lambda self: pytest.fail("started a thread"))
    threads: list[threading.Thread] = []
    result = run_command(
        "echo one; seq 1 100000 >&2", tmp_path, timeout=30, on_line=lambda _: threads.append(threading.current_thread())
    )
    assert result.exit_code == 0 and result.output.startswith("one\n1\n") and result.total_bytes > 500_000
    assert threads and set(threads) == {threading.current_thread()}


def test_a_failing_output_hook_costs_the_command_nothing(tmp_path):
    def broken(line: str) -> None:
        raise RuntimeError("a drawing bug")

    result = run_command("echo one; echo two", tmp_path, timeout=30, on_line=broken)
    assert result.exit_code == 0 and result.output == "one\ntwo\n"


def test_a_huge_unfinished_line_is_kept_by_its_newest_part_where_a_redraw_lands():
    heard: list[str] = []
    live = liveline.LiveLine(heard.append, clock=lambda: 0.0)  # no time passes: only the end reports
    for _ in range(300):  # 20 MB without a newline
        live.feed(b"x" * 65536)
    live.feed(b"\rdownloading 50%")
    live.close()
    assert heard == ["downloading 50%"]
