"""Text that reads well: a reason is never cut before its point, each diff is shown once, and a
command's clock starts when it runs, not while its approval waited."""

from __future__ import annotations

import re

from replkit import harness  # noqa: F401  (a fixture)

from cast.agent import events as ev
from cast.text import one_line
from cast.tools.base import Params, Tool, ToolError, run_tool
from cast.ui.render import Renderer


def test_an_error_summary_keeps_the_whole_reason_and_the_users_words(tmp_path):
    from cast.tools.base import ToolContext
    from cast.workspace import Workspace

    words = "use the Makefile target instead, it cleans the cache too"

    def refuse(args, ctx):
        raise ToolError(
            "the user declined to run this command because it may run arbitrary code from the repository. "
            f"Plan mode only runs proven read-only commands and said instead:\n{words}"
        )

    obs = run_tool(Tool("bash", "", Params, refuse), {}, ToolContext(workspace=Workspace(tmp_path)))
    assert obs.summary.endswith(words) and "\n" not in obs.summary


def test_a_diff_shown_at_its_approval_is_not_shown_again(harness, repo):
    plan = repo / ".cast" / "plans" / "2026-01-01-sub" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n\n- [ ] Add sub\n")
    h = harness(
        [
            {"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
            {"tool_uses": [{"name": "edit_file", "input": {"path": "app.py", "old_string": "a + b", "new_string": "b + a"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
            {"text": "Done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ]
    )
    h.send("/execute 2026-01-01-sub\r")
    h.wait(lambda: h.repl.asker.current is not None and "app.py" in h.repl.asker.current.title, "the edit question")
    h.send("y\r")
    h.wait_text("Plan: 1/1 items done")
    h.wait_idle()
    assert len(re.findall(r"\+\s*return b \+ a", h.out.text())) == 1, h.out.text()


def test_the_clock_of_a_command_restarts_once_its_approval_is_answered():
    renderer = Renderer(lambda renderable: None, plain=True)
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "make install"}))
    renderer._started["t1"] -= 62  # the approval took a minute
    assert "· 62s" in str(renderer.live().renderables[0])
    renderer.restart_clocks()
    assert "· 0s" in str(renderer.live().renderables[0])


def test_a_long_refusal_is_shown_whole_and_once():
    from rich.text import Text

    shown: list = []
    renderer = Renderer(shown.append, plain=True)
    reason = (
        "blocked: the command may run arbitrary code from the repository (a Makefile target). Plan mode "
        "runs only commands proven read-only, so it was not run; ask in execute mode instead."
    )
    renderer.handle(ev.ToolCall("t1", "bash", {"command": "make check"}))
    renderer.handle(ev.ToolResult("t1", "bash", False, one_line(reason, 600), f"error: {reason}"))
    text = " ".join(str(part) if not isinstance(part, Text) else part.plain for part in shown)
    assert text.count("ask in execute mode instead.") == 1, text


def test_the_banner_breaks_between_phrases_and_shortens_a_long_path(tmp_path, monkeypatch):
    from pathlib import Path
    from types import SimpleNamespace

    from cast.repl.startup import banner, shown_path
    from cast.ui.console import render_text

    monkeypatch.setenv("HOME", str(tmp_path))
    root = tmp_path.joinpath(*(f"a-rather-long-directory-name-{n}" for n in range(4)), "project-with-a-long-name")
    assert len(str(root)) > 150
    for columns in (80, 120):
        lines = render_text(banner(SimpleNamespace(root=root, mode="plan")), columns - 1, terminal=False).splitlines()
        assert max(map(len, lines)) < columns and lines[0].startswith("cast ")
        path = lines[0].split(" · ")[1]  # home as ~, its first and last names, the middle elided
        assert (
            path.startswith("~/a-rather-long-directory-name-0/") and "/…/" in path and path.endswith("/project-with-a-long-name")
        )
        phrases = " · ".join(lines).split(" · ")  # every line ends where a phrase does
        assert phrases[2:] == ["describe a task to plan it", "/help lists commands", "Shift+Tab switches plan ⇄ execute"]
    odd = Path("/srv") / ("x" * 150)  # one name longer than the line: cut in its middle
    assert len(shown_path(odd, 60)) == 60 and shown_path(odd, 60).startswith("/srv/xx") and "…" in shown_path(odd, 60)
    assert shown_path(tmp_path / "short", 60) == "~/short"
