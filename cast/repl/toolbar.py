"""What the bottom toolbar and the prompt line say: mode, model, session, context size, cost.

The mode must be unmistakable: `plan ›` in cyan, `execute ›` in yellow, and the same word, in the
same colour, at the start of the toolbar."""
from __future__ import annotations

from typing import Any

from prompt_toolkit.styles import Style

MODE_STYLE = {"plan": "cyan", "execute": "yellow"}
STYLE = Style.from_dict({
    "mode.plan": "bold ansicyan",
    "mode.execute": "bold ansiyellow",
    "bottom-toolbar": "noreverse bg:#262626 #bcbcbc",
    "bottom-toolbar.mode.plan": "bold bg:ansicyan #000000",
    "bottom-toolbar.mode.execute": "bold bg:ansiyellow #000000",
    "bottom-toolbar.dim": "#808080",
    "working": "ansimagenta",
    "question": "bold ansiyellow",
    "question.detail": "bold",
    "question.keys": "ansiyellow",
    "question.selected": "bold reverse ansiyellow",
    "question.hint": "#8a8a8a",
    "placeholder": "#6c6c6c italic",
})


def tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def prompt_label(mode: str) -> list[tuple[str, str]]:
    return [(f"class:mode.{mode}", f"{mode} ›"), ("", " ")]


def toolbar_fragments(state: Any, busy: bool, width: int) -> list[tuple[str, str]]:
    """One line, cut to `width`: least useful parts go first when the terminal is narrow."""
    usage = state.total()
    mode = state.mode
    session = state.session_id or "new session"
    parts = [
        state.model_name(),
        session,
        f"ctx {tokens(usage.context_tokens)}",
        state.cost_label(),
    ]
    hint = "working · Esc interrupts" if busy else "⇧Tab mode · /help"
    head = f" {mode.upper()} "
    body = " │ ".join(parts)
    room = width - len(head) - 2
    line = f"{body} │ {hint}"
    if len(line) > room:
        line = body
    if len(line) > room:  # narrow terminal: shorten the session id, then cut
        parts[1] = session[:12] + "…" if len(session) > 13 else session
        line = " │ ".join(parts)
    if len(line) > room:
        line = line[: max(0, room - 1)] + "…"
    return [(f"class:bottom-toolbar.mode.{mode}", head), ("class:bottom-toolbar", " " + line)]
