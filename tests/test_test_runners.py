"""Every runner in the table reports its counts from its own closing lines: lines as each runner
prints them (from a real run here where the runner is installed, else from the runner's own
documentation and source), both runners' counts where two reports share an output, and nothing
for output no runner wrote."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cast.tools.process import run_command
from cast.tools.shell import observe
from cast.tools.test_runners import RUNNERS, parse_test_counts

CLOSING_LINES = {
    "pytest": (
        "============== 3 failed, 1 passed, 1 skipped, 1 xfailed in 3.50s ===============\n",
        {"passed": 1, "failed": 3, "skipped": 1, "xfailed": 1},
    ),
    "pytest -q": (
        "FAILED test_u.py::T::test_xpass\n1 failed, 4 passed, 2 deselected, 1 warning in 0.12s\n",
        {"passed": 4, "failed": 1, "deselected": 2},
    ),
    "unittest green with expected failures": (
        "..sx\n----------------------------------------------------------------------\nRan 3 tests in 0.001s\n\nOK (skipped=1, expected failures=1)\n",
        {"passed": 1, "skipped": 1, "xfailed": 1},
    ),
    "unittest failures beside expected failures": (
        "Ran 5 tests in 0.002s\n\nFAILED (failures=1, expected failures=2)\n",
        {"passed": 2, "failed": 1, "xfailed": 2},
    ),
    "unittest every outcome": (
        "Ran 6 tests in 0.001s\n\nFAILED (failures=1, errors=1, skipped=1, expected failures=1, unexpected successes=1)\n",
        {"passed": 1, "failed": 1, "errors": 1, "skipped": 1, "xfailed": 1, "xpassed": 1},
    ),
    "mocha": (
        "  mime\n    ✔ looks up\n\n\n  47 passing (120ms)\n  2 pending\n  1 failing\n\n  1) mime\n",
        {"passed": 47, "failed": 1, "skipped": 2},
    ),
    "mocha green": ("\n  47 passing (31ms)\n\n", {"passed": 47}),
    "jest": (
        "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 1 skipped, 1 todo, 2 passed, 5 total\nSnapshots:   0 total\n",
        {"passed": 2, "failed": 1, "skipped": 2},
    ),
    "vitest": (
        " Test Files  1 failed | 1 passed (2)\n      Tests  2 failed | 5 passed | 1 skipped (8)\n   Start at  10:00:00\n",
        {"passed": 5, "failed": 2, "skipped": 1},
    ),
    "node tap": (
        "1..4\n# tests 4\n# suites 0\n# pass 1\n# fail 1\n# cancelled 0\n# skipped 1\n# todo 1\n# duration_ms 203.08\n",
        {"passed": 1, "failed": 1, "skipped": 2},
    ),
    "node spec": (
        "ℹ tests 3\nℹ suites 0\nℹ pass 3\nℹ fail 0\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 45.1\n",
        {"passed": 3, "failed": 0, "skipped": 0},
    ),
    "go test -v": (
        "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n=== RUN   TestSub\n--- FAIL: TestSub (0.00s)\n    calc_test.go:9: got 1\n"
        "--- SKIP: TestMul (0.00s)\nFAIL\nFAIL\texample.com/calc\t0.003s\n",
        {"passed": 1, "failed": 1, "skipped": 1},
    ),
    "cargo": (
        "running 3 tests\ntest result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.14s\n\n"
        "   Doc-tests cr\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
        {"passed": 2, "failed": 1, "skipped": 1},
    ),
    "nextest": (
        "------------\n     Summary [   0.010s] 4 tests run: 3 passed, 1 failed, 1 skipped\n",
        {"passed": 3, "failed": 1, "skipped": 1},
    ),
    "ctest": (
        "67% tests passed, 1 tests failed out of 3\n\nTotal Test time (real) =   0.01 sec\n\n"
        "The following tests did not run:\n\t  3 - skip (Skipped)\n\nThe following tests FAILED:\n\t  2 - bad (Failed)\n",
        {"passed": 1, "failed": 1, "skipped": 1},
    ),
    "ctest green": (
        "100% tests passed, 0 tests failed out of 19\n\nTotal Test time (real) =   0.21 sec\n",
        {"passed": 19, "failed": 0},
    ),
    "rspec": (
        "Finished in 0.01 seconds (files took 0.1 seconds to load)\n5 examples, 1 failure, 1 pending\n",
        {"passed": 3, "failed": 1, "skipped": 1},
    ),
    "minitest": (
        "Finished in 0.001s, 3000 runs/s.\n\n4 runs, 5 assertions, 1 failures, 0 errors, 1 skips\n",
        {"passed": 2, "failed": 1, "errors": 0, "skipped": 1},
    ),
    "phpunit ok": ("...\n\nTime: 00:00.010, Memory: 4.00 MB\n\nOK (3 tests, 5 assertions)\n", {"passed": 3}),
    "phpunit failures": (
        "FAILURES!\nTests: 6, Assertions: 7, Failures: 1, Errors: 1, Skipped: 1, Incomplete: 1.\n",
        {"passed": 2, "failed": 1, "errors": 1, "skipped": 2},
    ),
    "maven surefire": (
        "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s - in com.example.AppTest\n"
        "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.1 s <<< FAILURE! - in com.example.CalcTest\n"
        "[INFO] Results:\n[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 1\n",
        {"passed": 3, "failed": 1, "errors": 0, "skipped": 1},
    ),
    "gradle": (
        "CalcTest > subtracts() FAILED\n\n5 tests completed, 1 failed, 1 skipped\n\nFAILURE: Build failed\n",
        {"passed": 3, "failed": 1, "skipped": 1},
    ),
    "dotnet test": (
        "Failed!  - Failed:     1, Passed:     4, Skipped:     1, Total:     6, Duration: 12 ms - Calc.Tests.dll (net8.0)\n",
        {"passed": 4, "failed": 1, "skipped": 1},
    ),
    "bats pretty": (
        " ✓ adds\n ✗ subtracts\n - multiplies (skipped)\n\n3 tests, 1 failure, 1 skipped\n",
        {"passed": 1, "failed": 1, "skipped": 1},
    ),
    "bats tap": (
        "1..3\nok 1 adds\nnot ok 2 subtracts\n# (in test file t.bats, line 5)\nok 3 multiplies # skip not yet\n",
        {"passed": 1, "failed": 1, "skipped": 1},
    ),
}


@pytest.mark.parametrize("case", sorted(CLOSING_LINES))
def test_each_runner_is_counted_from_its_closing_lines(case):
    output, expected = CLOSING_LINES[case]
    assert parse_test_counts(output) == expected


def test_the_table_has_a_row_for_every_runner_it_claims():
    names = {runner.name for runner in RUNNERS}
    wanted = {"pytest", "unittest", "mocha", "jest", "vitest", "node", "go", "cargo", "nextest", "ctest", "rspec"}
    assert wanted | {"minitest", "phpunit", "maven", "gradle", "dotnet", "bats", "tap"} <= names


def test_two_runners_in_one_output_both_count():
    output = CLOSING_LINES["pytest"][0] + CLOSING_LINES["mocha green"][0]
    assert parse_test_counts(output) == {"passed": 48, "failed": 3, "skipped": 1, "xfailed": 1}


def test_node_tap_is_counted_once_not_again_as_plain_tap():
    output = "ok 1 - a\nnot ok 2 - b\n1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n"
    assert parse_test_counts(output) == {"passed": 1, "failed": 1}


@pytest.mark.parametrize(
    "output",
    ["nothing here", "all good\n", "Built target calc\n", "ok  \texample.com/calc\t0.003s\n", "passed the parcel\n"],
)
def test_output_no_runner_wrote_gives_no_counts(output):
    assert parse_test_counts(output) == {}


def test_colour_codes_do_not_hide_a_closing_line():
    assert parse_test_counts("\x1b[32m  3 passing\x1b[0m \x1b[90m(4ms)\x1b[0m\n") == {"passed": 3}


def _observed(command: str, cwd) -> dict[str, int]:
    obs = observe(command, run_command(command, cwd, timeout=240))
    return obs.result.tests


def test_a_real_unittest_run_with_expected_failures_is_green_and_counted(tmp_path):
    (tmp_path / "test_u.py").write_text(
        textwrap.dedent(
            """
            import unittest
            class T(unittest.TestCase):
                def test_ok(self): pass
                @unittest.skip("later")
                def test_skip(self): pass
                @unittest.expectedFailure
                def test_xf(self): self.assertEqual(1, 2)
            """
        )
    )
    assert _observed(f"{sys.executable} -m unittest test_u", tmp_path) == {"passed": 1, "skipped": 1, "xfailed": 1}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_real_node_test_run_is_counted(tmp_path):
    (tmp_path / "calc.test.js").write_text(
        "const test = require('node:test'); const assert = require('assert');\n"
        "test('adds', () => {}); test('subtracts', () => { assert.equal(1, 2) });\n"
        "test('later', {skip: true}, () => {});\n"
    )
    assert _observed("node --test", tmp_path) == {"passed": 1, "failed": 1, "skipped": 1}


@pytest.mark.skipif(shutil.which("ctest") is None or shutil.which("cmake") is None, reason="cmake is not installed")
def test_a_real_ctest_run_is_counted_with_its_skipped_test(tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.10)\nproject(t NONE)\nenable_testing()\n"
        "add_test(NAME good COMMAND true)\nadd_test(NAME bad COMMAND false)\n"
        'add_test(NAME later COMMAND sh -c "exit 77")\nset_tests_properties(later PROPERTIES SKIP_RETURN_CODE 77)\n'
    )
    subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=tmp_path, check=True, capture_output=True)
    assert _observed("cd build && ctest", tmp_path) == {"passed": 1, "failed": 1, "skipped": 1}


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_a_real_cargo_test_run_is_counted(tmp_path, monkeypatch):
    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)  # the tests' HOME is a temp dir; rustup's toolchains are not
    for name, folder in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if (real_home / folder).is_dir():
            monkeypatch.setenv(name, str(real_home / folder))
    crate = tmp_path / "calc"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "lib.rs").write_text(
        "#[cfg(test)]\nmod tests {\n    #[test] fn adds() {}\n    #[test] #[ignore] fn later() {}\n}\n"
    )
    assert _observed("cargo test --offline --lib -q", crate) == {"passed": 1, "failed": 0, "skipped": 1}
