"""The README's offline demo is real: its commands produce the output it shows."""
from __future__ import annotations

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
    block = readme[readme.index(f"\n$ {command}\n") + 1:]
    block = block[: block.index("```")]
    lines = block.splitlines()[1:]
    end = next((i for i, line in enumerate(lines) if line.startswith("$ ")), len(lines))
    return "\n".join(lines[:end])


def normal(text: str, workspace: Path) -> str:
    return DATE.sub("DATE", text.replace(str(workspace), "/tmp/calc")).strip()


def test_readme_plan_and_execute_transcripts_match_a_real_run(tmp_path):
    calc = tmp_path / "calc"
    shutil.copytree(ROOT / "examples" / "calc", calc)
    git(calc, "init", "-q")
    git(calc, "add", "-A")
    git(calc, "commit", "-qm", "init")

    def cast(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "cast", *args], cwd=calc, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    planned = cast("--model", f"script:{ROOT / 'examples/scripts/plan.jsonl'}", "plan", "Fix add and cover negative numbers")
    assert normal(planned, calc) == normal(shown('cast plan "Fix add and cover negative numbers"'), calc)
    executed = cast("--model", f"script:{ROOT / 'examples/scripts/execute.jsonl'}", "execute")
    assert normal(executed, calc) == normal(shown("cast execute"), calc)
    assert normal(cast("plans"), calc) == normal(shown("cast plans"), calc)


def test_readme_configuration_example_is_accepted_by_the_loader():
    import tomllib

    from cast.config import Config, _merge

    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("```toml\n") + len("```toml\n"):]
    values = tomllib.loads(block[: block.index("```")])
    config = _merge(Config(), values, "README")
    assert config.allow == ("python3 -m pytest*",) and config.keep_recent_steps == 6
