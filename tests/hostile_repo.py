"""A hostile repository, built for real in a temp directory.

Every trap a cloned repository or a common local git setting can set for a
tool that only means to read is armed here, and each trap, when it fires,
creates a marker file named after itself in ``markers``. A test runs a
command in ``root`` and asserts ``fired()`` is empty and ``.git`` hashes the
same before and after; ``armed()`` shows (with a plain, unhardened git)
that each trap really fires, so a passing test means something.

The traps:

* ``hooks``: ``core.hooksPath=.githooks`` (as husky sets it) and a committed
  ``post-index-change`` hook; a tracked file's stat data is stale, so
  ``git diff`` and ``git status`` refresh and write the index.
* ``textconv``: ``*.txt diff=conv`` with ``diff.conv.textconv``; a committed
  change and an unstaged one, so ``git diff``, ``git log -p`` and
  ``git show`` render through it.
* ``extdiff``: ``*.ext diff=ext`` with ``diff.ext.command``.
* ``filter``: ``*.flt filter=flt`` with a required ``clean`` filter and stale
  stat data, so status and diff re-hash the file through the filter.
* ``fsmonitor``: ``core.fsmonitor`` names a program in the main repository.
* ``signature``: ``log.showSignature`` with ``gpg.program``, and HEAD is a
  commit carrying a ``gpgsig`` header.
* ``man``: ``man.viewer`` names a program (``git log --help``).
* ``pager``: ``core.pager`` and ``pager.log`` name a program.
* ``splitindex``: the index is split, ``splitIndex.sharedIndexExpire=now``.
* ``bare``: ``evil/`` is a bare repository committed into the tree whose
  ``core.fsmonitor`` names a program (``cd evil && git status``).
* ``toolchain``: a committed ``rust-toolchain.toml`` naming a toolchain
  inside the tree (rustup proxies would run ``bin/rustc`` from it).
* ``options``: files named ``--pre=sh`` and ``-oout.txt`` (globs turn them
  into flags).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

TRAPS = (
    "hooks",
    "textconv",
    "extdiff",
    "filter",
    "fsmonitor",
    "signature",
    "man",
    "pager",
    "splitindex",
    "bare",
    "toolchain",
    "options",
)

_CLEAN_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def plain_env(home: Path) -> dict[str, str]:
    """The environment a user's plain git would see: no cast hardening at all."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_CLEAN_ENV, HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"))
    return env


@dataclass
class HostileRepo:
    root: Path
    markers: Path
    home: Path

    def fired(self) -> list[str]:
        return sorted(p.name for p in self.markers.iterdir())

    def reset(self) -> None:
        for p in self.markers.iterdir():
            p.unlink()

    def git_digest(self) -> str:
        return tree_digest(self.root / ".git")

    def tree_digest(self) -> str:
        return tree_digest(self.root, skip=(".git",))

    def home_digest(self) -> str:
        return tree_digest(self.home)

    def plain_git(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            env=plain_env(self.home),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )

    def stale(self) -> None:
        """Make the tracked trap files' stat data stale again (same content, new mtime)."""
        for name in ("tracked.py", "data.flt"):
            path = self.root / name
            if path.exists():
                st = path.stat()
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def tree_digest(top: Path, skip: tuple[str, ...] = ()) -> str:
    """Paths, types, modes and bytes of everything under ``top``."""
    h = hashlib.sha256()
    if not top.exists():
        return "absent"
    for directory, dirs, files in os.walk(top):
        rel = os.path.relpath(directory, top)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in skip]
        dirs.sort()
        for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(directory, d))]):
            path = os.path.join(directory, name)
            st = os.lstat(path)
            h.update(f"{os.path.join(rel, name)}\0{st.st_mode}\0".encode())
            if os.path.islink(path):
                h.update(os.readlink(path).encode())
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
        h.update(f"dir:{rel}\0".encode())
    return h.hexdigest()


def _marker_program(markers: Path, bindir: Path, trap: str, tail: str = "") -> str:
    """An executable that records ``trap`` fired, then does ``tail`` (shell code)."""
    path = bindir / f"trap-{trap}"
    path.write_text(f"#!/bin/sh\n: > '{markers}/{trap}'\n{tail}\n")
    path.chmod(0o755)
    return str(path)


def build(base: Path, traps: tuple[str, ...] = TRAPS) -> HostileRepo:
    """Create ``base/repo`` (the hostile repository), ``base/markers`` and ``base/home``."""
    if shutil.which("git") is None:
        raise RuntimeError("git is not installed")
    root, markers, home, bindir = base / "repo", base / "markers", base / "home", base / "trapbin"
    for d in (root, markers, home, bindir):
        d.mkdir(parents=True)
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    repo = HostileRepo(root, markers, home)

    def git(*args: str, cwd: Path = root) -> str:
        out = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=plain_env(home),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if out.returncode:
            raise RuntimeError(f"git {' '.join(args)}: {out.stderr}")
        return out.stdout

    def config(key: str, value: str) -> None:
        git("config", key, value)

    git("init", "-q")
    attributes = []
    (root / "tracked.py").write_text("print('hello')\n")
    if "textconv" in traps:
        attributes.append("*.txt diff=conv")
        (root / "notes.txt").write_text("one\n")
    if "extdiff" in traps:
        attributes.append("*.ext diff=ext")
        (root / "data.ext").write_text("one\n")
    if "filter" in traps:
        attributes.append("*.flt filter=flt")
        (root / "data.flt").write_text("one\n")
    if attributes:
        (root / ".gitattributes").write_text("\n".join(attributes) + "\n")
    if "hooks" in traps:
        hooks = root / ".githooks"
        hooks.mkdir()
        for hook in ("post-index-change", "reference-transaction", "post-checkout", "pre-commit"):
            (hooks / hook).write_text(f"#!/bin/sh\n: > '{markers}/hooks'\n")
            (hooks / hook).chmod(0o755)
    if "bare" in traps:
        evil = root / "evil"
        for sub in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
            (evil / sub).mkdir(parents=True)
            (evil / sub / ".keep").write_text("")
        (evil / "HEAD").write_text("ref: refs/heads/main\n")
        program = _marker_program(markers, bindir, "bare", "exit 1")
        (evil / "config").write_text(
            f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = {program}\n"
        )
    if "toolchain" in traps:
        (root / "rust-toolchain.toml").write_text('[toolchain]\npath = "/proc/self/cwd/toolchain"\n')
        tbin = root / "toolchain" / "bin"
        tbin.mkdir(parents=True)
        for tool in ("rustc", "cargo"):
            (tbin / tool).write_text(f"#!/bin/sh\n: > '{markers}/toolchain'\necho '{tool} 1.0.0'\n")
            (tbin / tool).chmod(0o755)
    if "options" in traps:
        (root / "--pre=sh").write_text("")
        (root / "-oout.txt").write_text("")
        (root / "a.md").write_text("touch pwned\n")
    git("add", "-A")
    git("commit", "-qm", "initial")
    if "textconv" in traps:
        (root / "notes.txt").write_text("one\ntwo\n")
    if "extdiff" in traps:
        (root / "data.ext").write_text("one\ntwo\n")
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", "second")
    # Unstaged changes for porcelain diff.
    if "textconv" in traps:
        (root / "notes.txt").write_text("one\ntwo\nthree\n")
    if "extdiff" in traps:
        (root / "data.ext").write_text("one\ntwo\nthree\n")
    if "signature" in traps:
        _signed_head(git, root)

    # Local settings, the kind a user or a tool sets once and forgets.
    if "hooks" in traps:
        config("core.hooksPath", ".githooks")
    if "textconv" in traps:
        config("diff.conv.textconv", _marker_program(markers, bindir, "textconv", 'cat "$1"'))
    if "extdiff" in traps:
        config("diff.ext.command", _marker_program(markers, bindir, "extdiff"))
    if "filter" in traps:
        config("filter.flt.clean", _marker_program(markers, bindir, "filter", "cat"))
        config("filter.flt.smudge", _marker_program(markers, bindir, "filter", "cat"))
        config("filter.flt.required", "true")  # as git-lfs sets it
    if "fsmonitor" in traps:
        config("core.fsmonitor", _marker_program(markers, bindir, "fsmonitor", "exit 1"))
    if "signature" in traps:
        config("log.showSignature", "true")
        config("gpg.program", _marker_program(markers, bindir, "signature", "exit 1"))
    if "man" in traps:
        config("man.viewer", "evil")
        config("man.evil.cmd", _marker_program(markers, bindir, "man"))
        config("help.format", "man")
    if "pager" in traps:
        program = _marker_program(markers, bindir, "pager", "cat")
        config("core.pager", program)
        config("pager.log", program)
    if "splitindex" in traps:
        git("update-index", "--split-index")
        config("core.splitIndex", "true")
        config("splitIndex.sharedIndexExpire", "now")
        config("splitIndex.maxPercentChange", "0")
    repo.stale()
    repo.reset()  # building it fired some traps already
    return repo


def _signed_head(git, root: Path) -> None:  # type: ignore[no-untyped-def]
    """Replace HEAD with the same commit plus a (fake) gpgsig header."""
    raw = git("cat-file", "commit", "HEAD")
    header, _, message = raw.partition("\n\n")
    sig = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEEfake\n -----END PGP SIGNATURE-----"
    signed = f"{header}\n{sig}\n\n{message}"
    path = root.parent / "signed-commit"
    path.write_text(signed)
    sha = git("hash-object", "-t", "commit", "-w", str(path)).strip()
    path.unlink()
    git("update-ref", "HEAD", sha)
