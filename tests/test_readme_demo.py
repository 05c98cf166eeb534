"""The README's offline demo is real: its commands produce the output it shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import git

ROOT = Path(__file__).resolve().parent.parent
DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?")


def shown(command: str) -> str:
    """The README's transcript block that starts with `$ {command}`, up to the next `$ ` line."""
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index(f"\n$ {command}\n") + 1 :]
    block = block[: block.index("```")]
    lines = block.splitlines()[1:]
    end = next((i for i, line in enumerate(lines) if line.startswith("$ ")), len(lines))
    return "\n".join(lines[:end])


def normal(text: str, workspace: Path) -> str:
    return DATE.sub("DATE", text.replace(str(workspace), "/tmp/calc")).strip()


def same_story(real: str, shown: str) -> bool:
    """The README's block is the real output, verbatim, except that a line `…` stands for lines
    left out: the parts between them appear in order, the first at the start, the last at the end."""
    parts = ["\n".join(part).strip("\n") for part in _split(shown.splitlines())]
    if len(parts) == 1:
        return real == shown
    at = 0
    for n, part in enumerate(parts):
        found = real.find(part, at)
        if found < 0 or (n == 0 and found != 0):
            return False
        at = found + len(part)
    return real.endswith(parts[-1])


def _split(lines: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for line in lines:
        if line == "…":
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def test_readme_plan_and_execute_transcripts_match_a_real_run(tmp_path):
    calc = tmp_path / "calc"
    shutil.copytree(ROOT / "examples" / "calc", calc)
    git(calc, "init", "-q")
    git(calc, "add", "-A")
    git(calc, "commit", "-qm", "init")

    def cast(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "cast", *args], cwd=calc, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "trusted" in cast("trust")  # the example's config allows its test command: a loosening key
    planned = cast("--model", f"script:{ROOT / 'examples/scripts/plan.jsonl'}", "plan", "Fix add and cover negative numbers")
    assert same_story(normal(planned, calc), normal(shown('cast plan "Fix add and cover negative numbers"'), calc))
    executed = cast("--model", f"script:{ROOT / 'examples/scripts/execute.jsonl'}", "execute")
    assert same_story(normal(executed, calc), normal(shown("cast execute"), calc))
    assert "\n…\n" in shown("cast execute")  # the elision is used, and checked
    assert normal(cast("plans"), calc) == normal(shown("cast plans"), calc)


def test_an_elided_transcript_must_still_be_the_real_output_in_order():
    real = "a\nb\nc\nd"
    assert same_story(real, "a\n…\nc\nd") and same_story(real, "a\nb\n…\nd")
    assert not same_story(real, "a\n…\nx\n…\nd") and not same_story(real, "b\n…\nd") and not same_story(real, "a\n…\nc")
    assert not same_story(real, "a\n…\nd\n…\nc")


def test_readme_configuration_example_is_accepted_by_the_loader():
    import tomllib

    from cast.config import Config, _merge

    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("```toml\n") + len("```toml\n") :]
    values = tomllib.loads(block[: block.index("```")])
    config = _merge(Config(), values, "README")
    assert config.allow == ("python3 -m pytest*",) and config.keep_recent_steps == 2 and config.plan_commands == "sandboxed"


HIDE_TEST_EXTRA = '''\
import sys
class _HideTestExtra:
    """This environment was installed without cast's `test` extra."""
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in {"pytest", "_pytest", "hypothesis", "pexpect"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _HideTestExtra)
'''


def offline_commands() -> str:
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("## Try it offline") :]
    block = block[block.index("```bash\n") + len("```bash\n") :]
    return block[: block.index("```")]


def test_the_offline_demo_tells_a_true_story_with_only_the_package_installed(tmp_path):
    """The README's offline demo, its commands run verbatim, in a virtual environment that has cast
    installed by `pip install -e` and no `test` extra: the example project's tests must run with the
    standard library, and the report must show exactly what happened.

    A truly fresh venv cannot be built here without the network (cast's dependencies, tree-sitter
    among them, are not in the machine's local package index), so the venv sees the system's
    site-packages for the runtime dependencies, cast itself is installed into it (without
    dependencies, its build backend from the local index when there is one), and the test extra
    (pytest, hypothesis, pexpect) is made unimportable by a path hook, as if never installed. The
    test checks that hiding: `python3 -m pytest` fails in that venv with "No module named pytest".
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "_hide_test_extra.py").write_text(HIDE_TEST_EXTRA)
    (site / "zz_hide_test_extra.pth").write_text("import _hide_test_extra\n")
    local_index = Path("/opt/pypi/simple")
    source = ["--index-url", local_index.as_uri()] if local_index.is_dir() else ["--no-index", "--no-build-isolation"]
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", *source, "-e", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAST_", "PYTHON", "ANTHROPIC_", "VIRTUAL_ENV"))}
    env |= {"PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "TMPDIR": str(tmp_path)}
    python3 = shutil.which("python3", path=env["PATH"])
    assert python3 == str(venv / "bin" / "python3")
    no_pytest = subprocess.run([python3, "-m", "pytest", "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert no_pytest.returncode == 1 and "No module named 'pytest'" in no_pytest.stderr
    assert (
        subprocess.run(
            [python3, "-c", "import cast, sys; assert cast.__file__.startswith(sys.argv[1])", str(ROOT)], env=env, timeout=60
        ).returncode
        == 0
    )

    done = subprocess.run(
        ["bash", "-e", "-c", offline_commands()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "No module named" not in out and "FAIL" not in out and "UNCHECKED" not in out
    report = out[out.index("\nResult: ") :]
    assert report.startswith("\nResult: done (the model finished its turn)\nPlan: 2/2 items done (2 this run)")
    assert "  ok   `python3 -m unittest` exit 0 (2 passed)\n  ok   `python3 -m unittest` exit 0 (3 passed)\n" in report
    assert '  checked   "`python3 -m unittest` ran 3 tests, OK"' in report
    assert (tmp_path / "calc" / ".cast" / "plans").is_dir() and "return a + b" in (tmp_path / "calc" / "calc.py").read_text()
