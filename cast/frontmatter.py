"""The YAML front matter of a SKILL.md, read as the small subset skills are written in.

Other agents' skills start with `---`, a few `key: value` lines (`name`, `description`, sometimes
`license`, `allowed-tools` or a `metadata:` mapping) and `---`. cast needs two strings from that
block, so it reads plain, quoted and block (`>`, `|`) scalars at the top level and passes over
nested values, instead of depending on a YAML library: a repository's file cannot reach a YAML
feature (tags, anchors, aliases) through this reader, because it has none.
"""

from __future__ import annotations

import json
import re

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|$)")
_BLOCK = re.compile(r"[|>][+-]?[0-9]?")


class FrontMatterError(ValueError):
    """The block is missing or cannot be read; the message says what to fix."""


def split(text: str) -> tuple[dict[str, str], str]:
    """The top-level scalar fields of the front matter, and the body after it."""
    lines = text.lstrip("\ufeff").split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FrontMatterError("it does not start with a `---` front matter block")
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return fields(lines[1:end]), "\n".join(lines[end + 1 :])
    raise FrontMatterError("its front matter opened with `---` is never closed")


def fields(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line[0] in " \t":
            continue  # blank, a comment, or inside a value passed over
        match = _KEY.fullmatch(line.rstrip())
        if match is None:
            raise FrontMatterError(f"front matter line {index + 1} is not `key: value`")
        key, value = match.group(1), (match.group(2) or "").strip()
        more = []
        while index < len(lines) and (not lines[index].strip() or lines[index][0] in " \t"):
            more.append(lines[index].rstrip("\r"))
            index += 1
        parsed = _scalar(value, more, index)
        if parsed is not None:
            found[key] = parsed
    return found


def _scalar(value: str, more: list[str], line: int) -> str | None:
    """The string a top-level value holds, or None for what is not one (a mapping, a list)."""
    if _BLOCK.fullmatch(value):
        kept = [text.strip() for text in more]
        return ("\n" if value.startswith("|") else " ").join(kept).strip()
    if not value:
        return None if any(text.strip() for text in more) else ""
    if value.startswith('"'):
        whole = " ".join([value, *(text.strip() for text in more)]).strip()
        try:
            decoded = json.loads(whole)
        except ValueError:
            raise FrontMatterError(f"front matter line {line}: a double-quoted value is not closed or has a bad escape") from None
        return decoded if isinstance(decoded, str) else None
    if value.startswith("'"):
        whole = " ".join([value, *(text.strip() for text in more)]).strip()
        if len(whole) < 2 or not whole.endswith("'"):
            raise FrontMatterError(f"front matter line {line}: a single-quoted value is not closed")
        return whole[1:-1].replace("''", "'")
    if value[0] in "[{&*!":
        return None  # a flow collection, an anchor, an alias or a tag: not a plain string
    plain = " ".join([value, *(text.strip() for text in more if text.strip())])
    return re.sub(r"[ \t]+#.*$", "", plain).strip()
