"""Slash commands: a table of name → handler and help. Handlers get the REPL and the rest of the
line. Commands that would change the run refuse while the agent works."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cast.repl.app import Repl

Handler = Callable[["Repl", str], None]


@dataclass(frozen=True)
class Command:
    name: str
    args: str
    help: str
    handler: Handler
    while_busy: bool = False  # safe to run while the agent works


def _plan(repl: Repl, arg: str) -> None:
    repl.set_mode("plan")
    if arg.strip():  # a new task: its own session and plan, whatever ran before
        repl.start_task(arg.strip(), new=True)


def _replan(repl: Repl, arg: str) -> None:
    from cast.repl import jobs

    repl.worker.start(lambda: jobs.replan(repl.ctx, arg.strip()))


def _execute(repl: Repl, arg: str) -> None:
    repl.start_execute(arg.strip() or None)


def _tasks(repl: Repl, arg: str) -> None:
    tasks = repl.state.tasks
    if not tasks:
        repl.say("No task list: in execute mode the plan's checklist is the task list (/execute [plan]).", "dim")
        return
    from cast.ui.tasks import checklist

    repl.show(checklist(tasks, window=None))


def _plans(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from cast.plans.store import list_plans

    found = list_plans(repl.state.root)
    if not found:
        repl.say("No plans yet: describe a task in plan mode and cast writes one.", "dim")
        return
    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("done", no_wrap=True)
    table.add_column("session", no_wrap=True)  # an id is one word: never broken
    table.add_column("task", overflow="fold")  # wrapped at spaces; only a word wider than the column is folded
    for info in found[:20]:  # Text, never markup: a task may well contain [brackets]
        table.add_row(Text(f"{info.done}/{info.total}"), Text(info.session), Text(info.task))
    repl.show(table)
    if len(found) > 20:
        repl.say(f"… and {len(found) - 20} older plans (`cast plans --all` in a shell lists them all)", "dim")


def _cost(repl: Repl, arg: str) -> None:
    from cast.agent.cost import token_summary
    from cast.text import tokens

    u = repl.state.total()
    lines = [
        f"tokens: {token_summary(u.usage)}",
        f"context: {tokens(u.context_tokens)} tokens in the last request",
    ]
    run = repl.state.run
    price = run.usage.price if run is not None and run.usage is not None else None
    if repl.state.model_name().startswith("script:"):
        lines.append("cost: $0 (a scripted model is free)")
    elif price is None:  # no run now (after /clear): what the REPL's earlier runs cost, as the toolbar shows
        lines.append(f"cost: ${u.cost:.4f} so far in this REPL" + ("" if u.cost else " (nothing sent yet)"))
    elif not price.known:
        lines.append(f"cost: unknown — no price for {repl.state.model_name()} (set prices in .cast/config.toml)")
    else:
        lines.append(f"cost: ${u.cost:.4f}")
    repl.say("\n".join(lines))


def _compact(repl: Repl, arg: str) -> None:
    run = repl.state.run
    if run is None:
        repl.say("Nothing to compact yet: the conversation is empty.", "dim")
    elif run.economy is None:
        repl.say("/compact is not available for this run: it has no context compaction set up.", "yellow")
    else:
        run.economy.force()
        repl.say("The conversation will be compacted into a summary before the next request.", "dim")


def _resume(repl: Repl, arg: str) -> None:
    repl.resume(arg.strip() or None)


def list_sessions(repl: Repl) -> None:
    """/resume without an id: the recent sessions, ids and words kept whole, the task wrapped."""
    from cast.sessions import list_sessions as listed

    found = listed(repl.state.root)[:10]
    if not found:
        repl.say("No sessions to resume yet.", "dim")
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    for name in ("session", "mode", "status", "steps"):
        table.add_column(name, no_wrap=True)  # ids and words stay whole; the task wraps at spaces
    table.add_column("task", overflow="fold")
    for info in found:
        steps = f"{info.steps} step{'' if info.steps == 1 else 's'}"
        table.add_row(Text(info.id), Text(info.mode), Text(info.status), Text(steps), Text(" ".join(info.task.split())))
    repl.show(table)
    repl.say("/resume ID continues one.")


def _clear(repl: Repl, arg: str) -> None:
    repl.state.clear()
    repl.say("Conversation cleared; the next task starts a new session.", "dim")


def _model(repl: Repl, arg: str) -> None:
    spec = arg.strip()
    if not spec:
        repl.say(f"model: {repl.state.model_name()}   (/model ID switches; script:PATH replays a script)")
        return
    repl.set_model(spec)


def _help(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for command in COMMANDS:
        table.add_row(Text(f"/{command.name}" + (f" {command.args}" if command.args else "")), Text(command.help))
    repl.show(table)
    keys = Text(
        "Enter sends · Esc Enter or Ctrl+J: new line · Shift+Tab: plan ⇄ execute · @ completes files\n"
        "While the agent works, a message you send is queued as guidance · Esc or Ctrl+C interrupts\n"
        "A running command shows its elapsed time and newest output line · Ctrl+O shows the last command's full output\n"
        "Ctrl+D, or Ctrl+C twice at an empty prompt, exits",
        style="dim",
    )
    repl.show(keys)
    from cast.sandbox.policy import describe

    repl.show(Text(describe(), style="dim"))  # which kernel layer holds plan-mode commands


def _permissions(repl: Repl, arg: str) -> None:
    from cast.repl.approvals import permissions

    permissions(repl.ctx, arg)


def _checkpoint(repl: Repl, arg: str, what: str) -> None:
    """/undo [ITEM] [--yes] [--force], /redo [--yes] [--force], /diff [ITEM]: the CLI's commands
    (cast/checkpoints/commands.py). /undo and /redo show what would change and ask at the prompt
    (in the worker, so the prompt stays free to answer); --yes does it without asking."""
    from cast.checkpoints import commands as checkpoints

    words = arg.split()
    item = next((int(w) for w in words if w.isdigit()), None)
    yes, force = bool({"--yes", "-y", "yes"} & set(words)), "--force" in words

    def err(text: str) -> None:
        repl.say(text.removeprefix("cast: "), "yellow")

    def ask(question: str) -> bool:
        from cast.repl.ask import Choice, Question

        asked = Question(
            title=question[0].upper() + question[1:] + "?",
            choices=(Choice("y", "yes", "[y]es", ("yes",)), Choice("n", "no", "[n]o", ("no",))),
            on_leave="no",
            hint="a key, then Enter · Esc: no",
            placeholder="y/n + Enter",
        )
        return repl.ask(asked).value == "yes"

    root = repl.state.root

    def restore() -> None:
        if what == "undo":
            checkpoints.undo(root, item, None, yes, force, repl.say, ask, prefix="/", err=err)
        else:
            checkpoints.redo(root, yes, force, repl.say, ask, prefix="/", err=err)

    if what == "diff":
        checkpoints.diff(root, item, None, repl.say, err=err)
    else:
        repl.worker.start(restore)


def _exit(repl: Repl, arg: str) -> None:
    repl.request_exit()


COMMANDS: tuple[Command, ...] = (
    Command("plan", "[task]", "Switch to plan mode (read-only tools); with a task, start planning it.", _plan),
    Command(
        "execute",
        "[plan]",
        "Execute a plan's checklist: a plan path or session id; default: the unfinished one, or a choice.",
        _execute,
    ),
    Command("replan", "[what to change]", "Revise the plan being executed (its unticked items); you confirm it.", _replan),
    Command("tasks", "", "Show the task list of the current run.", _tasks, while_busy=True),
    Command("plans", "", "List plans with their progress, newest first.", _plans, while_busy=True),
    Command("cost", "", "Tokens used and cost so far in this REPL.", _cost, while_busy=True),
    Command(
        "compact",
        "",
        "Summarise the conversation before the next request (where the run supports compaction).",
        _compact,
        while_busy=True,
    ),
    Command("resume", "[session]", "Continue an earlier session; without an id, list recent ones.", _resume),
    Command("clear", "", "Forget the conversation; the next task starts a new session.", _clear),
    Command("model", "[id]", "Show the model, or switch to another for the next requests.", _model),
    Command(
        "permissions",
        "[revoke N|all] [edits ask|auto]",
        'Commands approved for this session ("always"), allow rules, file edits; revoke one.',
        _permissions,
        while_busy=True,
    ),
    Command(
        "undo",
        "[item] [--yes]",
        "Restore the files to the checkpoint before an item and untick it and later ones.",
        lambda repl, arg: _checkpoint(repl, arg, "undo"),
    ),
    Command("redo", "[--yes]", "Reverse the last undo.", lambda repl, arg: _checkpoint(repl, arg, "redo")),
    Command(
        "diff",
        "[item]",
        "What an item changed, or the whole last run.",
        lambda repl, arg: _checkpoint(repl, arg, "diff"),
        while_busy=True,
    ),
    Command("help", "", "This list, and the keys.", _help, while_busy=True),
    Command("exit", "", "Leave cast (interrupts the agent if it is working).", _exit, while_busy=True),
)
BY_NAME = {command.name: command for command in COMMANDS}
ALIASES = {"quit": "exit", "q": "exit", "?": "help"}


def names() -> list[tuple[str, str]]:
    return [(c.name, c.help) for c in COMMANDS]


def lookup(name: str) -> Command | None:
    """By name, alias, or unique prefix."""
    name = ALIASES.get(name, name)
    if name in BY_NAME:
        return BY_NAME[name]
    matches = [c for c in COMMANDS if name and c.name.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def dispatch(repl: Repl, line: str) -> None:
    """Run one `/command args` line."""
    name, _, arg = line[1:].strip().partition(" ")
    command = lookup(name.lower())
    if command is None:
        close = [c.name for c in COMMANDS if c.name.startswith(name[:2].lower())] if name else []
        hint = f" (did you mean /{close[0]}?)" if close else ""
        repl.say(f"unknown command /{name}{hint}; /help lists them", "red")
        return
    if repl.busy and not command.while_busy:
        if repl.asker.current is not None:
            repl.say(f"/{command.name}: answer the question above first (Esc leaves it).", "yellow")
        else:
            repl.say(f"/{command.name} waits until the agent is done; press Esc to interrupt it.", "yellow")
        return
    command.handler(repl, arg)


def argument_values(repl: Repl) -> Callable[[str, str], Iterable[tuple[str, str]]]:
    """Completion for arguments: plan session ids for /execute, session ids for /resume, model ids for /model."""

    def values(command: str, typed: str) -> Iterable[tuple[str, str]]:
        try:
            if command == "execute":
                from cast.plans.store import list_plans

                return [(i.session, f"{i.done}/{i.total} {i.task}"[:60]) for i in list_plans(repl.state.root)[:30]]
            if command == "model":
                from cast.models.lookup import choices

                return choices()
            if command == "resume":
                from cast.sessions import list_sessions

                return [(s.id, "") for s in list_sessions(repl.state.root)[:30]]
        except Exception:
            return []
        return []

    return values


def editor_command() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
