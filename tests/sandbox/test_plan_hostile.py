"""The hostile test suite (tests/hostile_suite.py) run by plan-mode bash under bubblewrap with the
strong-sandbox gate opened, so each guarantee is proven on its own: the run happens once, and
each guarantee is one test. A guarantee `isolation()` does not yet claim on this machine is an
expected failure naming it; once the sandbox claims it, the test must pass. End to end through
`cast plan`, per layer, is tests/redteam/test_hostile_tests.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_suite import HostileTests, build
from sandboxkit import Listener, no_stray, running_in, use_layer

from cast.sandbox.policy import Isolation, isolation
from cast.tools import orchestrator
from cast.tools.base import ToolContext, run_tool
from cast.tools.shell import PLAN_BASH
from cast.workspace import Workspace


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[HostileTests, Listener, Any, Isolation, tuple]]:
    with pytest.MonkeyPatch.context() as mp:
        use_layer(mp, "bubblewrap")
        found = isolation()
        mp.setattr(orchestrator, "strong_isolation", lambda: (True, "bubblewrap, gate opened by the test"))
        listener = Listener()
        suite = build(tmp_path_factory.mktemp("hostile"), listener.port, allocate=found.limits)
        for name, value in suite.env().items():
            mp.setenv(name, value)
        before = suite.state()
        ctx = ToolContext(workspace=Workspace(suite.root))
        obs = run_tool(PLAN_BASH, {"command": "python3 -m unittest -v", "timeout": 60}, ctx)
        yield suite, listener, obs, found, before
        suite.close()
        listener.sock.close()
    from cast.sandbox.policy import detect

    detect.cache_clear()


def _holds(found: Isolation, guarantee: str, held: bool, detail: str) -> None:
    """`held` must be true where the sandbox claims `guarantee`; elsewhere a breach is expected."""
    if not held and not getattr(found, guarantee):
        pytest.xfail(f"the sandbox here does not claim {guarantee} yet ({'; '.join(found.missing())}): {detail}")
    assert held, detail


def test_the_tests_ran_and_the_planner_sees_the_failure(ran):
    _, _, obs, _, _ = ran
    assert "[sandboxed, unverified: " in obs.text and "AssertionError: -1 != 5" in obs.text
    assert "hostile report:" in obs.text and "FAILED (failures=2)" in obs.text, obs.text[-3000:]


def test_nothing_written_persists(ran):
    suite, _, obs, _, before = ran
    assert suite.state() == before and suite.strays() == [], obs.text[-3000:]


def test_environment_has_no_keys(ran):
    suite, _, obs, found, _ = ran
    leaked = suite.leaked(obs.text.split("environment: ")[1].split("\n")[0])
    _holds(found, "env_scrubbed", not leaked, f"leaked: {leaked}")


def test_home_secrets_are_unreadable(ran):
    suite, _, obs, found, _ = ran
    leaked = [name for name in suite.leaked(obs.text) if name in ("ssh", "aws")]
    _holds(found, "home_hidden", not leaked, f"read: {leaked}")


def test_host_unix_sockets_are_unreachable(ran):
    suite, _, obs, found, _ = ran
    reached = suite.reached()
    _holds(found, "unix_sockets_blocked", not reached, f"reached: {reached}")


def test_no_network(ran):
    _, listener, obs, found, _ = ran
    _holds(found, "network_blocked", not listener.connected() and "tcp 127.0.0.1: refused" in obs.text, "127.0.0.1 reached")


def test_no_process_left(ran):
    suite, _, obs, found, _ = ran
    _holds(found, "pid_namespace", no_stray(suite.marker) and not running_in(Path(suite.root)), "a process outlived the run")


def test_memory_is_limited(ran):
    _, _, obs, found, _ = ran
    if not found.limits:  # the suite did not allocate: a machine without limits is not asked for 4 GB
        pytest.xfail(f"the sandbox here does not claim limits yet ({'; '.join(found.missing())})")
    assert "allocate 4 GB: refused MemoryError" in obs.text, obs.text[-3000:]
