"""Replay a recorded conversation: the model for tests, demos and offline work.

A script is JSONL, one model turn a line:

    {"text": "Looking around.", "tool_uses": [{"name": "list_files", "input": {}}]}

Optional keys: "thinking" (streamed as thinking), "stop" (stop reason, default "tool_use" when
there are tool uses, else "end_turn"), "delay" (seconds between streamed chunks, to let a front-end
interrupt a turn). Each request is answered by the next line; a request past the last line is an
error, because a silent fallback would hide a script that no longer matches the harness.

Set CAST_SCRIPT_RECORD=PATH to append every request cast sends (as JSON) to PATH; tests use it
to assert on what the model was actually shown.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cast.models.base import ModelError, ModelEvent, Request, Stop, TextDelta, ThinkingDelta, ToolUse, Usage
from cast.models.catalog import ModelSpec

CHARS_PER_TOKEN = 4


def load_script(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ModelError(f"cannot read script {path}: {exc.strerror}", exit_code=2) from exc
    turns = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            turn = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ModelError(f"{path}:{number}: not JSON: {exc.msg}", exit_code=2) from exc
        if not isinstance(turn, dict):
            raise ModelError(f"{path}:{number}: a turn must be a JSON object", exit_code=2)
        turns.append(turn)
    return turns


class ScriptedModel:
    def __init__(self, turns: list[dict[str, Any]], name: str = "scripted", record: Path | None = None):
        self.turns = turns
        self.name = name
        self.spec: ModelSpec | None = None  # a replay accepts anything: the client-side paths
        self.position = 0
        self.requests: list[Request] = []
        self.record = record
        self._tools: tuple[tuple[dict[str, Any], ...], int] = ((), 2)  # the last tool set and its size

    def _tools_chars(self, tools: tuple[dict[str, Any], ...]) -> int:
        """The tool set is fixed within a conversation: measure it once, not every step."""
        if tools is not self._tools[0]:
            self._tools = (tools, len(json.dumps(tools)))
        return self._tools[1]

    @classmethod
    def from_path(cls, path: Path) -> ScriptedModel:
        record = os.environ.get("CAST_SCRIPT_RECORD")
        return cls(load_script(path), name=f"script:{path.name}", record=Path(record) if record else None)

    def stream(self, request: Request) -> Iterator[ModelEvent]:
        self.requests.append(request)
        if self.record:
            with self.record.open("a", encoding="utf-8") as out:
                out.write(json.dumps(request.wire()) + "\n")
        if self.position >= len(self.turns):
            raise ModelError(f"scripted model: the script has no turn {self.position + 1} (it has {len(self.turns)})")
        turn = self.turns[self.position]
        self.position += 1
        delay = float(turn.get("delay", 0))
        content: list[dict[str, Any]] = []
        if thinking := turn.get("thinking"):
            yield ThinkingDelta(thinking)
            content.append({"type": "thinking", "thinking": thinking, "signature": "scripted"})
        if text := turn.get("text", ""):
            for chunk in _chunks(text):
                if delay and _waits(request, delay):
                    return  # interrupted while "thinking": end the reply without a Stop
                yield TextDelta(chunk)
            content.append({"type": "text", "text": text})
        tool_uses = turn.get("tool_uses", [])
        for index, use in enumerate(tool_uses):
            call = ToolUse(id=f"toolu_{self.position:03d}_{index}", name=use.get("name", ""), input=use.get("input", {}))
            yield call
            content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input})
        messages = request.chars if request.chars is not None else len(json.dumps(request.messages))
        prompt_chars = len(request.system) + self._tools_chars(request.tools) + messages
        yield Usage(input_tokens=prompt_chars // CHARS_PER_TOKEN, output_tokens=len(json.dumps(content)) // CHARS_PER_TOKEN)
        yield Stop(turn.get("stop", "tool_use" if tool_uses else "end_turn"), tuple(content))


def _waits(request: Request, seconds: float) -> bool:
    """Sleep like a slow model; True when the user interrupted meanwhile."""
    if request.cancel is None:
        time.sleep(seconds)
        return False
    return request.cancel.wait(seconds)


def _chunks(text: str, size: int = 16) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]
