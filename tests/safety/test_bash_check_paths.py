"""Path operands: no proven command reads the user's secrets, and with no kernel layer none reads
outside the workspace and the system's directories, or a path computed at run time.

Each read is first run in real bash in a scratch workspace with a fake HOME holding planted
secrets, to show that it really prints one; then the checker must refuse it, with a reason
naming the path. The reads that must keep passing are run too, and print no secret.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cast.safety.bash_check import check
from cast.safety.command_table import RULES
from cast.safety.path_table import PATHS

_BASH = shutil.which("bash")
SECRET = "SECRET-7f3a"

HOME_FILES = {
    ".ssh/id_rsa": SECRET,
    ".aws/credentials": SECRET,
    ".netrc": SECRET,
    ".kube/config": SECRET,
    ".docker/config.json": SECRET,
    ".gnupg/secring.gpg": SECRET,
    ".config/gh/hosts.yml": SECRET,
    "notes.txt": SECRET,
}

# Refused in every mode: each prints a planted secret in plain bash.
SECRET_READS = [
    ("cat ~/.ssh/id_rsa", ".ssh"),
    ("cat ~/.aws/credentials", ".aws"),
    ("cat ~/.netrc", ".netrc"),
    ("cat ~/.kube/config", ".kube"),
    ("cat ~/.docker/config.json", ".docker"),
    ("cat ~/.gnupg/secring.gpg", ".gnupg"),
    ("cat ~/.config/gh/hosts.yml", ".config/gh"),
    ("cat {home}/.ssh/id_rsa", ".ssh"),
    ("cat < {home}/.ssh/id_rsa", ".ssh"),
    ("sed -n 1p ~/.ssh/id_rsa", ".ssh"),
    ("od -c ~/.ssh/id_rsa", ".ssh"),
    ("base64 ~/.ssh/id_rsa", ".ssh"),
    ("xxd ~/.ssh/id_rsa", ".ssh"),
    ("awk '{print}' ~/.ssh/id_rsa", ".ssh"),
    ("grep -r SECRET ~/.ssh", ".ssh"),
    ("grep -rh SECRET {home}", ".ssh"),
    ("rg --hidden -uu SECRET ~", ".ssh"),
    ("grep -F -f ~/.ssh/id_rsa guess", ".ssh"),
    ("grep SECRET ~/.aws/credentials", ".aws"),
    ("head -c 100 ~/.netrc", ".netrc"),
    ("cd ~/.ssh && cat id_rsa", ".ssh"),
    ("cd; cat .ssh/id_rsa", ".ssh"),
    ('for f in ~/.ssh/*; do cat "$f"; done', ".ssh"),
    ("cat link-to-key", ".ssh"),
    ("cat ./*", ".ssh"),
    ("cat linked-home/.ssh/id_rsa", ".ssh"),
    ("diff ~/.ssh/id_rsa /dev/null", ".ssh"),
    ("timeout 5 cat ~/.ssh/id_rsa", ".ssh"),
    ("echo $(cat ~/.ssh/id_rsa)", ".ssh"),
    ("for i in 1 2; do cat id_rsa; cd ~/.ssh; done", ".ssh"),
    ("cat /proc/self/environ", "/proc/*/environ"),
]
# Refused in every mode; not planted here (system files, another user's home).
SYSTEM_READS = [
    ("cat /etc/shadow", "/etc/shadow"),
    ("cat ../../../../../../../../etc/shadow", "/etc/shadow"),
    ("cat < /etc/shadow", "/etc/shadow"),
    ("cat /etc/gshadow", "/etc/gshadow"),
    ("cd /etc; cat shadow", "/etc/shadow"),
    ("for f in /etc/*; do cat $f; done", "secrets"),
    ("date -f /etc/shadow", "/etc/shadow"),
    ("sort --files0-from=/etc/shadow", "/etc/shadow"),
    ("cat /proc/1/environ", "/proc/*/environ"),
    ("jq -n --rawfile k /etc/shadow '$k'", "/etc/shadow"),
    ("jq -n --slurpfile k ~/.ssh/id_rsa '$k'", ".ssh"),
    ("cat /proc/self/root/etc/shadow", "/etc/shadow"),
    ("cat /home/someone-else/.bashrc", "another user's home"),
]
# Strict mode only (no kernel layer): the home outside the workspace, and computed paths.
STRICT_READS = [
    ("cat ~/notes.txt", "outside the workspace"),
    ("cat {home}/notes.txt", "outside the workspace"),
    ("grep SECRET ../home/notes.txt", "outside the workspace"),
    ("cat $(echo ~/notes.txt)", "computed at run time"),
    ("echo ~/notes.txt | xargs cat", "xargs appends"),
    ("head -1 list.txt | xargs cat", "xargs appends"),
    ('cat "$HOME/notes.txt"', "computed at run time"),
    ("for f in $(cat list.txt); do cat $f; done", "computed at run time"),
]
# Pass in both modes, and print no secret.
READS_OK = [
    "cat key.txt",
    "cat src/a.py",
    "cat ./*.txt",
    "grep -rn def .",
    "rg -n def",
    "cd src && cat a.py",
    "for f in key.txt src/a.py; do cat $f; done",
    'for f in ./src/*; do wc -l "$f"; done',
    "cat /etc/hostname",
    "ls /usr/bin | head -1",
    "find . -name '*.py'",
    "sed -n 1p key.txt",
    "echo ~/.ssh/id_rsa",
    "grep -e /etc/shadow key.txt || true",
    "jq -n --arg k /etc/shadow '$k' 2>/dev/null || true",
]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    for name, text in HOME_FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text + "\n")
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("def a():\n    return 1\n")
    (work / "key.txt").write_text("key\n")
    (work / "guess").write_text(f"{SECRET}\n")  # grep -f with the key as patterns says whether a guess is right
    (work / "list.txt").write_text(f"{home}/notes.txt\n")
    (work / "link-to-key").symlink_to(home / ".ssh" / "id_rsa")
    (work / "linked-home").symlink_to(home)
    (home / ".ssh" / "id_rsa").chmod(0o600)
    monkeypatch.setenv("HOME", str(home))
    return home, work


def _bash_output(command: str, home: Path, work: Path, **env: str) -> str:
    done = subprocess.run(
        [_BASH or "bash", "--noprofile", "--norc", "-c", command],
        cwd=work,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C", **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    return done.stdout + done.stderr


def _leaked(out: str) -> bool:
    """The secret, as printed, dumped (od, xxd) or encoded (base64)."""
    flat = "".join(out.split())
    encoded = base64.b64encode(SECRET.encode() + b"\n").decode()[:12]
    return SECRET in flat or SECRET.encode().hex()[:16] in flat or encoded in flat


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command,why", SECRET_READS)
def test_a_read_of_a_secret_prints_it_in_bash_and_is_refused_in_every_mode(command, why, place) -> None:
    home, work = place
    command = command.replace("{home}", str(home))
    marked = {"MARK": SECRET} if "environ" in command else {}
    out = _bash_output(command, home, work, **marked)
    assert _leaked(out), f"bash printed no secret for {command!r}: {out[:200]!r}"
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert not verdict.allowed, f"allowed {command!r} (strict={strict})"
        assert why in verdict.reason, verdict.reason


@pytest.mark.parametrize("command,why", SYSTEM_READS)
def test_system_secrets_and_other_homes_are_refused_in_every_mode(command, why, place) -> None:
    _, work = place
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert not verdict.allowed and why in verdict.reason, (command, strict, verdict.reason)


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command,why", STRICT_READS)
def test_with_no_kernel_layer_the_home_and_computed_paths_are_refused(command, why, place) -> None:
    home, work = place
    command = command.replace("{home}", str(home))
    assert _leaked(_bash_output(command, home, work)), command
    assert check(command, root=work).allowed, check(command, root=work).reason  # the kernel layer hides the home
    verdict = check(command, strict=True, root=work)
    assert not verdict.allowed and why in verdict.reason, verdict.reason


@pytest.mark.skipif(_BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("command", READS_OK)
def test_reads_inside_the_workspace_and_the_system_pass(command, place) -> None:
    home, work = place
    assert not _leaked(_bash_output(command, home, work)), command
    for strict in (False, True):
        verdict = check(command, strict=strict, root=work)
        assert verdict.allowed, (command, strict, verdict.reason)


def test_the_reason_names_the_path(place) -> None:
    home, work = place
    verdict = check("cat ~/.ssh/id_rsa", root=work)
    assert verdict.reason.startswith(f"cat: {home}/.ssh/id_rsa: {home}/.ssh holds the user's credentials"), verdict.reason


def test_a_workspace_inside_another_home_is_still_the_workspace(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert check("cat /home/dev/proj/README.md", root="/home/dev/proj").allowed
    assert not check("cat /home/dev/notes.txt", root="/home/dev/proj").allowed


def test_every_listed_command_says_which_words_are_paths() -> None:
    assert sorted(set(RULES) - set(PATHS)) == []
    assert sorted(set(PATHS) - set(RULES)) == []


def test_a_secret_read_is_refused_outright_never_asked_even_with_yes(place) -> None:
    """Asking would let an approval, or --yes, run it with no sandbox hiding the secret."""
    from cast.safety.approval import ApprovalPolicy, PlanCommands, decide_plan
    from cast.safety.decision import Refuse

    _, work = place
    verdict = check("cat ~/.ssh/id_rsa", root=work)
    assert verdict.secret
    decision = ApprovalPolicy(yes=True, workspace_root=str(work)).decide("cat ~/.ssh/id_rsa", verdict)
    assert isinstance(decision, Refuse) and ".ssh holds the user's credentials" in decision.reason
    planned = decide_plan("cat ~/.ssh/id_rsa", verdict, PlanCommands(True, "strong"), str(work))
    assert isinstance(planned, Refuse)
    assert not check("python3 x.py", root=work).secret  # an unproven command is still asked about
