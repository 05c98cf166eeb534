"""A session's transcript journal, read back: records in order (a torn last line from a kill is
dropped), replayed the way `Transcript` applied them (append, merge, whole-history replace), the
prefix declared last, the questions the runs asked with their answers (`questions`: an audit of
the approvals given; replay skips them, as every meta record), and the result made valid for the
API (every tool call answered), so a resumed session can be sent as is. Apart from `sessions.py`, which writes the journal, because
reading it back is pure: no files kept open, no threads, testable on lists.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from cast.fsutil import read_regular

Message = dict[str, Any]
NOT_RUN = (
    "[interrupted: cast stopped before this result was recorded; the call may have run, so check its effects before repeating it]"
)


class SessionError(Exception):
    """A session cannot be found or read; the message says which and why."""


def read_records(path: Path) -> list[Message]:
    """Journal records in order. A torn (undecodable) last line is dropped; a bad line in the
    middle means the file was damaged by something other than a crash, and is an error."""
    try:
        lines = read_regular(path).split(b"\n")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise SessionError(f"cannot read {path}: {exc.strerror or exc}") from None
    records = []
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            if number == last:
                break
            raise SessionError(f"{path}:{number + 1}: damaged record (not JSON)") from None
        if not isinstance(record, dict) or "role" not in record:
            raise SessionError(f"{path}:{number + 1}: not a message record")
        records.append(record)
    return records


def replay(records: list[Message]) -> list[Message]:
    """Apply journal records the way `Transcript` applied them: append, merge, replace."""
    messages: list[Message] = []
    for record in records:
        if record["role"] == "meta":
            if "replace" in record:
                messages = copy.deepcopy(record["replace"])
            continue
        if record.get("merged") and messages and messages[-1]["role"] == record["role"]:
            messages[-1]["content"].extend(copy.deepcopy(record["content"]))
            continue
        message = {k: copy.deepcopy(v) for k, v in record.items() if k != "merged"}
        if not isinstance(message.get("content"), list):
            message["content"] = [{"type": "text", "text": str(message.get("content", ""))}]
        if messages and messages[-1]["role"] == message["role"]:
            messages[-1]["content"].extend(message["content"])  # keep roles alternating
        else:
            messages.append(message)
    return messages


def last_prefix(records: list[Message]) -> dict[str, Any] | None:
    """The prefix the conversation declared last (None for a session that never recorded one)."""
    for record in reversed(records):
        if record["role"] == "meta" and isinstance(record.get("prefix"), dict):
            prefix: dict[str, Any] = copy.deepcopy(record["prefix"])
            return prefix
    return None


def questions(records: list[Message]) -> list[dict[str, Any]]:
    """Every question the session's runs asked, in order, each with its answer (None: the run
    ended before one came): `{"id", "kind", "request", "call_id", "answer"}` as `--json` printed
    them. Sessions from before questions were journalled have none."""
    found: list[dict[str, Any]] = []
    waiting: dict[str, dict[str, Any]] = {}  # by id: ids are numbered per process, so a resumed session repeats them
    for record in records:
        event = record.get("question") if record["role"] == "meta" else None
        if not isinstance(event, dict) or not isinstance(event.get("id"), str):
            continue
        if event.get("type") == "asked":
            row = {k: event.get(k) for k in ("id", "kind", "request", "call_id")} | {"answer": None}
            found.append(row)
            waiting[event["id"]] = row
        elif event.get("type") == "answered" and event["id"] in waiting:
            waiting.pop(event["id"])["answer"] = event.get("answer")
    return found


def make_valid(messages: list[Message]) -> list[Message]:
    """Answer every tool_use that has no tool_result, where the API expects it: first in the
    next user message (or in a new one at the end)."""
    result = [dict(m, content=list(m["content"])) for m in messages]
    index = 0
    while index < len(result):
        message = result[index]
        if message["role"] == "assistant":
            uses = [b["id"] for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
            if uses:
                if index + 1 == len(result) or result[index + 1]["role"] != "user":
                    result.insert(index + 1, {"role": "user", "content": []})
                after = result[index + 1]["content"]
                answered = {b.get("tool_use_id"): b for b in after if isinstance(b, dict) and b.get("type") == "tool_result"}
                rest = [b for b in after if not (isinstance(b, dict) and b.get("type") == "tool_result")]
                results = [
                    answered.get(i) or {"type": "tool_result", "tool_use_id": i, "content": NOT_RUN, "is_error": True}
                    for i in uses
                ]  # in call order, ahead of any text, as the API wants
                result[index + 1]["content"] = results + rest
        index += 1
    return result
