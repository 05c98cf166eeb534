"""What an aged tool result becomes: one line saying what it was and how to get it again
(`[elided: read_file src/a.py lines 1-200 of 912 (8.1 KB) — call read_file again if needed]`), so
the model can tell a result it no longer has from one it never asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

ELIDED = "[elided: "
MIN_ELIDE_CHARS = 600  # below this an elision saves nothing worth a cache rewrite


def _short(value: Any, limit: int = 120) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe_read(args: dict[str, Any], content: str) -> str:
    lines = re.search(r"lines (\d+-\d+ of \d+)", content[:400])
    where = f" lines {lines[1]}" if lines else ""
    return f"read_file {_short(args.get('path', '?'))}{where}"


def _describe_bash(args: dict[str, Any], content: str) -> str:
    code = re.match(r"exit_code=(-?\d+)", content)
    return f"bash `{_short(args.get('command', '?'), 100)}`" + (f" exit_code={code[1]}" if code else "")


def _describe_grep(args: dict[str, Any], content: str) -> str:
    where = "".join(f" {k}={_short(args[k], 60)!s}" for k in ("path", "glob") if args.get(k))
    return f"grep {_short(args.get('pattern', '?'), 80)!r}{where}"


def _describe_list(args: dict[str, Any], content: str) -> str:
    return f"list_files {_short(args.get('path') or '.', 80)}" + (
        f" pattern={_short(args['pattern'], 60)}" if args.get("pattern") else ""
    )


# tool name -> (describe(input, content), how to get it again)
DESCRIBERS: dict[str, tuple[Callable[[dict[str, Any], str], str], str]] = {
    "read_file": (_describe_read, "call read_file again if needed"),
    "bash": (_describe_bash, "run it again if needed"),
    "grep": (_describe_grep, "call grep again if needed"),
    "list_files": (_describe_list, "call list_files again if needed"),
}


def elision(name: str, args: Any, content: str) -> str:
    """`[elided: read_file src/a.py lines 1-200 of 912 (8.1 KB) — call read_file again if needed]`"""
    args = args if isinstance(args, dict) else {}
    describe, hint = DESCRIBERS.get(name, (None, f"call {name} again if needed"))
    what = describe(args, content) if describe else f"{name} {_short(json.dumps(args), 120)}"
    size = len(content.encode("utf-8", "replace"))
    return f"{ELIDED}{what} ({size / 1024:.1f} KB) — {hint}]"


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)
