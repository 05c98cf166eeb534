"""Plans pile up no more: `cast plans` shows the unfinished ones (`--all` every one), `cast plans
archive ID` puts one away, and `cast execute` without a plan does not guess among several."""

from __future__ import annotations

from pathlib import Path

from conftest import invoke_cast as cast
from replkit import harness  # noqa: F401  (a fixture)

from cast.text import table


def plan(root: Path, session: str, body: str) -> Path:
    path = root / ".cast" / "plans" / session / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\ntask: {session} task\nsession: {session}\ncreated: {session[:10]}T00:00:00Z\n---\n# Plan\n\n{body}")
    return path


def test_plans_lists_unfinished_archive_puts_one_away_and_execute_does_not_guess(repo):
    plan(repo, "2026-01-01-done", "- [x] one\n")
    plan(repo, "2026-01-02-old", "- [ ] one\n")
    plan(repo, "2026-01-03-new", "- [x] one\n- [ ] two\n")
    listed = cast(repo, "plans").stdout.splitlines()
    assert [line.split("\t")[:2] for line in listed] == [["1/2", "2026-01-03-new"], ["0/1", "2026-01-02-old"]]
    every = cast(repo, "plans", "--all").stdout
    assert "2026-01-01-done" in every and every.count("\n") == 3
    refused = cast(repo, "execute")
    assert refused.returncode == 2 and "2 plans have unticked items; name one: cast execute ID" in refused.stderr
    assert "2026-01-03-new" in refused.stderr and "2026-01-02-old" in refused.stderr
    told = " ".join(cast(repo, "execute", "--help").stdout.split())
    assert "Omitted: the one plan with unticked items (several: asked in a terminal)" in told  # not "the newest"
    archived = cast(repo, "plans", "archive", "2026-01-02-old")
    assert archived.returncode == 0 and "archived 2026-01-02-old" in archived.stdout
    assert (repo / ".cast" / "plans" / ".archived" / "2026-01-02-old" / "plan.md").is_file()
    assert [line.split("\t")[1] for line in cast(repo, "plans").stdout.splitlines()] == ["2026-01-03-new"]
    assert cast(repo, "plans", "archive", "2026-01-02-old").returncode == 2  # gone from the listings
    assert cast(repo, "plans", "frobnicate").returncode == 2


def test_a_table_has_headers_and_aligned_columns():
    lines = table(["DONE", "SESSION", "TASK"], [["1/2", "2026-01-03-new", "a task"], ["10/12", "x", "another"]])
    assert lines == ["DONE   SESSION         TASK", "1/2    2026-01-03-new  a task", "10/12  x               another"]


def test_execute_in_the_repl_asks_which_unfinished_plan(harness, repo):
    plan(repo, "2026-01-02-old", "- [ ] one\n")
    newer = plan(repo, "2026-01-03-new", "- [ ] two\n")
    older = repo / ".cast" / "plans" / "2026-01-02-old" / "plan.md"
    h = harness([{"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to do"}}]}])
    h.send("/execute\r")
    h.wait(lambda: h.repl.asker.current is not None, "the question")
    assert h.repl.asker.current.title == "2 plans have unticked items. Which one?"
    from cast.repl.commands import lookup

    assert "newest" not in lookup("execute").help and "a choice" in lookup("execute").help  # /help says what it does
    h.send("2\r")
    h.wait_text("Plan: 1/1 items done")
    h.wait_idle()
    assert "- [x] one" in older.read_text() and "- [ ] two" in newer.read_text()


class Recorder:
    """A `View` without a terminal: what was said, and scripted answers to what is asked."""

    def __init__(self, *answers: str):
        self.answers, self.said, self.asked = list(answers), [], []

    def say(self, text: str, style: str = "") -> None:
        self.said.append(text)

    def show(self, renderable) -> None:
        self.said.append(str(renderable))

    def ask(self, question, cancel=None):
        from cast.repl.ask import Reply

        self.asked.append(question)
        typed = self.answers.pop(0)
        choice = question.choice_for(typed)
        return Reply(choice.value) if choice else Reply(question.on_leave, left=True)


def test_which_plan_is_asked_through_the_view(repo):
    from cast.repl.jobs import choose_plan

    plan(repo, "2026-01-02-old", "- [ ] one\n")
    assert choose_plan(Recorder(), repo) is None  # one unfinished plan: nothing to ask
    plan(repo, "2026-01-03-new", "- [ ] two\n")
    view = Recorder("2")
    assert choose_plan(view, repo) == "2026-01-02-old"
    [asked] = view.asked
    assert [c.label for c in asked.choices] == ["2026-01-03-new (0/1)", "2026-01-02-old (0/1)"]
    left = Recorder("\x1b")
    assert choose_plan(left, repo) == "" and left.said == ["› no plan executed"]


def test_shift_tab_attaches_no_guess_among_several_unfinished_plans(harness, repo):
    plan(repo, "2026-01-02-old", "- [ ] one\n")
    plan(repo, "2026-01-03-new", "- [ ] two\n")
    h = harness()
    h.send("\x1b[Z")
    h.wait_text("2 plans have unticked items; /execute asks which one to run")
    assert h.repl.state.mode == "execute" and h.repl.state.run is None and "plan attached" not in h.out.text()


def test_a_revision_without_a_plan_among_several_unfinished_is_not_checked_against_the_newest(repo):
    """`cast execute --revision REV` names no plan: with two unfinished, the answer is "name one",
    not "the newest plan is at another revision" (REV may well be the other plan's)."""
    from cast.plans.revisions import revision_id

    old = plan(repo, "2026-01-02-old", "- [ ] one\n")
    plan(repo, "2026-01-03-new", "- [ ] two\n")
    refused = cast(repo, "--model", "script:unused.jsonl", "execute", "--revision", revision_id(old.read_bytes()))
    assert refused.returncode == 2 and "2 plans have unticked items; name one" in refused.stderr, refused.stderr
    assert "not executing a plan other than the one approved" not in refused.stderr


def test_checkpoints_on_a_terminal_is_a_table_like_plans_and_tab_separated_in_a_pipe(repo):
    import re
    import sys

    import pexpect
    from conftest import cast_env

    from cast.checkpoints.journal import Journal

    path = plan(repo, "2026-01-02-old", "- [ ] one\n")
    Journal(repo).record("item", None, str(path.relative_to(repo)), 1, "one")
    child = pexpect.spawn(sys.executable, ["-m", "cast", "checkpoints"], cwd=str(repo), env=cast_env(), encoding="utf-8")
    child.expect(pexpect.EOF, timeout=40)
    shown = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in child.before.splitlines()]
    assert shown[0].split() == ["PLAN", "SNAPSHOTS", "ITEMS", "STATE", "LAST"], shown
    assert shown[1].index("1 snapshot  ") == shown[0].index("SNAPSHOTS") and shown[2].endswith("MiB"), shown
    piped = cast(repo, "checkpoints").stdout.splitlines()
    assert len(piped[0].split("\t")) == 5 and "PLAN" not in piped[0]  # scripts read the rows as before


def test_a_plan_another_live_cast_is_executing_is_not_archived_from_under_it(repo):
    import subprocess

    from cast.sessions import Session

    path = plan(repo, "2026-01-02-old", "- [ ] one\n").resolve()
    other = subprocess.Popen(["sleep", "60"])
    try:
        Session.create(repo, "2026-01-02-old-exec", mode="execute", task="t", model="m", plan_path=path).update(pid=other.pid)
        refused = cast(repo, "plans", "archive", "2026-01-02-old")
        assert refused.returncode == 2 and f"is being executed by another cast (process {other.pid}" in refused.stderr
        assert path.is_file()
    finally:
        other.kill()
        other.wait()
    assert cast(repo, "plans", "archive", "2026-01-02-old").returncode == 0 and not path.exists()
