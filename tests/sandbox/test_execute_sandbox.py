"""Execute mode with `sandbox = "workspace-write"`: approved commands write only the workspace
and the temp dir; a denied write says so, and only an explicit approval runs it outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from cast.config import ConfigError, load
from cast.safety.approval import ApprovalPolicy
from cast.safety.decision import Answers, ApprovalRequest
from cast.sandbox.denials import denial
from cast.tools.base import Sandbox, ToolContext, run_tool
from cast.tools.shell import EXECUTE_BASH
from cast.workspace import Workspace


def _run(root: Path, command: str, **policy: object) -> tuple[str, dict]:
    approval = ApprovalPolicy(workspace_root=str(root), sandbox="workspace-write", **policy)  # type: ignore[arg-type]
    obs = run_tool(EXECUTE_BASH, {"command": command}, ToolContext(workspace=Workspace(root), sandbox=Sandbox(approval=approval)))
    return obs.text, obs.result


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    return root


def test_approved_command_writes_the_workspace_not_outside_and_says_so(layer, work, tmp_path):
    text, facts = _run(work, f"touch src/made && touch {tmp_path}/outside", yes=True)
    assert (work / "src" / "made").exists() and not (tmp_path / "outside").exists()
    assert "failed on a write" in text and "Only the user can let it run outside the sandbox" in text
    assert facts.sandbox_denied and facts.sandbox == f"{layer} workspace-write"


def test_yes_does_not_unlock_the_outside_but_an_explicit_approval_does(layer, work, tmp_path):
    asked: list[ApprovalRequest] = []
    text, facts = _run(work, f"touch {tmp_path}/outside", approver=Answers(lambda request: asked.append(request) or "yes"))
    assert (tmp_path / "outside").exists()
    assert [r.outside_sandbox for r in asked] == [False, True] and "failed on a write" in asked[1].why
    assert "approved this second run outside the sandbox" in text and "outside the sandbox, approved" in facts.approval


def test_declined_outside_run_stays_denied(layer, work, tmp_path):
    answers = iter(["yes", "no"])
    text, _ = _run(work, f"touch {tmp_path}/outside", approver=Answers(lambda request: next(answers)))  # type: ignore[arg-type,return-value]
    assert not (tmp_path / "outside").exists() and "(they declined)" in text


def test_config_takes_the_two_keys_and_refuses_other_values(work):
    from cast.trust import record

    (work / ".cast").mkdir()
    (work / ".cast" / "config.toml").write_text('sandbox = "workspace-write"\nsandbox_network = true\n')
    record(work, trusted=True)  # the network is a loosening key: it counts in a trusted workspace
    config = load(work)
    assert config.sandbox == "workspace-write" and config.sandbox_network is True
    (work / ".cast" / "config.toml").write_text('sandbox = "everything"\n')
    with pytest.raises(ConfigError, match="sandbox"):
        load(work)


def test_denial_signs():
    assert denial(1, "touch: cannot touch '/x': Read-only file system") is not None
    assert denial(7, "curl: (6) Could not resolve host: example.com") is not None
    assert denial(0, "Permission denied") is None and denial(1, "AssertionError: 2 != 3") is None
