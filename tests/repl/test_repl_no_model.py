"""A task typed when no model can start (no API key, a script that is gone) is not lost: the
REPL says so, and the history brings it back."""

from __future__ import annotations

from replkit import harness  # noqa: F401  (a fixture)


def test_a_task_that_cannot_start_is_kept_for_the_next_try(harness, repo):
    h = harness([{"text": "never read"}])
    (repo.parent / "script.jsonl").unlink()  # the model cannot load, as without a key
    h.send("fix the discount rounding\r")
    h.wait_text("cannot start")
    h.wait_text("Your task is kept")
    h.wait_idle()
    h.send("\x1b[A")  # Up
    h.wait(lambda: h.repl.buffer_text() == "fix the discount rounding", "the task back in the line")
