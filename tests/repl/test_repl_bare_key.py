"""A choice key alone at a question is shown as that choice but answers only with Enter: when it
is pressed it cannot be told from the first letter of a sentence, and no pause settles that."""

from __future__ import annotations

import time

from replkit import harness  # noqa: F401  (a fixture)
from test_repl_questions import SPARE, asking, bash, screen, write_plan


def test_a_key_then_a_pause_is_not_an_answer_and_the_sentence_it_starts_is_text(harness, repo):
    write_plan(repo)
    h = harness([bash("python3 -m pytest -q"), {"text": "Understood, with -x then."}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    h.send("a")  # on an empty line
    h.wait(lambda: "Enter: [a]lways this session" in screen(h), "the choice marked")
    time.sleep(1.5)  # a person thinking mid-word
    assert h.repl.asker.current is not None and "approved" not in h.out.text()
    h.send("ctually, run it with -x first\r")
    h.wait_text("Understood, with -x then.")
    out = h.out.text()
    assert "approved" not in out and "told the agent instead: actually, run it with -x first" in out


def test_a_key_alone_with_enter_answers(harness, repo):
    write_plan(repo)
    h = harness([bash("python3 -m pytest -q"), {"text": "Ran."}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    h.send("y\r")
    h.wait_text("approved once")
