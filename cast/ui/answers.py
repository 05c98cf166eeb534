"""A program answers a run's questions: `cast --json ... --answers stdin` prints each question as an
`asked` event and reads its answer as one JSON line on stdin, so an editor or a CI job can drive
approvals the way a person does at the terminal.

An answer is `{"id": "q1", "answer": "yes" | "no" | "always", "note": "..."}` (`id` and `note`
optional; `always` only where the question offers it). Whatever cannot be read as an answer to
that question, end of input included, is a "no", said on stderr: a program that lost track never
approves anything by accident.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from cast.agent import events as ev
from cast.safety.decision import Abilities, ApprovalAnswer, ApprovalRequest

MAX_LINE = 64 * 1024  # one answer; a longer line is not one


class StdinAnswers:
    """An `agent.asking.Answering` approver over a stream of JSON lines."""

    def __init__(self, stream: TextIO | None = None, errors: TextIO | None = None) -> None:
        self.stream = stream or sys.stdin
        self.errors = errors or sys.stderr
        self.abilities = Abilities()  # edits are not asked about in a one-shot run

    def answer(self, asked: ev.Asked) -> ApprovalAnswer:
        line = self.stream.readline(MAX_LINE + 1)
        if not line:
            return self._no(asked, "end of input")
        try:
            return parse(line, asked)
        except ValueError as exc:
            return self._no(asked, str(exc))

    def _no(self, asked: ev.Asked, why: str) -> ApprovalAnswer:
        self.errors.write(f"cast: no usable answer to {asked.id} ({why}): taken as no\n")
        self.errors.flush()
        return ApprovalAnswer("no")


def parse(line: str, asked: ev.Asked) -> ApprovalAnswer:
    """The answer `line` gives to `asked`, or ValueError saying why it gives none."""
    if len(line) > MAX_LINE:
        raise ValueError(f"a line over {MAX_LINE} characters")
    try:
        data: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ValueError('not a JSON object like {"id": "q1", "answer": "yes"}')
    if "id" in data and data["id"] != asked.id:
        raise ValueError(f"it answers {str(data['id'])[:40]!r}, and the question is {asked.id}")
    value, note = data.get("answer"), data.get("note", "")
    offered = ["yes", "no"] + (["always"] if _always_offered(asked.request) else [])
    if value not in offered:
        raise ValueError(f"answer is one of {', '.join(offered)}, not {str(value)[:40]!r}")
    if not isinstance(note, str):
        raise ValueError("note must be a string")
    return ApprovalAnswer(value, note)


def _always_offered(request: Any) -> bool:
    return isinstance(request, ApprovalRequest) and request.always_label is not None
