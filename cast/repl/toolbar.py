"""What the bottom toolbar and the prompt line say: mode, model, session, context size, cost.

The mode must be unmistakable: `plan ›` in cyan, `execute ›` in yellow, and the same word, in the
same colour, at the start of the toolbar."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.repl.state import ReplState

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.styles import Style

from cast.text import tokens

STYLE = Style.from_dict(
    {
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
    }
)


def _window(model: str) -> int:
    """The model's context window, from what the Models API (or the built-in table) says."""
    from cast.models.catalog import spec_for  # deferred: keeps cast.models.catalog off the REPL's first prompt

    return spec_for(model).max_input_tokens


def prompt_label(mode: str) -> StyleAndTextTuples:
    return [(f"class:mode.{mode}", f"{mode} ›"), ("", " ")]


def toolbar_fragments(state: ReplState, busy: bool, width: int, asking: bool = False) -> StyleAndTextTuples:
    """One line that fits `width`: the least useful parts go first, then long ones shorten; the
    mode, the cost and the attached plan's progress stay to the last."""
    usage = state.total()
    mode = state.mode
    head = f" {mode.upper()} "
    room = max(8, width - len(head) - 2)
    session = state.session_id or "new session"
    model = state.model_name()
    plan = state.attached_plan()
    progress = f"plan {plan.split()[-1]}" if plan else ""
    named = f"plan {short_id(plan.split()[0].split('/')[0])} {plan.split()[-1]}" if plan else ""
    ctx, cost = f"ctx {tokens(usage.context_tokens)}/{tokens(_window(model))}", state.cost_label()
    hint = "answer above · Esc: its default" if asking else "working · Esc interrupts" if busy else "⇧Tab mode · /help"
    plan_label = f"plan {plan}" if plan else ""
    candidates = [
        [model, session, plan_label, ctx, cost, hint],
        [model, session, plan_label, ctx, cost],
        [short_model(model), short_id(session), plan_label, ctx, cost],
        [short_model(model), short_id(session), named, ctx, cost],
        [short_model(model), named, ctx, cost],
        [named, ctx, cost],
        [progress, ctx, cost],
        [progress, cost],
    ]
    line = ""
    for parts in candidates:
        line = " │ ".join(part for part in parts if part)
        if len(line) <= room:
            break
    if len(line) > room:
        line = line[: max(0, room - 1)] + "…"
    return [(f"class:bottom-toolbar.mode.{mode}", head), ("class:bottom-toolbar", " " + line)]


def short_id(session: str, keep: int = 16) -> str:
    """`2026-12-01-fix-the-discounts` → `fix-the-discoun…`: the date is the least telling part."""
    parts = session.split("-", 3)
    name = parts[3] if len(parts) == 4 and parts[0].isdigit() else session
    return name if len(name) <= keep else name[: keep - 1] + "…"


def short_model(model: str) -> str:
    return model[len("claude-") :] if model.startswith("claude-") else model
