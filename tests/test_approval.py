"""The execute-mode approval policy: deny list first, then the fixed order of reasons to run."""
from __future__ import annotations

import subprocess

import pytest

from cast.safety.approval import ApprovalPolicy, catastrophic, command_prefix, is_simple
from cast.tools.changes import changed_between, dirty_state, workspace_state

NOT_READ_ONLY = lambda command: False  # noqa: E731
READ_ONLY = lambda command: True  # noqa: E731

CATASTROPHIC = [
    "rm -rf /", "rm -rf /*", "rm -fr ~", "rm -rf ~/", "rm -rf $HOME", "rm -r -f .", "rm -Rf ..", "sudo rm x",
    "rm --recursive --force /", "git push --force origin main", "git push -f", "git push origin +main",
    "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda", ":(){ :|:& };:", "echo x > /dev/sda",
    "shutdown -h now", "ls; sudo reboot", "chmod -R 777 /",
]
ORDINARY = ["rm -rf build", "rm -rf ./dist", "rm file.txt", "git push origin main", "python3 -m pytest -q", "make", "dd if=a of=b"]


@pytest.mark.parametrize("command", CATASTROPHIC)
def test_deny_list_refuses_even_with_yes(command):
    assert catastrophic(command, "/work/repo")
    decision = ApprovalPolicy(yes=True, approver=lambda c: "yes").decide(command, READ_ONLY)
    assert not decision.run and "never runs this" in decision.reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_not_catastrophic(command):
    assert catastrophic(command, "/work/repo") is None


def test_rm_of_the_workspace_root_is_refused():
    assert catastrophic("rm -rf /work/repo", "/work/repo")
    assert catastrophic("rm -rf /work/repo/", "/work/repo")
    assert not catastrophic("rm -rf /work/repo/build", "/work/repo")


def test_no_terminal_and_no_yes_refuses_with_the_way_out():
    decision = ApprovalPolicy().decide("make install", NOT_READ_ONLY)
    assert not decision.run and "--yes" in decision.reason and "allow" in decision.reason


def test_read_only_commands_just_run():
    assert ApprovalPolicy().decide("git status", READ_ONLY).run


def test_allow_rules_match_simple_commands_only():
    policy = ApprovalPolicy(allow=("python3 -m pytest*",))
    assert policy.decide("python3 -m pytest -q tests/", NOT_READ_ONLY).run
    assert not policy.decide("python3 -m pytest -q; rm -rf build", NOT_READ_ONLY).run
    assert not policy.decide("python3 -m pytest $(rm x)", NOT_READ_ONLY).run


def test_always_covers_the_command_prefix_for_the_session():
    asked = []
    policy = ApprovalPolicy(approver=lambda c: asked.append(c) or "always")
    assert policy.decide("npm test -- --watch=false", NOT_READ_ONLY).run
    assert policy.decide("npm test", NOT_READ_ONLY).run
    assert len(asked) == 1
    policy.approver = lambda c: "no"
    assert not policy.decide("npm install left-pad", NOT_READ_ONLY).run


def test_declined_and_approved():
    assert not ApprovalPolicy(approver=lambda c: "no").decide("make", NOT_READ_ONLY).run
    assert ApprovalPolicy(approver=lambda c: "yes").decide("make", NOT_READ_ONLY).run


def test_prefix_and_simplicity():
    assert command_prefix("git commit -m 'x y'") == "git commit"
    assert command_prefix("pytest tests/") == "pytest"
    assert is_simple("pytest -q") and not is_simple("pytest | tee log") and not is_simple("a && b")


def test_changed_files_seen_through_git_status(repo):
    before = dirty_state(repo)
    (repo / "app.py").write_text("changed\n")
    (repo / "new.txt").write_text("new\n")
    middle = dirty_state(repo)
    assert changed_between(before, middle) == ("app.py", "new.txt")
    (repo / "app.py").write_text("changed again, longer\n")
    assert changed_between(middle, dirty_state(repo)) == ("app.py",)
    subprocess.run(["git", "checkout", "app.py"], cwd=repo, check=True)
    assert "app.py" in changed_between(middle, dirty_state(repo))


def test_outside_git_a_small_tree_is_walked(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    assert dirty_state(tmp_path) is None
    before = workspace_state(tmp_path)
    (tmp_path / "a.txt").write_text("changed")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("b")
    assert changed_between(before, workspace_state(tmp_path)) == ("a.txt", "sub/b.txt")
    assert changed_between(None, None) == ()
