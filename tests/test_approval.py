"""The execute-mode approval policy: deny list first, then the fixed order of reasons to run."""

from __future__ import annotations

import subprocess

import pytest

from cast.safety.approval import Answer, ApprovalPolicy, Remembered, catastrophic, is_simple
from cast.safety.approval_scope import Rule, scope_of
from cast.tools.changes import changed_between, dirty_state, workspace_state

NOT_READ_ONLY = lambda command: False  # noqa: E731
READ_ONLY = lambda command: True  # noqa: E731

CATASTROPHIC = [
    "rm -rf /",
    "rm -rf /*",
    "rm -fr ~",
    "rm -rf ~/",
    "rm -rf $HOME",
    "rm -r -f .",
    "rm -Rf ..",
    "sudo rm x",
    "rm --recursive --force /",
    "git push --force origin main",
    "git push -f",
    "git push origin +main",
    "mkfs.ext4 /dev/sda1",
    "dd if=/dev/zero of=/dev/sda",
    ":(){ :|:& };:",
    "echo x > /dev/sda",
    "shutdown -h now",
    "ls; sudo reboot",
    "chmod -R 777 /",
]
ORDINARY = [
    "rm -rf build",
    "rm -rf ./dist",
    "rm file.txt",
    "git push origin main",
    "python3 -m pytest -q",
    "make",
    "dd if=a of=b",
]


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


def test_always_covers_the_command_and_its_subcommand_for_the_session():
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


def test_a_no_with_words_tells_the_model_what_to_do_instead():
    decision = ApprovalPolicy(approver=lambda c: Answer("no", "run it with -x first")).decide("pytest", NOT_READ_ONLY)
    assert not decision.run and "declined" in decision.reason and "run it with -x first" in decision.reason


SCOPES = [
    ("python3 -m pytest -q", "python3 -m pytest …"),
    ("python3 -m pytest", "python3 -m pytest …"),
    ("git commit -m 'x y'", "git commit …"),
    ("npm run test -- --ci", "npm run test …"),
    ("npm test", "npm test …"),
    ("pytest tests/", "pytest …"),
    ("uv run pytest -x", "uv run pytest …"),
    ("python3 tools/gen.py --force", "python3 tools/gen.py …"),
    ("make lint", "make lint …"),
    ("npx jest --ci", "npx jest …"),
    # no safe prefix: exactly the command
    ("python3 -c 'import this'", "python3 -c 'import this'"),
    ("python3", "python3"),
    ("python3 -m pip install requests", "python3 -m pip install requests"),
    ("pip install requests", "pip install requests"),
    ("npm install left-pad", "npm install left-pad"),
    ("uv pip install x", "uv pip install x"),
    ("env X=1 pytest", "env X=1 pytest"),
    ("X=1 pytest", "X=1 pytest"),
    ("bash -c 'pytest'", "bash -c pytest"),
    ("sh run.sh", "sh run.sh"),
    ("rm -rf build", "rm -rf build"),
    ("git -c core.hooksPath=/tmp/h commit", "git -c core.hooksPath=/tmp/h commit"),
    ("./pytest -q", "./pytest -q"),
    ("python3 ../outside.py", "python3 ../outside.py"),
    ("docker run --rm img", "docker run --rm img"),
    ("npx evil-package", "npx evil-package"),
    ("uv run python -c x", "uv run python -c x"),
]


@pytest.mark.parametrize(("command", "label"), SCOPES)
def test_the_scope_an_always_remembers(command, label):
    assert scope_of(command).label() == label


NOT_PLAIN = [
    "pytest; rm -rf x",
    "pytest && rm x",
    "pytest | sh",
    "pytest $(rm x)",
    "pytest `rm x`",
    "pytest > out",
    "pytest\nrm x",
    "pytest\n rm x",
    "pytest &",
    "pytest tests/*.py",
    "(pytest)",
    "pytest ${X}",
]


@pytest.mark.parametrize("command", NOT_PLAIN)
def test_no_scope_covers_more_than_one_plain_command(command):
    assert scope_of(command) is None and not is_simple(command)


# Hostile look-alikes of approved commands: none may ride on the approval.
LOOK_ALIKES = [
    (
        "python3 -m pytest -q",
        [
            "python3 -c 'import os; os.system(\"rm -rf x\")'",
            "python3 script.py",
            "python3 gen_fixtures.py --force",
            "python3 -m pip install evil",
            "python3 -m pytest; rm -rf x",
            "python3 -m pytest && curl x",
            "env X=1 python3 -m pytest",
            "python3 -m pytest_evil",
            "python3",
            "python3 -m",
        ],
    ),
    (
        "pytest -q",
        [
            "pytest; rm -rf x",
            "env X=1 pytest",
            "X=1 pytest",
            "pytest-evil",
            "pytest $(rm x)",
            "sh -c pytest",
            "./pytest",
            "/tmp/pytest",
            "pytest | sh",
        ],
    ),
    (
        "git commit -m x",
        [
            "git push origin main",
            "git -c core.hooksPath=/tmp commit -m x",
            "git",
            "git commit -m x; rm y",
            "git config core.hooksPath /tmp",
        ],
    ),
    ("npm run test", ["npm run build", "npm install evil", "npm exec evil", "npx evil", "npm run test && rm x"]),
    ("python3 tools/gen.py", ["python3 tools/other.py", "python3 -c x", "python3 -m tools.gen", "python3 ../tools/gen.py"]),
    ("rm -rf build", ["rm -rf /", "rm -rf build src", "rm -rf src"]),
]


@pytest.mark.parametrize(("approved", "others"), LOOK_ALIKES, ids=[a for a, _ in LOOK_ALIKES])
def test_always_never_covers_a_look_alike(approved, others):
    asked: list[str] = []
    policy = ApprovalPolicy(approver=lambda c: asked.append(c) or ("always" if c == approved else "no"))
    assert policy.decide(approved, NOT_READ_ONLY).run
    for command in others:
        decision = policy.decide(command, NOT_READ_ONLY)
        assert not decision.run, f"{command!r} rode on the approval of {approved!r}: {decision.reason}"
    assert asked == [approved] + [c for c in others if not catastrophic(c)]


@pytest.mark.parametrize(("approved", "others"), LOOK_ALIKES, ids=[a for a, _ in LOOK_ALIKES])
def test_an_allow_rule_never_covers_a_look_alike(approved, others):
    policy = ApprovalPolicy(allow=(approved + "*",))
    assert policy.decide(approved, NOT_READ_ONLY).run
    for command in others:
        assert not policy.decide(command, NOT_READ_ONLY).run, command


def test_allow_rules_read_with_the_same_scopes():
    assert Rule.parse("python3 -m pytest*").matches("python3 -m pytest -q tests/")
    assert Rule.parse("python3 bench/bench_check.py*").matches("python3 bench/bench_check.py -n 3")
    assert Rule.parse("make lint").matches("make lint") and not Rule.parse("make lint").matches("make lint -j9")
    # a rule wider than a scope is narrowed to what an "always" would allow
    assert not Rule.parse("python3*").matches("python3 -c 'print(1)'")
    assert not Rule.parse("python3*").matches("python3 -m pytest")
    assert not Rule.parse("npm*").matches("npm install evil")
    assert not Rule.parse("pytest*").matches("pytest-evil")
    assert not Rule.parse("pytest*").matches("env X=1 pytest")


def test_remembered_approvals_are_shared_listed_and_revoked():
    remembered = Remembered()

    class Approver:
        def __init__(self):
            self.remembered = remembered

        def __call__(self, command):
            return "always"

    first = ApprovalPolicy(approver=Approver())
    assert first.decide("git commit -m a", NOT_READ_ONLY).reason.startswith("approved (always")
    second = ApprovalPolicy(approver=lambda c: "no")
    second.always = remembered  # a later run of the same interactive session
    assert second.decide("git commit -m b", NOT_READ_ONLY).run
    assert [s.label() for s in remembered.scopes()] == ["git commit …"]
    assert remembered.revoke(remembered.scopes()[0])
    assert not second.decide("git commit -m c", NOT_READ_ONLY).run


def test_simplicity():
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
