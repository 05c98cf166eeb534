"""Slash commands: a table of name → handler and help. Handlers get the REPL's `Session` (a view,
the state, the worker, a few controls) and the rest of the line. Commands that would change the
run refuse while the agent works."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cast.agent.events import Task
from cast.repl import jobs, listings
from cast.repl.ask import Choice, Question
from cast.repl.permissions import permissions
from cast.repl.rows import IdRows
from cast.text import tokens

if TYPE_CHECKING:
    from cast.repl.session import Session
    from cast.repl.state import ReplState

Handler = Callable[["Session", str], None]


@dataclass(frozen=True)
class Command:
    name: str
    args: str
    help: str
    handler: Handler
    while_busy: bool = False  # safe to run while the agent works


def _plan(session: Session, arg: str) -> None:
    if not arg.strip() and session.state.mode == "plan":
        return session.view.say("Already in plan mode: type a task to plan it; /plan TASK starts a new plan.", "dim")
    session.controls.set_mode("plan")
    if arg.strip():  # a new task: its own session and plan, whatever ran before
        session.controls.start_task(arg.strip(), new=True)


def _replan(session: Session, arg: str) -> None:
    session.worker.start(lambda: jobs.replan(session, arg.strip()))


def _execute(session: Session, arg: str) -> None:
    session.controls.start_execute(arg.strip() or None)


def _tasks(session: Session, arg: str) -> None:
    from cast.ui.tasks import checklist  # deferred: keeps rich off the REPL's first prompt

    tasks = session.state.tasks
    if tasks:
        session.view.show(checklist(tasks, window=None))
        return
    written = _written_plan(session)
    if written:  # planned, not executing yet: the checklist the executor would get
        session.view.say("The plan written in this session (/execute runs it):", "dim")
        session.view.show(checklist(written, window=None))
        return
    session.view.say("No task list: in execute mode the plan's checklist is the task list (/execute [plan]).", "dim")


def _written_plan(session: Session) -> list[Task]:
    from cast.plans.checklist import PlanError, parse  # deferred: keeps cast.plans.checklist off the REPL's first prompt

    path = session.state.plan_path
    if path is None:
        return []
    try:
        items = parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, PlanError):
        return []
    return [Task(item.number, item.text, "done" if item.checked else "pending") for item in items]


def _plans(session: Session, arg: str) -> None:
    from cast.plans.store import list_plans  # deferred: keeps cast.plans.store (9 modules) off the REPL's first prompt

    found = list_plans(session.state.root)
    if not found:
        session.view.say("No plans yet: describe a task in plan mode and cast writes one.", "dim")
        return
    rows = [(info.session, f"{info.done}/{info.total}", " ".join(info.task.split())) for info in found[:20]]
    session.view.show(IdRows(("session", "done", "task"), rows))  # the id whole at any width
    if len(found) > 20:
        session.view.say(f"… and {len(found) - 20} older plans (`cast plans --all` in a shell lists them all)", "dim")


def _cost(session: Session, arg: str) -> None:
    from cast.agent.cost import token_summary  # deferred: keeps cast.agent.cost off the REPL's first prompt

    u = session.state.total()
    lines = [f"tokens: {token_summary(u.usage)}", f"context: {tokens(u.context_tokens)} tokens in the last request"]
    run = session.state.run
    book = run.usage if run is not None else None  # the run's one usage book: the toolbar reads it too
    unpriced = book.unpriced() if book is not None else None
    if book is not None and unpriced is None:
        lines.append(f"cost: ${u.cost:.4f}")
    elif (unpriced or session.state.model_name()).startswith("script:"):
        lines.append("cost: $0 (a scripted model is free)")
    elif book is None:  # no run now (after /clear): what the REPL's earlier runs cost, as the toolbar shows
        lines.append(f"cost: ${u.cost:.4f} so far in this REPL" + ("" if u.cost else " (nothing sent yet)"))
    else:
        lines.append(f"cost: unknown — no price for {unpriced} (set prices in .cast/config.toml)")
    lines += book.subagent_lines() if book is not None else []
    session.view.say("\n".join(lines))


def _compact(session: Session, arg: str) -> None:
    run = session.state.run
    if run is None:
        session.view.say("Nothing to compact yet: the conversation is empty.", "dim")
    elif run.economy is None:
        session.view.say("/compact is not available for this run: it has no context compaction set up.", "yellow")
    else:
        run.economy.force()
        session.view.say("The conversation will be compacted into a summary before the next request.", "dim")


def _resume(session: Session, arg: str) -> None:
    session.controls.resume(arg.strip() or None)


def list_sessions(session: Session) -> None:
    """/resume without an id: the recent sessions, ids and words kept whole, the task wrapped."""
    from cast.session_list import list_sessions as listed  # deferred: keeps cast.sessions (8 modules) off the REPL's first prompt

    found = listed(session.state.root)[:10]
    if not found:
        session.view.say("No sessions to resume yet.", "dim")
        return
    rows = [
        (info.id, info.mode, info.status, f"{info.steps} step{'' if info.steps == 1 else 's'}", " ".join(info.task.split()))
        for info in found
    ]
    session.view.show(IdRows(("session", "mode", "status", "steps", "task"), rows))  # the id whole at any width
    session.view.say("/resume ID continues one.")


def _clear(session: Session, arg: str) -> None:
    session.state.clear()
    session.view.say("Conversation cleared; the next task starts a new session.", "dim")


def _model(session: Session, arg: str) -> None:
    if not (spec := arg.strip()):
        return session.view.say(f"model: {session.state.model_name()}   (/model ID switches; script:PATH replays a script)")
    session.controls.set_model(spec)


HELP_NAMES = 24  # the width of /help's left column: "/replan [what to change]"; longer usages wrap between arguments
KEYS = (
    ("Enter", "send"),
    ("Esc Enter, Ctrl+J", "a new line"),
    ("Shift+Tab", "switch plan ⇄ execute"),
    ("@", "complete a file name"),
    ("Esc, Ctrl+C", "interrupt the agent; a message sent while it works is queued as guidance"),
    ("Ctrl+O", "the last command's full output; while one runs, what it printed so far"),
    ("Ctrl+D", "exit (or Ctrl+C twice at an empty prompt)"),
)


def usage(command: Command) -> str:
    """`/name [args]`, broken only between arguments, each line at most HELP_NAMES wide."""
    lines = [f"/{command.name}"]
    for word in re.findall(r"\[[^\]]*\]|\S+", command.args):
        if len(lines[-1]) + 1 + len(word) <= HELP_NAMES:
            lines[-1] += " " + word
        else:
            lines.append("  " + word)
    return "\n".join(lines)


def _help(session: Session, arg: str) -> None:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    def table(style: str) -> Table:
        made = Table(box=None, show_header=False, pad_edge=False)
        made.add_column(style=style, no_wrap=True, width=HELP_NAMES)  # the same in both: the texts line up
        made.add_column(overflow="fold")
        return made

    commands = table("bold cyan")
    for command in COMMANDS:
        commands.add_row(Text(usage(command)), Text(command.help))
    session.view.show(commands)
    keys = table("bold")
    for key, what in KEYS:
        keys.add_row(Text(key), Text(what, style="dim"))
    session.view.show(Padding(keys, (1, 0, 0, 0)))
    from cast.sandbox.policy import describe  # deferred: keeps cast.sandbox.policy off the REPL's first prompt

    session.view.show(Text(describe(), style="dim"))  # which kernel layer holds plan-mode commands


def _checkpoint(session: Session, arg: str, what: str) -> None:
    """/undo [ITEM] [--yes] [--force], /redo [--yes] [--force], /diff [ITEM]: the CLI's commands
    (cast/checkpoints/commands.py). /undo and /redo show what would change and ask at the prompt
    (in the worker, so the prompt stays free to answer); --yes does it without asking."""
    # deferred: keeps cast.checkpoints.commands (16 modules) off the REPL's first prompt
    from cast.checkpoints import commands as checkpoints

    words = arg.split()
    items = [w for w in words if w.isdigit()]
    flags = {"--yes", "-y", "yes", "--force"} if what != "diff" else set()
    unknown = [w for w in words if w not in flags and not (w.isdigit() and what != "redo")]
    if unknown or len(items) > 1:  # `/undo one` must not undo the last item
        return session.view.say(f"/{what} did nothing: it takes /{what} {BY_NAME[what].args}, not {arg.strip()!r}", "yellow")
    item = int(items[0]) if items else None
    yes, force = bool({"--yes", "-y", "yes"} & set(words)), "--force" in words

    def err(text: str) -> None:
        session.view.say(text.removeprefix("cast: "), "yellow")

    def ask(question: str) -> bool:
        asked = Question(
            title=question[0].upper() + question[1:] + "?",
            choices=(Choice("y", "yes", "[y]es", ("yes",)), Choice("n", "no", "[n]o", ("no",))),
            on_leave="no",
            hint="press 1-2 · Esc: no",
            placeholder="1-2",
        )
        return session.view.ask(asked).value == "yes"

    root = session.state.root

    def restore() -> None:
        if what == "undo":
            checkpoints.undo(root, item, None, yes, force, session.view.say, ask, prefix="/", err=err)
        else:
            checkpoints.redo(root, yes, force, session.view.say, ask, prefix="/", err=err)

    if what == "diff":
        checkpoints.diff(root, item, None, session.view.say, err=err)
    else:
        session.worker.start(restore)


def _exit(session: Session, arg: str) -> None:
    session.controls.request_exit()


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
    Command("skills", "", "List the skills the model is offered here, and their source.", listings.skills, while_busy=True),
    Command("mcp", "", "List the MCP servers configured here: source, approval, status.", listings.mcp, while_busy=True),
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
        'What runs unasked: "always" approvals (a command with any arguments, or one exact line), allow rules, edits; revoke one.',
        permissions,
        while_busy=True,
    ),
    Command(
        "undo",
        "[item] [--yes]",
        "Restore the files to the checkpoint before an item and untick it and later ones.",
        lambda session, arg: _checkpoint(session, arg, "undo"),
    ),
    Command("redo", "[--yes]", "Reverse the last undo.", lambda session, arg: _checkpoint(session, arg, "redo")),
    Command(
        "diff",
        "[item]",
        "What an item changed, or the whole last run.",
        lambda session, arg: _checkpoint(session, arg, "diff"),
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


def dispatch(session: Session, line: str) -> None:
    """Run one `/command args` line."""
    name, _, arg = line[1:].strip().partition(" ")
    command = lookup(name.lower())
    if command is None:
        close = [c.name for c in COMMANDS if c.name.startswith(name[:2].lower())] if name else []
        hint = f" (did you mean /{close[0]}?)" if close else ""
        session.view.say(f"unknown command /{name}{hint}; /help lists them", "red")
        return
    if session.worker.busy and not command.while_busy:
        if session.controls.asker.current is not None:
            session.view.say(f"/{command.name}: answer the question above first (Esc leaves it).", "yellow")
        else:
            session.view.say(f"/{command.name} waits until the agent is done; press Esc to interrupt it.", "yellow")
        return
    if arg.strip() and not command.args:  # `/compact keep the API notes` must not look taken into account
        session.view.say(f"/{command.name} takes no argument; ignored: {arg.strip()}", "yellow")
    command.handler(session, arg)


def argument_values(state: ReplState) -> Callable[[str, str], Iterable[tuple[str, str]]]:
    """Completion for arguments: plan session ids for /execute, session ids for /resume, model ids for /model."""

    def values(command: str, typed: str) -> Iterable[tuple[str, str]]:
        try:
            if command == "execute":
                # deferred: keeps cast.plans.store (9 modules) off the REPL's first prompt
                from cast.plans.store import list_plans

                return [(i.session, f"{i.done}/{i.total} {i.task}"[:60]) for i in list_plans(state.root)[:30]]
            if command == "model":
                # deferred: keeps cast.models.lookup (7 modules) off the REPL's first prompt
                from cast.models.lookup import choices

                return choices()
            if command == "resume":
                from cast.session_list import (
                    list_sessions,  # deferred: keeps cast.sessions (8 modules) off the REPL's first prompt
                )

                return [(s.id, "") for s in list_sessions(state.root)[:30]]
        except Exception:
            return []
        return []

    return values
