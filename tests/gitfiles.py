"""Workspaces whose git metadata points out of them, as a tarball, an sdist or a copied directory
can carry it (a `git clone` cannot), and the two real layouts that legitimately do: a linked
worktree and a submodule. Shared by tests/sandbox/test_git_metadata.py and
tests/redteam/test_git_files.py.

Each attack names a secret outside the workspace; `Attack.secrets` are the strings that must
appear nowhere cast sent, printed or kept."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cast.sandbox.visible import HOME_TOOLCHAINS


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@dataclass
class Attack:
    name: str
    root: Path  # the workspace cast is started in
    reads: list[str]  # shell commands that would print a secret if the sandbox let them
    secrets: list[str] = field(default_factory=list)
    note: bool = True  # cast says "git metadata outside the workspace is not visible" once


def _home() -> Path:
    return Path(os.environ["HOME"])


def _ssh_key(tag: str) -> Path:
    ssh = _home() / ".ssh"
    ssh.mkdir(exist_ok=True)
    (ssh / "id_rsa").write_text(f"PLANTED-SSH-KEY-{tag}\n")
    return ssh / "id_rsa"


def _workspace(tmp: Path, dot_git: str | None = None, name: str = "ws") -> Path:
    root = tmp / name
    root.mkdir(parents=True)
    (root / "app.py").write_text("print('app')\n")
    if dot_git is not None:
        (root / ".git").write_text(dot_git + "\n")
    return root


def _leak_script(root: Path, target: Path) -> str:
    (root / "leak.py").write_text(f"print(open({str(target)!r}).read())\n")
    return "python3 leak.py"


def ssh_absolute(tmp: Path) -> Attack:
    key = _ssh_key("abs")
    root = _workspace(tmp, f"gitdir: {key.parent}")
    return Attack("ssh-absolute", root, [f"cat {key}", _leak_script(root, key), "git log -1"], [key.read_text().strip()])


def ssh_relative(tmp: Path) -> Attack:
    key = _ssh_key("rel")
    root = tmp / "ws"
    root.mkdir(parents=True)
    (root / ".git").write_text(f"gitdir: {os.path.relpath(key.parent, root)}\n")
    return Attack("ssh-relative", root, [f"cat {key}", _leak_script(root, key)], [key.read_text().strip()])


def commondir(tmp: Path) -> Attack:
    """`.git` names a directory inside the workspace whose `commondir` leads to ~/.ssh."""
    key = _ssh_key("common")
    root = _workspace(tmp, "gitdir: .gd")
    (root / ".gd" / "refs").mkdir(parents=True)
    (root / ".gd" / "objects").mkdir()
    (root / ".gd" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".gd" / "commondir").write_text(os.path.relpath(key.parent, root / ".gd") + "\n")
    return Attack("commondir", root, [f"cat {key}", "cat ~/.ssh/id_rsa", _leak_script(root, key)], [key.read_text().strip()])


def alternates(tmp: Path) -> Attack:
    """A real repository whose objects/info/alternates borrows a private repository's objects."""
    vault = _home() / "vault"
    vault.mkdir()
    git(vault, "init", "-q")
    (vault / "secret.txt").write_text("PLANTED-VAULT-SECRET\n")
    git(vault, "add", ".")
    git(vault, "commit", "-qm", "vault")
    blob = git(vault, "rev-parse", "HEAD:secret.txt").strip()
    root = _workspace(tmp)
    git(root, "init", "-q")
    (root / ".git" / "objects" / "info" / "alternates").write_text(str(vault / ".git" / "objects") + "\n")
    reads = [f"git cat-file -p {blob}", f"cat {vault}/secret.txt"]
    return Attack("alternates", root, reads, ["PLANTED-VAULT-SECRET"])


def shared_tmp(tmp: Path) -> Attack:
    secret = tmp / "left-in-tmp.txt"
    secret.write_text("PLANTED-TMP-SECRET\n")
    root = _workspace(tmp, "gitdir: /tmp")
    return Attack("tmp", root, [f"cat {secret}", _leak_script(root, secret)], ["PLANTED-TMP-SECRET"])


def _listing(path: str) -> list[str]:
    """What is in `path` that the sandbox hides (toolchains are shown on purpose)."""
    shown = {name.split("/")[0] for name in HOME_TOOLCHAINS}
    try:
        return [f"{path}/{name}" for name in sorted(os.listdir(path)) if name not in shown]
    except OSError:
        return []


def all_homes(tmp: Path) -> Attack:
    root = _workspace(tmp, "gitdir: /home")
    return Attack("home", root, ["ls -A /home | sed 's|^|/home/|'"], _listing("/home"))


def root_home(tmp: Path) -> Attack:
    root = _workspace(tmp, "gitdir: /root")
    return Attack("root", root, ["ls -A /root | sed 's|^|/root/|'"], _listing("/root"))


def head_only(tmp: Path) -> Attack:
    """A directory holding only a HEAD, to look like a git dir."""
    decoy = _home() / "decoy"
    decoy.mkdir()
    (decoy / "HEAD").write_text("ref: refs/heads/main\n")
    (decoy / "notes.txt").write_text("PLANTED-DECOY-SECRET\n")
    root = _workspace(tmp, f"gitdir: {decoy}")
    return Attack(
        "head-only", root, [f"cat {decoy}/notes.txt", _leak_script(root, decoy / "notes.txt")], ["PLANTED-DECOY-SECRET"]
    )


def invalid(tmp: Path) -> Attack:
    """A `gitdir:` naming nothing that exists, next to a secret it would sit beside."""
    key = _ssh_key("invalid")
    root = _workspace(tmp, f"gitdir: {key.parent}/missing")
    return Attack("invalid", root, [f"cat {key}", _leak_script(root, key)], [key.read_text().strip()])


def forged_submodule(tmp: Path) -> Attack:
    """A tree whose parent carries `.git/modules/x` as a link to ~/.ssh: it is not under the
    superproject's `.git/modules` once resolved."""
    key = _ssh_key("module")
    parent = tmp / "unpacked"
    (parent / ".git" / "modules").mkdir(parents=True)
    (parent / ".git" / "modules" / "x").symlink_to(key.parent)
    root = _workspace(parent, "gitdir: ../.git/modules/x")
    return Attack("forged-submodule", root, [f"cat {key}", _leak_script(root, key)], [key.read_text().strip()])


def core_worktree(tmp: Path) -> Attack:
    """A repository whose `core.worktree` names the home: it must not become cast's workspace."""
    key = _ssh_key("worktree")
    root = _workspace(tmp)
    git(root, "init", "-q")
    git(root, "config", "core.worktree", str(_home()))
    return Attack("core-worktree", root, [f"cat {key}", _leak_script(root, key)], [key.read_text().strip()], note=False)


def symlinked(tmp: Path) -> Attack:
    """`.git` itself a symlink to ~/.ssh."""
    key = _ssh_key("link")
    root = _workspace(tmp)
    (root / ".git").symlink_to(key.parent)
    return Attack("symlink", root, [f"cat {key}", "cat .git/id_rsa", _leak_script(root, key)], [key.read_text().strip()])


def copied_worktree(tmp: Path) -> Attack:
    """A linked worktree copied elsewhere (as an archive of it would be): the back-link names the
    original, not the copy, so the copy is not proven, and the secret beside its common dir stays out."""
    legit = linked_worktree(tmp / "orig")
    git(tmp / "orig" / "main", "config", "remote.origin.url", "https://user:PLANTED-REMOTE-TOKEN@example.com/r.git")
    root = tmp / "copy"
    root.mkdir()
    (root / ".git").write_text((legit.root / ".git").read_text())
    (root / "app.py").write_text("print('app')\n")
    common = tmp / "orig" / "main" / ".git"
    reads = [f"cat {common}/config", "git log -1", _leak_script(root, common / "config")]
    return Attack("copied-worktree", root, reads, ["PLANTED-REMOTE-TOKEN", "worktree subject"])


ATTACKS: dict[str, Callable[[Path], Attack]] = {
    "ssh-absolute": ssh_absolute,
    "ssh-relative": ssh_relative,
    "commondir": commondir,
    "alternates": alternates,
    "tmp": shared_tmp,
    "home": all_homes,
    "root": root_home,
    "head-only": head_only,
    "invalid": invalid,
    "forged-submodule": forged_submodule,
    "core-worktree": core_worktree,
    "symlink": symlinked,
    "copied-worktree": copied_worktree,
}


@dataclass
class Legit:
    root: Path  # the workspace: a linked worktree or a submodule, with `changed` modified
    subject: str  # the newest commit's subject
    changed: str


def linked_worktree(tmp: Path) -> Legit:
    """`git worktree add ../wt`, the main repository's git dir outside the workspace (under /tmp,
    which the sandbox hides, so it must be shown on purpose)."""
    main = tmp / "main"
    main.mkdir(parents=True)
    git(main, "init", "-q")
    (main / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(main, "add", ".")
    git(main, "commit", "-qm", "worktree subject")
    git(main, "worktree", "add", "-q", "../wt")
    root = tmp / "wt"
    (root / "calc.py").write_text("def add(a, b):\n    return a + b  # fixed\n")
    return Legit(root, "worktree subject", "calc.py")


def submodule(tmp: Path) -> Legit:
    """A superproject with a submodule added from a local repository (its git dir is absorbed
    into the superproject's `.git/modules/`)."""
    lib = tmp / "libsrc"
    lib.mkdir(parents=True)
    git(lib, "init", "-q")
    (lib / "lib.py").write_text("VALUE = 1\n")
    git(lib, "add", ".")
    git(lib, "commit", "-qm", "submodule subject")
    top = tmp / "super"
    top.mkdir()
    git(top, "init", "-q")
    git(top, "submodule", "add", "-q", str(lib), "lib")
    git(top, "commit", "-qm", "add lib")
    root = top / "lib"
    assert (root / ".git").is_file()
    (root / "lib.py").write_text("VALUE = 2  # changed\n")
    return Legit(root, "submodule subject", "lib.py")


def worktree_submodule(tmp: Path) -> Legit:
    """A submodule checked out in a linked worktree of its superproject: git keeps its git dir in
    `<common>/worktrees/<id>/modules/`."""
    submodule(tmp)
    git(tmp / "super", "worktree", "add", "-q", "../superwt")
    git(tmp / "superwt", "submodule", "update", "--init", "-q")
    root = tmp / "superwt" / "lib"
    assert "/worktrees/superwt/modules/lib" in (root / ".git").read_text()
    (root / "lib.py").write_text("VALUE = 3  # changed in the worktree\n")
    return Legit(root, "submodule subject", "lib.py")


LEGIT: dict[str, Callable[[Path], Legit]] = {
    "worktree": linked_worktree,
    "submodule": submodule,
    "worktree-submodule": worktree_submodule,
}
