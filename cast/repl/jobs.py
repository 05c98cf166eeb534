"""What the worker thread does: run a task, execute a plan, and offer the plan hand-off.

Jobs talk to the agent only through `Agent.run`/`guide` and its events, and to the user only
through the session's `View` (say, show, ask) and event renderer: never through the REPL itself.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cast.agent import events as ev
from cast.repl.ask import Choice, Question, Reply, View
from cast.repl.wording import in_repl
from cast.text import plural

if TYPE_CHECKING:
    from cast.repl.session import Session
    from cast.runs import Run

EXECUTE, AUTO, EDIT, KEEP, LATER = "execute", "execute-auto", "edit", "keep", "later"
RESUME_LINES = 12  # of the last reply shown when a session is resumed
PLAN_LINES = 40  # of the plan shown before the hand-off question; the editor shows the rest


def drive(session: Session, run: Run, message: str | None, *, execute: bool = False) -> ev.Stopped:
    """One turn of `run` (with `execute`, the plan's execution: the task list, then the brief and
    `message` after it), rendered; an execute turn ends with its closing report. An interrupt that
    came while the job was still building the run (or between two turns of one job) is honoured
    here: the turn is not started, and nothing is sent to the model."""
    interrupted = session.worker.interrupted
    renderer = session.renderer()
    failed: list[str] = []
    stopped: ev.Stopped | None = None

    def handle(event: ev.Event) -> None:
        if interrupted.is_set():
            run.cancel()  # pressed while the turn was starting
        try:
            renderer.handle(event)
        except Exception as exc:  # a rendering bug must not break the run or its transcript
            if not failed:
                failed.append(str(exc))
                session.view.say(f"(cannot display a {type(event).__name__}: {type(exc).__name__}: {exc})", "red")

    try:
        if interrupted.is_set():
            stopped = run.stop_before(handle)
            return stopped
        run.uncancel()  # a key pressed after the previous turn ended is not for this one
        if execute:  # a running command's newest line comes as an event too, for the live view
            stopped = run.execute(handle, message or "")
        else:
            stopped = run.turn(message, handle)
        return stopped
    finally:
        renderer.finish()
        interrupted.clear()  # the interrupt was for this turn; the next one starts afresh
        run.uncancel()
        undelivered(session, run, stopped.status if stopped is not None else "interrupted")
        if run.executing and stopped is not None:
            show_report(session)


def undelivered(session: Session, run: Run, status: str = "done") -> None:
    """Guidance the agent never read (its turn ended first) is shown back, whole: it is never
    lost, and never glued to the user's next, unrelated message."""
    left = run.take_guidance()
    if not left:
        return
    why = {"interrupted": "the agent was interrupted before its next step", "done": "the agent had finished its turn"}.get(
        status, f"the agent stopped ({status})"
    )
    lines = [f"↳ not delivered — {why}:"] + [f"  {text}" for text in left]
    lines.append("Send it again if it still applies (↑ brings it back).")
    session.view.say("\n".join(lines), "yellow")


def run_task(session: Session, text: str, *, new: bool = False) -> None:
    state = session.state
    try:
        run = state.ensure_run(text, new=new)
    except Exception as exc:  # no key, a model that cannot load: the task is in the history, not lost
        session.view.say(f"cannot start: {in_repl(str(exc))}\nYour task is kept: ↑ brings it back (after /model ID, say).", "red")
        state.hint = "↑ brings back your task"
        return
    before = _plan_stamp(run)
    if state.take_brief():  # a plan attached by Shift+Tab: brief the executor as /execute does
        drive(session, run, text, execute=True)
        return
    stopped = drive(session, run, text)
    if run.mode.name == "plan" and _plan_stamp(run) != before and stopped.status != "interrupted":
        handoff(session, run)


def replan(session: Session, text: str) -> None:
    """/replan: the executor's own run goes to plan mode to revise the plan it executes (its
    unticked items only; write_plan keeps done items byte for byte), then the hand-off shows what
    changed and, approved, the same run goes on at the first unticked item."""
    run = session.state.run
    if run is None or run.tasks is None:
        session.view.say("Nothing is being executed: /plan TASK starts a new plan.", "dim")
        return
    rel = _rel(run, run.tasks.plan.path)
    session.state.follow(run, "plan")
    brief = (
        f"Replan: revise the plan being executed ({rel}) and write it with write_plan. Keep every ticked "
        "item exactly as it is; change, add or remove only unticked items."
    )
    before = _plan_stamp(run)
    stopped = drive(session, run, brief + (f"\n\nWhat to change: {text}" if text else ""))
    if _plan_stamp(run) != before and stopped.status != "interrupted":
        handoff(session, run)


def _continue(session: Session, run: Run, path: Path) -> None:
    """A replanned run approved at the hand-off: the revision shown is the one approved, and the
    same run goes on in execute mode."""
    run.approve_revision()
    session.state.follow(run, "execute")
    drive(session, run, "The user approved the revised plan: go on with its first unticked item.", execute=True)


def execute_plan(session: Session, plan_ref: str | None) -> None:
    if plan_ref is None:
        plan_ref = choose_plan(session.view, session.state.root)
        if plan_ref == "":
            return
    try:
        run = session.state.execute(plan_ref)
    except Exception as exc:
        session.view.say(f"cannot execute: {in_repl(str(exc))}", "red")
        return
    board = run.tasks
    assert board is not None  # an execute run is built over a plan's checklist
    if not run.has_work():  # not adopted: the current run and mode stay
        session.view.say(f"Every item of {_rel(run, board.plan.path)} is ticked; nothing to do.", "green")
        return
    drive(session, run, None, execute=True)


def choose_plan(view: View, root: Path) -> str | None:
    """Which plan /execute (or `cast execute`) without one means: the only unfinished plan, else
    the user's pick among them (up to 9, newest first); "" when the user picked none."""
    # deferred: keeps cast.plans.housekeeping (10 modules) off the REPL's first prompt
    from cast.plans.housekeeping import unfinished

    found = unfinished(root)[:9]
    if len(found) < 2:
        return None
    choices = tuple(
        Choice(str(n), info.session, f"{info.session} ({info.done}/{info.total})", (info.session,))
        for n, info in enumerate(found, 1)
    )
    reply = view.ask(
        Question(
            title=f"{len(found)} plans have unticked items. Which one?",
            choices=choices,
            on_leave="",
            hint=f"press 1-{len(choices)} · Esc: none (`cast plans archive ID` in a shell puts one away)",
            placeholder=f"1-{len(choices)}",
        )
    )
    if not reply.value:
        view.say("› no plan executed", "cyan")
        return ""
    view.say(f"› {reply.value}", "cyan")
    return reply.value


def show_report(session: Session) -> None:
    """The closing report of an execute turn, built from what was observed rather than from the
    model's claims."""
    outcome = session.state.outcome()
    if outcome is not None and outcome.report is not None:
        from cast.ui.wrapping import hanging  # deferred: keeps cast.ui.wrapping off the REPL's first prompt

        session.view.show(hanging(outcome.report.render_text(commands="/", root=session.state.root), "dim"))


def _later_turn(messages: list[dict[str, Any]]) -> bool:
    """Whether the user wrote after the model's last words: that turn ended with no reply."""
    for m in reversed(messages):
        blocks = [b for b in m.get("content", []) if isinstance(b, dict)]
        if m.get("role") == "assistant" and any(b.get("type") == "text" and b.get("text", "").strip() for b in blocks):
            return False
        if m.get("role") == "user" and not any(b.get("type") == "tool_result" for b in blocks):
            return any(b.get("type") == "text" for b in blocks)
    return False


def resume_session(session: Session, session_id: str) -> None:
    try:
        run = session.state.resume(session_id)
    except Exception as exc:
        session.view.say(f"cannot resume {session_id}: {in_repl(str(exc))}", "red")
        return
    messages = run.messages
    session.view.say(f"Resumed {run.session_id} in {run.mode.name} mode ({len(messages)} messages).", "dim")
    last = next(
        (
            b.get("text", "")
            for m in reversed(messages)
            if m.get("role") == "assistant"
            for b in m.get("content", [])
            if isinstance(b, dict) and b.get("type") == "text"
        ),
        "",
    )
    if last.strip():  # rendered, as it was when it streamed: no raw ** or backticks
        shown, cut = _clip(last.strip(), RESUME_LINES)
        session.view.say(
            "Last reply:" if not _later_turn(messages) else "Last reply (a later turn was interrupted before any reply):", "dim"
        )
        session.view.show(session.view.markdown(shown + ("\n\n…" if cut else "")))
    if session.state.tasks:
        from cast.ui.tasks import checklist  # deferred: keeps rich off the REPL's first prompt

        session.view.show(checklist(session.state.tasks, window=None))
    session.view.say("Type to continue.", "dim")


def handoff(session: Session, run: Run) -> None:
    """The plan is written: show it, then execute it (edits asked, or auto-approved), edit it,
    keep planning, or leave it for later. Typed text is feedback on the plan; a slash command
    leaves the question and runs."""
    if run.plan_path is None:
        return
    path = Path(run.plan_path)
    show_plan(session, run, path)
    while True:
        question = Question(
            title=f"Plan written: {_rel(run, path)} ({plural(_items(path), 'item')}). What next?",
            choices=(
                Choice("e", EXECUTE, "[e]xecute", ("execute",)),
                Choice("a", AUTO, "execute, edits [a]uto-approved", ("auto",)),
                Choice("o", EDIT, "[o]pen in editor", ("open", "edit")),
                Choice("k", KEEP, "[k]eep planning", ("keep",)),
                Choice("n", LATER, "[n]ot now", ("not now", "later")),
            ),
            on_leave=LATER,
            on_text=lambda text: Reply(KEEP, text),
            hint="press 1-5, or type feedback to revise the plan and Enter · Esc: not now",
            placeholder="1-5, or feedback on the plan",
            commands_leave=True,
        )
        reply = session.view.ask(question)
        if reply.value == EDIT:
            session.view.say("› open in editor", "cyan")
            edit_plan(session, run, path)
            continue
        if reply.value in (EXECUTE, AUTO):
            auto = reply.value == AUTO
            if auto:
                session.approver.edits_auto = True
            session.view.say("› execute, edits auto-approved" if auto else "› execute (edits and commands asked)", "cyan")
            session.view.say(f"Executing {_rel(run, path)}", "yellow")
            if run.tasks is not None and run.tasks.plan.path == path:
                _continue(session, run, path)
            else:
                execute_plan(session, str(path))
        elif reply.value == KEEP:
            if reply.text:
                session.view.echo(reply.text)
                run_task(session, reply.text)
            else:
                session.view.say("› keep planning", "cyan")
                session.state.hint = "feedback on the plan, then Enter"
        else:
            why = f" — {reply.text} runs instead" if reply.text.startswith("/") else f" ({reply.key})" if reply.key else ""
            session.view.say(f"› not now{why}", "cyan")
            session.view.say(f"The plan is kept at {_rel(run, path)}; /execute runs it when you are ready.", "dim")
        return


def show_plan(session: Session, run: Run, path: Path, limit: int = PLAN_LINES) -> None:
    """The plan as the executor will read it, before the user is asked what to do with it."""
    from rich.text import Text

    text = _read(path)
    if text.startswith("---\n"):  # the front matter is cast's, not the plan
        end = text.find("\n---\n", 4)
        text = text[end + 5 :] if end >= 0 else text
    body, cut = _clip(text.strip("\n"), limit)
    changes = _since_approved(run, path)
    if changes:
        session.view.say("\n".join(["Changed since the revision you approved:", *(f"  {c}" for c in changes)]), "yellow")
    session.view.say(f"── {_rel(run, path)}", "dim")
    session.view.show(session.view.markdown(body) if body.strip() else Text("(empty)", style="dim"))
    if cut:
        session.view.say(f"… {cut} more lines ([o]pen in editor shows them all)", "dim")


def _since_approved(run: Run, path: Path) -> list[str]:
    """A replan's item diff against the revision the run was approved at ([] for a new plan)."""
    from cast.plans.checklist import PlanError  # deferred: keeps cast.plans.checklist off the REPL's first prompt
    from cast.plans.revisions import item_diff  # deferred: keeps cast.plans.revisions (9 modules) off the REPL's first prompt

    board = run.tasks
    if board is None or board.approved is None or board.revisions is None or board.plan.path != path:
        return []
    try:
        return item_diff(board.revisions.text(board.approved), path.read_bytes())
    except (PlanError, OSError):
        return []


def _clip(text: str, limit: int) -> tuple[str, int]:
    lines = text.splitlines()
    return ("\n".join(lines[:limit]), len(lines) - limit) if len(lines) > limit else (text, 0)


def editor_command() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def edit_plan(session: Session, run: Run, path: Path) -> None:
    before = _read(path)
    command = shlex.split(editor_command()) + [str(path)]

    def edit() -> int:
        try:
            return subprocess.call(command)
        except OSError as exc:
            print(f"cast: cannot start the editor {command[0]!r}: {exc.strerror} (set $EDITOR)")
            return 127

    code = session.run_in_terminal(edit)
    after = _read(path)
    if code not in (0, None):
        session.view.say(f"the editor exited with status {code}", "yellow")
    if after != before:
        session.view.say(f"Plan updated: {_rel(run, path)} now has {plural(_items(path), 'item')}.", "green")
        run.note(
            f"[The user edited the plan file {_rel(run, path)} by hand. Read it again before you revise it; keep their changes.]"
        )
    else:
        session.view.say("The plan is unchanged.", "dim")


def _plan_stamp(run: Run) -> tuple[str, int] | None:
    path = run.plan_path
    if path is None:
        return None
    try:
        return str(path), Path(path).stat().st_mtime_ns
    except OSError:
        return str(path), -1


def _items(path: Path) -> int:
    from cast.plans.checklist import parse  # deferred: keeps cast.plans.checklist off the REPL's first prompt

    return len(parse(_read(path)))


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _rel(run: Run, path: Path) -> str:
    try:
        return str(Path(path).relative_to(run.workspace.root))
    except ValueError:
        return str(path)
