"""The two questions the REPL asks — run this command? what now with the plan? — read typed
sentences as sentences: only a key alone on the line (then Enter) is a choice."""

from __future__ import annotations

import json

from replkit import harness  # noqa: F401  (a fixture)

from cast.repl import ask
from cast.safety.approval_scope import scope_of
from cast.safety.decision import ApprovalRequest

PLAN = "# Plan: discounts\n\nCheck the discount code first.\n\n- [ ] Reject negative discounts\n- [ ] Test it\n"
SPARE = [{"text": '{"complete": true, "missing": []}'}] * 2  # the self-check's turns, whichever it takes
WRITE = {"text": "Planning.", "tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": PLAN}}]}


def bash(command: str) -> dict:
    return {"tool_uses": [{"name": "bash", "input": {"command": command}}]}


def asking(h, title: str) -> None:
    h.wait(lambda: h.repl.asker.current is not None and title in h.repl.asker.current.title, repr(title))


def screen(h) -> str:
    return "".join(t for _, t in h.repl.view.message())


def last_request(h) -> str:
    return json.dumps(h.repl.state.run.agent.model.requests[-1].messages)


def write_plan(repo, text: str = PLAN) -> None:
    plan = repo / ".cast" / "plans" / "2026-01-01-discounts" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(text)


# -- the approval ---------------------------------------------------------------------------------
def test_a_sentence_at_an_approval_is_a_no_with_instructions(harness, repo):
    write_plan(repo)
    h = harness([bash("python3 -m pytest -q"), {"text": "Understood, with -x then."}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    h.send("actually, run it with -x first\r")
    h.wait_text("Understood, with -x then.")
    h.wait_idle()
    out = h.out.text()
    assert "approved" not in out and "queued" not in out
    assert "declined: python3 -m pytest -q" in out and "told the agent instead: actually, run it with -x first" in out
    assert "said instead: actually, run it with -x first)" in " ".join(out.split())  # the closing report keeps the words too
    sent = json.dumps(h.repl.state.run.agent.model.requests[1].messages)
    assert "declined" in sent and "actually, run it with -x first" in sent  # with the refusal, whole


def test_a_tall_command_is_printed_whole_above_a_question_that_fits_24_rows(harness, repo):
    write_plan(repo)
    command = "touch first-line" + "".join(f"\necho {i} \x1b]52;c;aGk=\x07" for i in range(60)) + "\necho last-line"
    h = harness([bash(command), {"text": "Skipped."}, *SPARE])
    h.repl.view.rows, h.repl.view.columns = (lambda: 24), (lambda: 80)
    h.send("/execute\r")
    asking(h, "62-line command (shown whole above)")
    h.wait_text("echo last-line")
    printed = h.out.text()
    assert "touch first-line" in printed and all(f"echo {i} " in printed for i in range(60)), printed
    assert "\x1b]52" not in printed and "^[]52" in printed  # terminal-safe, as all output
    shown = screen(h)
    assert "[y]es, once" in shown and "[n]o" in shown and "62 lines in all" in shown
    assert shown.count("\n") + 2 <= 24, shown  # the question, the prompt and the toolbar on a 24-row screen
    h.send("n\r")
    h.wait_text("Skipped.")
    h.wait_idle()


def test_always_remembers_only_the_scope_it_showed(harness, repo):
    write_plan(repo)
    h = harness(
        [
            bash("python3 -m pytest -q"),
            bash("python3 -m pytest -x"),
            bash("python3 gen_fixtures.py --force"),
            {"text": "Done."},
            *SPARE,
        ]
    )
    h.send("/execute\r")
    asking(h, "not provably read-only")
    assert "[a]lways this session: python3 -m pytest …" in screen(h)  # the exact scope, before choosing
    h.send("a\r")
    h.wait_text("approved for this session (python3 -m pytest …)")
    h.wait_text("bash python3 -m pytest -x", timeout=60)
    asking(h, "not provably read-only")  # the script is not covered by the pytest approval
    assert h.repl.asker.current.detail == "python3 gen_fixtures.py --force"
    h.send("n\r")
    h.wait_text("■ done")
    h.wait_idle()
    out = h.out.text()
    assert "bash python3 -m pytest -x" in out  # ran on the "always", unasked
    assert out.count("approved") == 1 and "declined: python3 gen_fixtures.py --force" in out
    h.send("/permissions\r")
    h.wait_text("1. python3 -m pytest …")
    h.send("/permissions revoke 1\r")
    h.wait_text("Revoked: python3 -m pytest … will be asked again.")


def test_always_lasts_for_the_repl_session_across_executions(harness, repo):
    write_plan(repo)
    h = harness(
        [
            bash("git commit --allow-empty -qm one"),
            {"text": "One."},
            SPARE[0],  # items left: one nudge
            bash("git commit --allow-empty -qm two"),
            {"text": "Two."},
            *SPARE,
        ]
    )
    h.send("/execute\r")
    asking(h, "not provably read-only")
    h.send("a\r")
    h.wait_text("One.")
    h.wait_idle()
    h.send("/execute\r")  # a new run: the approval is the session's, not the run's
    h.wait_text("Two.")
    h.wait_idle()
    out = h.out.text()
    assert "bash git commit --allow-empty -qm two" in out and out.count("approved") == 1


def test_a_declined_plan_change_says_the_rest_of_the_turn_was_not_run_not_interrupted(harness, repo):
    write_plan(repo)
    later = [
        {"name": "update_task", "input": {"id": 2, "status": "in_progress"}},
        {"name": "read_file", "input": {"path": "app.py"}},
        {"name": "bash", "input": {"command": "ls"}},
    ]
    h = harness([bash("git commit --allow-empty -qm one"), {"tool_uses": later}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    plan = repo / ".cast" / "plans" / "2026-01-01-discounts" / "plan.md"
    plan.write_text(PLAN + "- [ ] Tag a release\n")  # edited by hand while the approval waits
    h.send("y\r")
    asking(h, "revision")
    h.send("n\r")
    h.wait_text("■ stopped")
    h.wait_idle()
    out = h.out.text()
    assert "interrupted" not in out, out
    assert "✗ read_file · not run: the changed plan was not approved" in out
    assert "declined `ls` (not run: the changed plan was not approved)" in out  # the report
    told = json.dumps(h.repl.state.run.agent.transcript.messages[-1])
    assert "interrupted" not in told and told.count("not run: the changed plan was not approved") == 2


def test_edits_are_asked_after_execute_and_not_after_execute_auto(harness, repo):
    edit = {"tool_uses": [{"name": "write_file", "input": {"path": "notes.txt", "content": "hello\n"}}]}
    h = harness([WRITE, {"text": "Planned."}, edit, {"text": "Wrote it."}, *SPARE])
    h.send("reject negative discounts\r")
    asking(h, "Plan written")
    h.send("e\r")
    asking(h, "Apply this change to notes.txt")
    h.send("n\r")
    h.wait_text("edit declined: notes.txt")
    h.wait_idle()
    assert not (repo / "notes.txt").exists()


def test_execute_with_edits_auto_approved_writes_without_asking(harness, repo):
    edit = {"tool_uses": [{"name": "write_file", "input": {"path": "notes.txt", "content": "hello\n"}}]}
    h = harness([WRITE, {"text": "Planned."}, edit, {"text": "Wrote it."}, *SPARE])
    h.send("reject negative discounts\r")
    asking(h, "Plan written")
    h.send("a\r")
    h.wait_text("› execute, edits auto-approved")
    h.wait_text("Wrote it.")
    h.wait_idle()
    assert (repo / "notes.txt").read_text() == "hello\n"
    assert "Apply this change" not in h.out.text()


# -- the plan hand-off ------------------------------------------------------------------------------
def test_the_plan_is_shown_before_the_question(harness):
    h = harness([WRITE, {"text": "Planned."}])
    h.send("reject negative discounts\r")
    asking(h, "Plan written")
    h.wait_text("Reject negative discounts")
    out = h.out.text()
    assert "Check the discount code first." in out  # the body, not just the file name
    labels = screen(h)
    assert "[e]xecute" in labels and "execute, edits [a]uto-approved" in labels and "[n]ot now" in labels


def test_sentences_at_the_hand_off_are_plan_feedback(harness, repo):
    h = harness([WRITE, {"text": "Planned."}, {"text": "Revised for negatives."}, {"text": "Revised for the README."}])
    h.send("fix discounts\r")
    asking(h, "Plan written")
    h.send("ensure negative discounts are rejected\r")  # starts with e: still not "execute"
    h.wait_text("Revised for negatives.")
    assert "ensure negative discounts are rejected" in last_request(h)
    h.wait_idle()
    h.send("now also update the README\r")  # starts with n: still not "not now"
    h.wait_text("Revised for the README.")
    assert h.repl.state.mode == "plan"
    assert "Executing" not in h.out.text() and "The plan is kept" not in h.out.text()
    assert "now also update the README" in last_request(h)


def test_slash_commands_at_the_hand_off_run_as_commands(harness):
    h = harness([WRITE, {"text": "Planned."}])
    h.send("fix discounts\r")
    asking(h, "Plan written")
    h.send("/plans\r")  # safe while asking: runs, and the question stays
    h.wait_text("0/2")
    assert h.repl.asker.current is not None
    h.send("/exit\r")
    h.wait(lambda: not h.thread.is_alive(), "cast to exit")
    assert "Revising" not in h.out.text() and "/exit" not in json.dumps(h.repl.state.run.agent.model.requests[-1].messages)


def test_a_command_that_must_wait_leaves_the_hand_off_and_runs(harness, repo):
    h = harness(
        [
            WRITE,
            {"text": "Planned."},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "nothing to change"}}]},
            {"text": "Ticked."},
            *SPARE,
        ]
    )
    h.send("fix discounts\r")
    asking(h, "Plan written")
    h.send("/execute\r")
    h.wait_text("› not now — /execute runs instead")
    h.wait_text("Ticked.")
    h.wait_idle()
    plan = next((repo / ".cast" / "plans").glob("*/plan.md"))
    assert "- [x] Reject negative discounts" in plan.read_text()


def test_every_choice_is_echoed(harness):
    h = harness([WRITE, {"text": "Planned."}])
    h.send("fix discounts\r")
    asking(h, "Plan written")
    h.send("k\r")
    h.wait_text("› keep planning")
    h.wait_idle()


# -- one key ----------------------------------------------------------------------------------------
def test_a_number_answers_an_approval_at_once_without_enter(harness, repo, monkeypatch):
    monkeypatch.setattr(ask, "GRACE_SECONDS", 0.0)
    write_plan(repo)
    h = harness([bash("touch made.txt"), {"text": "Ran it."}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    shown = screen(h)
    assert "1 [y]es, once" in shown and "2 [n]o" in shown and "3 [a]lways this session" in shown
    hint = shown[shown.index("press 1-3") :].split("\n")[0]
    assert hint.endswith("Esc: no")  # the instructions are one line
    h.send("1")
    h.wait_text("approved once: touch made.txt")
    h.wait_text("Ran it.", timeout=60)
    assert (repo / "made.txt").exists()
    h.wait_idle()


def test_a_number_typed_ahead_of_the_question_is_text_not_an_answer(harness, repo, monkeypatch):
    monkeypatch.setattr(ask, "GRACE_SECONDS", 3600.0)  # every key lands in the grace period
    write_plan(repo)
    h = harness([bash("touch made.txt"), {"text": "Not run."}, *SPARE])
    h.send("/execute\r")
    asking(h, "not provably read-only")
    h.send("3")
    h.wait(lambda: h.repl.buffer_text() == "3", "the key typed into the line")
    assert h.repl.asker.current is not None and "approved" not in h.out.text()
    h.send("\x1b")
    h.wait_text("Not run.")
    h.wait_idle()
    assert "approved" not in h.out.text()


def test_a_number_on_a_line_that_has_text_is_text():
    question = ask.approval_question(ApprovalRequest("make", "/w", "not provably read-only", scope_of("make")))
    asker = ask.Asker()
    asker._current, question.shown_at = question, 0.0
    assert asker.answer_key("1", now=100.0) and question.reply == ask.Reply("yes")
    later = ask.approval_question(ApprovalRequest("make", "/w", "not provably read-only", scope_of("make")))
    asker._current, later.shown_at = later, 99.9
    assert not asker.answer_key("1", now=100.0) and later.reply is None  # in the grace period
    assert later.choice_for("3").value == "always" and later.choice_for("a").value == "always"
    assert later.choice_for("actually run -x") is None
