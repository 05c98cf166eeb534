"""The execute-mode approval policy: deny list first, then the fixed order of reasons to run.
Every decision here is made on the real checker's verdict."""

from __future__ import annotations

import subprocess

import pytest

from cast.safety import bash_check
from cast.safety.approval import ApprovalPolicy, catastrophic, is_simple
from cast.safety.approval_scope import Rule, scope_of
from cast.safety.decision import Abilities, Answers, ApprovalAnswer, Ask, Refuse, Remembered, Run, SandboxKind
from cast.tools.changes import changed_between, dirty_state, workspace_state


def decide(policy: ApprovalPolicy, command: str) -> Run | Refuse:
    """The policy's decision on the checker's verdict, its question (if any) put to its approver."""
    return policy.settle(policy.decide(command, bash_check.check(command)))


def runs(policy: ApprovalPolicy, command: str) -> bool:
    return isinstance(decide(policy, command), Run)


def answering(*replies: str, log: list | None = None, remembered: Remembered | None = None) -> Answers:
    """An approver giving `replies` in turn (the last one again after that), noting each request."""
    queue = list(replies)

    def reply(request):
        if log is not None:
            log.append(request)
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return Answers(reply, Abilities(remembered=remembered))


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
    'rm -rf "/"',
    "rm -rf '/'",
    "rm -rf '/'*",
    "find / -delete",
    "find -L / -xdev -exec rm -rf {} +",
    '"rm" -rf /',
    "r''m -rf /",
    "r\\m -rf /",
    's""udo ls',
    'git pu""sh -f',
]
ORDINARY = [
    "rm -rf build",
    "rm -rf ./dist",
    "rm file.txt",
    "git push origin main",
    "python3 -m pytest -q",
    "make",
    "dd if=a of=b",
    'rm -rf "build dir"',
    'rm -rf "$HOME/.cache/x"',
    "find . -name '*.pyc' -delete",
]


@pytest.mark.parametrize("command", CATASTROPHIC)
def test_deny_list_refuses_even_with_yes(command):
    assert catastrophic(command, "/work/repo")
    decision = decide(ApprovalPolicy(yes=True, approver=answering("yes")), command)
    assert isinstance(decision, Refuse) and "never runs this" in decision.reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_not_catastrophic(command):
    assert catastrophic(command, "/work/repo") is None


def test_rm_of_the_workspace_root_is_refused():
    assert catastrophic("rm -rf /work/repo", "/work/repo")
    assert catastrophic("rm -rf /work/repo/", "/work/repo")
    assert not catastrophic("rm -rf /work/repo/build", "/work/repo")


def test_no_terminal_and_no_yes_refuses_with_the_way_out():
    decision = decide(ApprovalPolicy(), "make install")
    assert isinstance(decision, Refuse) and "--yes" in decision.reason and "allow" in decision.reason


@pytest.mark.parametrize("command", ["git status", "git log --oneline -3", "grep -rn TODO .", "wc -l app.py"])
def test_proven_read_only_commands_just_run_in_the_read_only_sandbox(command):
    """No terminal, no --yes, no rule: only the checker's proof lets these run."""
    assert decide(ApprovalPolicy(), command) == Run(SandboxKind.PROVEN, "read-only")


@pytest.mark.parametrize("command", ["git commit -m x", "python3 -m pytest -q", "sed -i s/a/b/ app.py", "touch x"])
def test_what_the_checker_cannot_prove_is_not_run_as_read_only(command):
    assert isinstance(decide(ApprovalPolicy(), command), Refuse)
    assert decide(ApprovalPolicy(yes=True), command) == Run(SandboxKind.NONE, "--yes")


def test_allow_rules_match_simple_commands_only():
    policy = ApprovalPolicy(allow=("python3 -m pytest*",))
    assert runs(policy, "python3 -m pytest -q tests/")
    assert not runs(policy, "python3 -m pytest -q; rm -rf build")
    assert not runs(policy, "python3 -m pytest $(rm x)")


def test_always_covers_the_command_and_its_subcommand_for_the_session():
    asked: list = []
    policy = ApprovalPolicy(approver=answering("always", "no", log=asked))
    assert runs(policy, "npm test -- --watch=false")
    assert runs(policy, "npm test")
    assert len(asked) == 1
    assert not runs(policy, "npm install left-pad")


def test_declined_and_approved():
    assert not runs(ApprovalPolicy(approver=answering("no")), "make")
    assert decide(ApprovalPolicy(approver=answering("yes")), "make") == Run(SandboxKind.NONE, "approved")
    assert decide(ApprovalPolicy(approver=answering("yes"), sandbox="workspace-write"), "make") == Run(
        SandboxKind.WORKSPACE_WRITE, "approved"
    )


def test_a_no_with_words_tells_the_model_what_to_do_instead():
    approver = Answers(lambda request: ApprovalAnswer("no", "run it with -x first"))
    decision = decide(ApprovalPolicy(approver=approver), "pytest")
    assert isinstance(decision, Refuse) and "declined" in decision.reason and "run it with -x first" in decision.reason


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


# More than one plain command, nothing computed: remembered as this exact line and nothing else.
LINES = [
    "pytest; rm -rf x",
    "pytest && rm x",
    "pytest | sh",
    "pytest > out",
    "pytest\nrm x",
    "pytest\n rm x",
    "pytest &",
    "(pytest)",
    "python3 -m unittest 2>&1 | tail -5",
    "for f in a b; do echo hi; done",
    "cat <<'EOF'\nliteral text\nEOF",
    "python3 - <<EOF\nprint(1)\nEOF",
]
# What bash computes as it runs (expansions, substitutions, globs): no scope at all.
COMPUTED = [
    "pytest $(rm x)",
    "pytest `rm x`",
    "pytest tests/*.py",
    "pytest ${X}",
    "for f in *.py; do echo $f; done",
    "cat <<EOF\n$HOME\nEOF",
    "cat <<'EOF'\n$HOME 'quoted'\nEOF",
    'echo "$(whoami)" | wc -c',
    "ls ~ | wc -l",
    "echo 'open",
]


@pytest.mark.parametrize("command", LINES)
def test_a_line_of_several_commands_is_remembered_as_that_exact_line_only(command):
    scope = scope_of(command)
    assert scope is not None and scope.exact and scope.label() == command and not is_simple(command)
    assert scope.covers(command)
    for other in (command + " ", command.replace("pytest", "pytest -x"), command + "; rm -rf y", "pytest", "sh"):
        assert other == command or not scope.covers(other), other


@pytest.mark.parametrize("command", COMPUTED)
def test_no_scope_covers_a_line_bash_computes(command):
    assert scope_of(command) is None and not is_simple(command)


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("python3 -c 'print(1)'", ("python3", "-c", "print(1)")),
        ("python3 -c 'import sys; print(sys.argv)'", ("python3", "-c", "import sys; print(sys.argv)")),
        ('git commit -m "fix (a | b); done"', ("git", "commit")),
    ],
)
def test_quoted_text_is_not_shell_syntax(command, words):
    scope = scope_of(command)
    assert scope is not None and scope.words == words and is_simple(command)


def test_always_on_a_pipeline_runs_that_pipeline_again_and_asks_for_any_other():
    log: list = []
    policy = ApprovalPolicy(approver=answering("always", "no", log=log))
    piped = "python3 -m unittest 2>&1 | tail -5"
    assert runs(policy, piped) and runs(policy, piped)
    assert not runs(policy, "python3 -m unittest 2>&1 | tail -5; rm -rf x")
    assert [r.command for r in log] == [piped, "python3 -m unittest 2>&1 | tail -5; rm -rf x"]


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
    policy = ApprovalPolicy(approver=Answers(lambda r: asked.append(r.command) or ("always" if r.command == approved else "no")))
    assert runs(policy, approved)
    for command in others:
        decision = decide(policy, command)
        assert isinstance(decision, Refuse), f"{command!r} rode on the approval of {approved!r}: {decision}"
    assert asked == [approved] + [c for c in others if not catastrophic(c)]


@pytest.mark.parametrize(("approved", "others"), LOOK_ALIKES, ids=[a for a, _ in LOOK_ALIKES])
def test_an_allow_rule_never_covers_a_look_alike(approved, others):
    policy = ApprovalPolicy(allow=(approved + "*",))
    assert runs(policy, approved)
    for command in others:
        assert not runs(policy, command), command


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
    first = ApprovalPolicy(approver=answering("always", remembered=remembered))
    decision = decide(first, "git commit -m a")
    assert isinstance(decision, Run) and decision.label.startswith("approved (always")
    second = ApprovalPolicy(approver=answering("no", remembered=remembered))  # a later run of the same session
    assert runs(second, "git commit -m b")
    assert [s.label() for s in remembered.scopes()] == ["git commit …"]
    assert remembered.revoke(remembered.scopes()[0])
    assert not runs(second, "git commit -m c")
    assert not runs(ApprovalPolicy(approver=answering("no")), "git commit -m d")  # another session: its own memory


def test_the_question_is_a_typed_request():
    policy = ApprovalPolicy(approver=answering("no"), workspace_root="/work/repo")
    command = "python3 -m pytest -q"
    decision = policy.decide(command, bash_check.check(command))
    assert isinstance(decision, Ask)
    request = decision.request
    assert (request.command, request.cwd, request.outside_sandbox) == (command, "/work/repo", False)
    assert request.why == "not provably read-only: " + bash_check.check(command).reason
    assert request.always_label == "python3 -m pytest …"
    line = "python3 -m pytest; rm -rf x"
    assert policy.decide(line, bash_check.check(line)).request.always.label() == line  # type: ignore[union-attr]
    computed = "python3 -m pytest $(cat args)"
    assert policy.decide(computed, bash_check.check(computed)).request.always is None  # type: ignore[union-attr]


def test_running_outside_the_sandbox_is_its_own_question_that_nothing_else_answers():
    remembered = Remembered()
    remembered.add(scope_of("make"))
    asked: list = []
    policy = ApprovalPolicy(yes=True, approver=answering("always", log=asked, remembered=remembered))
    question = policy.outside("make", "a write outside the workspace and the temp dir")
    assert isinstance(question, Ask) and question.request.outside_sandbox and question.request.always is None
    assert "failed on a write outside" in question.request.why
    assert policy.settle(question) == Run(SandboxKind.NONE, "re-run outside the sandbox, approved")
    assert len(asked) == 1 and len(remembered) == 1  # asked despite --yes and "always"; nothing more remembered
    declined = ApprovalPolicy(approver=answering("no")).settle(question)
    assert isinstance(declined, Refuse) and "they declined" in declined.reason
    headless = ApprovalPolicy(yes=True).outside("make", "a write")
    assert isinstance(headless, Refuse) and "interactive session" in headless.reason


class EditAsker:
    abilities = Abilities(edits=True)

    def __init__(self, reply: str) -> None:
        self.reply, self.asked = reply, []

    def ask(self, request):
        raise AssertionError("no command here")

    def ask_edit(self, request):
        self.asked.append(request)
        return ApprovalAnswer(self.reply)


def test_edits_are_asked_only_by_an_approver_that_says_it_asks_them():
    assert decide_edit(ApprovalPolicy(approver=answering("no")), "a.py") == Run(SandboxKind.NONE, "edits run without asking")
    asker = EditAsker("no")
    refused = decide_edit(ApprovalPolicy(approver=asker), "a.py")
    assert isinstance(refused, Refuse) and "a.py" in refused.reason and [r.path for r in asker.asked] == ["a.py"]
    assert isinstance(decide_edit(ApprovalPolicy(approver=EditAsker("yes")), "a.py"), Run)
    assert isinstance(decide_edit(ApprovalPolicy(approver=EditAsker("no"), yes=True), "a.py"), Run)


def decide_edit(policy: ApprovalPolicy, path: str) -> Run | Refuse:
    return policy.decide_edit(path, "--- a\n+++ b\n")


def test_an_answer_is_yes_no_or_always():
    with pytest.raises(ValueError):
        ApprovalAnswer("maybe")  # type: ignore[arg-type]


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


def test_the_terminal_approver_says_what_it_asks(monkeypatch, capsys):
    """The one-shot question names the command, what "always" covers (only when offered), and a
    re-run outside the sandbox as such; anything but yes or always is no."""
    from cast.safety.decision import ApprovalRequest
    from cast.ui.oneshot import terminal_approver

    approver = terminal_approver()
    typed = iter(["a", "a", "yes", "maybe"])
    monkeypatch.setattr("builtins.input", lambda: next(typed))
    first = ApprovalRequest("npm test -- --ci", "/w", "not provably read-only", scope_of("npm test -- --ci"))
    assert approver.ask(first) == ApprovalAnswer("always")
    assert "cast wants to run:\n  npm test -- --ci" in capsys.readouterr().err
    outside = ApprovalRequest("make", "/w", "in the sandbox it failed on a write", None, outside_sandbox=True)
    assert approver.ask(outside) == ApprovalAnswer("no")  # "always" is not offered here
    said = capsys.readouterr().err
    assert "OUTSIDE the sandbox (in the sandbox it failed on a write)" in said and "[a]lways" not in said
    assert approver.ask(outside).value == "yes" and approver.ask(first).value == "no"
    assert not approver.abilities.edits and approver.abilities.remembered is None
