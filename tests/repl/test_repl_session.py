"""Approvals and slash commands work through the REPL's `Session` alone: a `View` that records,
the real `ReplState`, a worker and a few recorded controls. No prompt, no terminal, no `Repl`."""

from __future__ import annotations

from pathlib import Path

from cast.options import Options
from cast.repl import commands
from cast.repl.approvals import ReplApprover
from cast.repl.ask import Reply
from cast.repl.session import Session
from cast.repl.state import ReplState
from cast.repl.worker import Worker
from cast.safety.decision import EditRequest


class RecordedView:
    """Says and shows into a list; answers questions from a script of typed keys."""

    def __init__(self, *typed: str):
        self.typed, self.out, self.asked = list(typed), [], []

    def say(self, text, style=""):
        self.out.append(text)

    def show(self, renderable):
        self.out.append(renderable)

    def echo(self, text):
        self.out.append(f"› {text}")

    def markdown(self, text):
        return f"<markdown {text}>"

    def diff(self, text):
        return f"<diff {text}>"

    def ask(self, question, cancel=None):
        self.asked.append(question.title)
        choice = question.choice_for(self.typed.pop(0))
        return Reply(choice.value) if choice else Reply(question.on_leave, left=True)


class RecordedControls:
    def __init__(self):
        from cast.repl.ask import Asker

        self.asker, self.calls = Asker(), []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))


def session(root: Path, *typed: str) -> tuple[Session, RecordedView, RecordedControls]:
    view, controls = RecordedView(*typed), RecordedControls()
    state = ReplState(Options(model="script:none.jsonl", cwd=root))
    approver = ReplApprover(view, state)
    worker = Worker(on_error=view.say)
    return Session(view, state, approver, worker, lambda: None, lambda f: f(), controls), view, controls


def test_an_edit_is_shown_as_a_diff_then_asked_and_all_edits_remembered(repo):
    s, view, _ = session(repo, "a")
    answer = s.approver.ask_edit(EditRequest("a.py", "-x\n+y\n"))
    assert answer.value == "always" and s.approver.edits_auto
    assert view.out[0] == "<diff -x\n+y\n>"  # what the user saw, before the question
    assert view.asked == ["Apply this change to a.py? (the diff is above)"]
    assert view.out[-1] == "✓ edit approved, and edits from now on in this session: a.py"
    assert s.approver.ask_edit(EditRequest("b.py", "+z\n")).value == "yes" and len(view.asked) == 1


def test_slash_commands_talk_through_the_view_and_act_through_the_controls(repo):
    s, view, controls = session(repo)
    commands.dispatch(s, "/plan fix the parser")
    assert controls.calls == [("set_mode", ("plan",), {}), ("start_task", ("fix the parser",), {"new": True})]
    commands.dispatch(s, "/tasks")
    commands.dispatch(s, "/clear")
    commands.dispatch(s, "/frobnicate")
    assert [line.split(":")[0] for line in view.out] == [
        "No task list",
        "Conversation cleared; the next task starts a new session.",
        "unknown command /frobnicate; /help lists them",
    ]
    commands.dispatch(s, "/permissions edits auto")
    assert s.approver.edits_auto and view.out[-1] == "File edits are auto-approved from now on."
