"""What the harness tells the model on its own, between requests. Each goes in as an appended
system notice (`Transcript.notice`), never as an edit to what was sent: the wording lives here so
the loop reads as control flow, and every notice reads the same way ("[cast: ...]").
"""

from __future__ import annotations

from collections.abc import Iterator

from cast.agent import events as ev
from cast.agent.guards import CallRecord
from cast.agent.transcript import Transcript
from cast.safety.paths import relative
from cast.workspace import Workspace


def guidance(text: str) -> str:
    """Guidance typed while the model worked, quoted: it is about the current task, not a new one."""
    return (
        "[cast: Guidance from the user, typed while you were working, quoted below as the user wrote it. It is "
        "about the current task, not a new task: take it into account and carry on.]\n<user-guidance>\n"
        + text
        + "\n</user-guidance>"
    )


def stale_reads(workspace: Workspace, transcript: Transcript, record: CallRecord) -> Iterator[ev.Event]:
    """Before each request: files the model read that changed since. They invalidate the record
    of identical calls and the model is told, so it never works from a stale view."""
    stale = workspace.reads.stale()
    if stale:
        record.changed()
        names = ", ".join(relative(workspace.root, p) for p in stale)
        transcript.notice(f"[cast: files you read earlier have changed since: {names}. Read them again before relying on them.]")
        yield ev.Notice(f"changed since read: {names}")
