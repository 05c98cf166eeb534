"""An MCP tool's result as the observation the model reads.

A server is outside cast and may be hostile: its text is joined and capped (never silently), every
control character is made visible (an OSC 52 clipboard write or a clear-screen reaches neither the
model's transcript raw nor a terminal), images, audio and resources are summarised by type and size
rather than pasted, and `isError` is a failed observation. Works on the result as plain JSON (the
SDK's `model_dump(by_alias=True)`) so it can be tested, and read, without the SDK.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from cast.text import clip, terminal_safe

LIMIT = 30_000  # characters of a result the model sees; the rest is cut with the truncation marker
EXTERNAL = "[external, unverified: from MCP server {server}; plan mode cannot check what it did or says]"


@dataclass(frozen=True)
class Rendered:
    text: str
    ok: bool
    summary: str


def render(result: dict[str, Any], server: str, *, plan: bool = False, limit: int = LIMIT) -> Rendered:
    """`result` (a CallToolResult as JSON) as the model's text: parts joined by blank lines, capped,
    made visible; in plan mode headed by the "external, unverified" label."""
    content = result.get("content")
    parts = [describe(block) for block in content] if isinstance(content, list) else []
    structured = result.get("structuredContent")
    if not any(isinstance(b, dict) and b.get("type") == "text" for b in content or []) and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, sort_keys=True))  # a structured-only result
    text = "\n\n".join(part for part in parts if part) or "(the tool returned no content)"
    text = terminal_safe(clip(text, limit))
    failed = bool(result.get("isError"))
    if failed:
        text = f"error: the MCP tool reported a failure:\n{text}"
    if plan:
        text = EXTERNAL.format(server=server) + "\n" + text
    return Rendered(text, not failed, _summary(content, failed))


def describe(block: Any) -> str:
    """One content block: text as itself; anything else as a line saying what it was and how big."""
    if not isinstance(block, dict):
        return f"[unreadable content block: {type(block).__name__}]"
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind}: {block.get('mimeType') or 'unknown type'}, {_size(_decoded_len(block.get('data')))}; not shown]"
    if kind == "resource":
        found = block.get("resource")
        inner: dict[str, Any] = found if isinstance(found, dict) else {}
        uri, mime = inner.get("uri", "?"), inner.get("mimeType") or "unknown type"
        if "text" in inner:
            text = str(inner["text"])
            return f"[resource {uri} ({mime}, {_size(len(text.encode('utf-8', 'replace')))})]\n{text}"
        return f"[resource {uri}: {mime}, {_size(_decoded_len(inner.get('blob')))}; binary, not shown]"
    if kind == "resource_link":
        size = block.get("size")
        extra = f", {_size(size)}" if isinstance(size, int) else ""
        return f"[resource link {block.get('uri', '?')} ({block.get('mimeType') or 'unknown type'}{extra}); not fetched]"
    return f"[content of type {str(kind)[:40]!r}; not shown]"


def _decoded_len(data: Any) -> int:
    if not isinstance(data, str):
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def _size(count: int) -> str:
    for unit, size in (("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def _summary(content: Any, failed: bool) -> str:
    blocks = content if isinstance(content, list) else []
    kinds = sorted({str(b.get("type")) for b in blocks if isinstance(b, dict)})
    said = f"{len(blocks)} block{'s' if len(blocks) != 1 else ''}" + (f" ({', '.join(kinds)})" if kinds else "")
    return ("isError: " if failed else "") + said
