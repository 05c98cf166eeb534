"""The real `cast` REPL in a pseudo-terminal, pointed at the strict fake Messages API."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect
from conftest import cast_env
from fakeapi import FakeAPI
from test_repl_pty import Term

TIMEOUT = 40


def spawn(repo: Path, api: FakeAPI, *args: str, **env: str) -> Term:
    """`cast ARGS` in `repo`, with a key for the fake and an editor that changes nothing."""
    environment = cast_env(
        ANTHROPIC_BASE_URL=api.url,
        ANTHROPIC_API_KEY="test-key",
        TERM="xterm-256color",
        PROMPT_TOOLKIT_NO_CPR="1",
        EDITOR="true",
        **env,
    )
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cast", *args],
        cwd=str(repo),
        env=environment,
        encoding="utf-8",
        dimensions=(40, 200),
        timeout=TIMEOUT,
    )
    return Term(child)


def leave(term: Term) -> int:
    """/exit, then the REPL's exit status."""
    term.child.send("/exit\r")
    term.child.expect(pexpect.EOF, timeout=TIMEOUT)
    term.child.close()
    return term.child.exitstatus


def ended(term: Term) -> int:
    """Everything the child wrote until it exited, then its exit status."""
    term.child.expect(pexpect.EOF, timeout=TIMEOUT)
    term.raw += term.child.before or ""
    term.child.close()
    return term.child.exitstatus


def resume_and_ask(repo: Path, api: FakeAPI, *args: str) -> int:
    """`cast [ARGS] resume`: wait until the resume is done (what is typed then is a new turn, not
    guidance), ask what changed, wait for the answer and the stop, leave; the exit status."""
    term = spawn(repo, api, *args, "resume")
    term.expect(r"Resumed \S+ in execute mode")
    term.expect("Type to continue.")
    term.child.send("What changed?\r")
    term.expect("Only app.py changed")
    term.expect("■ done")
    code = leave(term)
    assert code == 0, term.text
    return code
