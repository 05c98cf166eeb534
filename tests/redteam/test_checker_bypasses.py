"""Shell constructs a checker can misread, each carrying a payload that really writes (shown first
in plain bash): quoting bash rewrites ($'..', brace expansion), substitutions hidden in heredocs,
process substitution, default-value expansion and array subscripts that `[[ ]]` evaluates,
wrappers (command, builtin, exec, env, xargs), options that write (git --output, find -fprint,
sort -o, sed w) and programs that run others (awk system, less with LESSOPEN, rg --pre, a pager).
`cast check-command` must say blocked, and plan mode with no kernel sandbox (the checker is then
the only layer) must run none of them: end to end, judged by the markers."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import invoke_cast
from plan_runs import run_attacks

WRITES = [
    "$'\\x74ouch' {M}",
    "{touch,{M}}",
    "cat <<EOF\n$(touch {M})\nEOF",
    "cat <(touch {M})",
    "echo ${x:=$(touch {M})}",
    "[[ -v 'x[$(touch {M})]' ]]",
    "[[ 'x[$(touch {M})]' -eq 0 ]]",
    "command touch {M}",
    "builtin eval 'touch {M}'",
    "exec touch {M}",
    "env touch {M}",
    "xargs touch <<< {M}",
    "git log -1 --output={M}",
    "git diff --output={M}",
    "find . -maxdepth 0 -fprint {M}",
    "sort -o {M} README.md",
    "sed -n '1w {M}' README.md",
    "awk 'BEGIN { system(\"touch {M}\") }'",
    "LESSOPEN='|touch {M} %s' less README.md",
    "rg --pre {S} demo README.md",
]
REFUSED_ONLY = [  # a pager runs only on a terminal, so these write nothing here; still never allowed
    "GIT_PAGER='touch {M}' git -p log -1",
    "git -c core.pager='touch {M}' -p log -1",
    "MANPAGER='touch {M}' man ls",
]


def _armed(markers: Path) -> list[str]:
    """Each attack with its own marker (and an rg preprocessor script that touches one)."""
    script = markers.parent / "pre.sh"
    script.write_text(f"#!/bin/sh\ntouch '{markers}/rg-pre'\ncat \"$1\"\n")
    script.chmod(0o755)
    every = WRITES + REFUSED_ONLY
    return [a.replace("{M}", str(markers / f"m{i}")).replace("{S}", str(script)) for i, a in enumerate(every)]


@pytest.fixture
def armed(repo: Path, tmp_path: Path) -> tuple[Path, Path, list[str]]:
    markers = tmp_path / "markers"
    markers.mkdir()
    return repo, markers, _armed(markers)


def test_every_attack_really_writes_in_plain_bash(armed):
    repo, markers, attacks = armed
    for attack in attacks[: len(WRITES)]:
        subprocess.run(["bash", "-c", attack], cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, check=False)
    made = {p.name for p in markers.iterdir()}
    assert [a for i, a in enumerate(attacks[: len(WRITES)]) if f"m{i}" not in made and "rg --pre" not in a] == []
    assert "rg-pre" in made


def test_check_command_blocks_every_attack(armed):
    repo, markers, attacks = armed
    allowed = []
    for attack in attacks:
        done = invoke_cast(repo, "check-command", attack)
        if done.returncode != 1 or not done.stdout.startswith("blocked"):
            allowed.append((attack, done.stdout))
    assert allowed == [] and list(markers.iterdir()) == []


def test_plan_mode_with_no_sandbox_runs_none_of_them(armed, tmp_path):
    repo, markers, attacks = armed
    run = run_attacks(repo, tmp_path, attacks)
    ran = [a for a, r in zip(attacks, run.attempts, strict=True) if r.get("is_error") is not True]
    assert ran == [] and list(markers.iterdir()) == [], ran
    assert not os.path.exists(repo / "pwned")
