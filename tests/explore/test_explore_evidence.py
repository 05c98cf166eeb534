"""An explore's answer is an observation of what a subagent read: claims of the final message that
rest on it alone are marked so in the evidence report, and the child's commands never count as the
run's own."""

from __future__ import annotations

import json

from test_explorer import explorer, parent

from cast.agent.report import ReportBuilder

CHILD = [
    {"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
    {"tool_uses": [{"name": "bash", "input": {"command": "git log --oneline -1"}}]},
    {"text": "add is defined at app.py:1 and the history has one commit."},
]
FINAL = "Verified with `git log --oneline -1` that the history is clean. The function add lives in app.py. README.md is short."


def report_for(repo, parent_turns):
    found, _ = explorer(repo, CHILD)
    agent, _ = parent(repo, parent_turns, found.tool())
    builder = ReportBuilder(repo)
    for event in agent.run("plan"):
        builder.observe(event)
    return builder.build()


def test_claims_resting_only_on_an_explore_are_marked_so(repo):
    report = report_for(
        repo,
        [
            {"tool_uses": [{"name": "explore", "input": {"task": "where is add?"}}]},
            {"tool_uses": [{"name": "read_file", "input": {"path": "README.md"}}]},
            {"text": FINAL},
        ],
    )
    claims = {c.text: c for c in report.claims}
    verified = claims["Verified with `git log --oneline -1` that the history is clean."]
    assert not verified.checked and "rests only on an explore's report" in verified.evidence
    assert "`git log --oneline -1` exit_code=0" in verified.evidence
    lives = claims["The function add lives in app.py."]
    assert not lives.checked and lives.kind == "explore" and "it read app.py" in lives.evidence
    assert "README.md is short." not in claims  # the run read README.md itself
    assert report.commands == []  # the child's command is not the run's
    assert [e.task for e in report.explored] == ["where is add?"]
    text = report.render_text()
    assert "Explores: 1 (what subagents read, not verified by cast)" in text
    assert "UNCHECKED" in text and "rests only on an explore's report" in text
    assert json.loads(json.dumps(report.to_dict(), default=str))["explored"][0]["files"] == ["app.py"]


def test_a_claim_the_run_checked_itself_keeps_its_verdict(repo):
    report = report_for(
        repo,
        [
            {"tool_uses": [{"name": "explore", "input": {"task": "where is add?"}}]},
            {"tool_uses": [{"name": "bash", "input": {"command": "git log --oneline -1"}}]},
            {"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]},
            {"text": FINAL},
        ],
    )
    claims = {c.text: c for c in report.claims}
    assert claims["Verified with `git log --oneline -1` that the history is clean."].checked
    assert "The function add lives in app.py." not in claims
