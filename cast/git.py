"""Every git command cast runs goes through here, with one hardening.

A repository is content cast does not control, and so is its local
configuration: ``core.fsmonitor``, ``core.hooksPath``, textconv and filter
drivers, ``gpg.program`` and friends turn a read like ``git status`` into
running a program. cast reads repositories the model may have been pointed at
by anyone, so git runs:

* without system or global configuration, with the repository pinned
  (``GIT_DIR``/``GIT_WORK_TREE``; no discovery of a bare repository committed
  inside the tree, ``safe.bareRepository=explicit`` when discovering the root);
* with configuration that names programs overridden from the environment
  (``GIT_CONFIG_COUNT`` is the highest-priority scope, and git passes it on to
  the git processes it starts), including every filter and diff driver the
  repository's configuration defines;
* with every transport refused, so a partial clone cannot fetch;
* with ``GIT_OPTIONAL_LOCKS=0``, so status does not rewrite the index (``status`` refreshes
  cast's own copy of it instead: ``kept_index``).

The same environment, plus a ``git`` shim first on ``PATH`` that adds
``--no-ext-diff --no-textconv`` after the subcommand, is what commands proven
read-only run with (``hardened_env``). The checker refuses the flags that no
environment can neutralise (``--help``, ``--show-signature``...).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cast.fsutil import atomic_write

TIMEOUT = 30
SHIM_DIR = Path(__file__).resolve().parent / "git_shim"

# Configuration that is read on plain reads and can name a program, write
# into .git or $HOME, or reach the network.
HARDENING: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.splitIndex", "false"),
    ("splitIndex.sharedIndexExpire", "never"),
    ("core.untrackedCache", "keep"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.gitProxy", "false"),
    ("safe.bareRepository", "explicit"),
    ("log.showSignature", "false"),
    ("log.diffMerges", "separate"),
    ("gpg.program", "false"),
    ("gpg.openpgp.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("diff.external", ""),
    ("diff.submodule", "short"),
    ("diff.ignoreSubmodules", "dirty"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    *((f"protocol.{name}.allow", "never") for name in ("file", "git", "ssh", "http", "https", "ext", "fd", "ftp", "ftps")),
)

ENV: dict[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_ALLOW_PROTOCOL": "",
}

# Driver settings that run programs; drivers are named by .gitattributes, so
# every one the configuration defines is overridden by name.
_DRIVERS = r"^(diff|filter|merge)\..+\.(textconv|command|clean|smudge|process|driver|cachetextconv)$"
_DRIVER_OFF = {"cachetextconv": "false"}


def _scrubbed(env: dict[str, str] | None) -> dict[str, str]:
    """The base environment without any GIT_* variable (GIT_DIR, GIT_EXTERNAL_DIFF,
    GIT_SSH_COMMAND, GIT_TRACE..., GIT_CONFIG_PARAMETERS: each redirects or runs)."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if not k.startswith("GIT_") and k not in ("SSH_ASKPASS", "CAST_REAL_GIT")}


def _with_config(env: dict[str, str], pairs: list[tuple[str, str]]) -> dict[str, str]:
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def _pinned(root: Path) -> dict[str, str]:
    """GIT_DIR is ``root/.git`` whether or not it exists: no discovery, ever."""
    real = Path(os.path.realpath(root))
    return {"GIT_DIR": str(real / ".git"), "GIT_WORK_TREE": str(real), "GIT_CEILING_DIRECTORIES": str(real.parent)}


def _base(root: Path | None, env: dict[str, str] | None) -> dict[str, str]:
    base = _scrubbed(env)
    base.update(ENV)
    if root is not None:
        base.update(_pinned(root))
    return base


def driver_overrides(root: Path, env: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """Empty values for every filter/diff/merge driver program the repository's
    configuration (with its includes) defines."""
    base = _with_config(_base(root, env), list(HARDENING))
    try:
        out = subprocess.run(
            ["git", "config", "-z", "--name-only", "--get-regexp", _DRIVERS],
            cwd=root,
            env=base,
            capture_output=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    names = sorted({os.fsdecode(n).strip() for n in out.stdout.split(b"\0") if n.strip()})
    pairs = [(name, _DRIVER_OFF.get(name.rpartition(".")[2].lower(), "")) for name in names]
    # A required filter without its program is an error; without it, git reads the bytes as they are.
    filters = sorted({name.rpartition(".")[0] for name in names if name.lower().startswith("filter.")})
    return pairs + [(f"{driver}.required", "false") for driver in filters]


def git_env(root: Path | None, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for cast's own git commands in the repository at ``root``
    (``None``: discover it from the working directory)."""
    pairs = list(HARDENING) + (driver_overrides(root, env) if root is not None else [])
    return _with_config(_base(root, env), pairs)


def hardened_env(root: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: os.environ) made safe for the git a proven-read-only
    command may run: cast's own hardening, and the shim first on PATH. An
    existing GIT_INDEX_FILE in ``env`` (a private copy of the index) is kept."""
    source = dict(os.environ if env is None else env)
    hardened = git_env(root, source)
    if "GIT_INDEX_FILE" in source:
        hardened["GIT_INDEX_FILE"] = source["GIT_INDEX_FILE"]
    path = source.get("PATH", os.defpath)
    real = shutil.which("git", path=path)
    if real is not None:
        hardened["CAST_REAL_GIT"] = os.path.realpath(real)
        hardened["PATH"] = os.pathsep.join([str(shim_dir()), path])
    return hardened


def shim_dir() -> Path:
    """Where the ``git`` shim lives (shipped in the package, executable)."""
    return SHIM_DIR


# --- running ------------------------------------------------------------------


def call(
    root: Path | None,
    *args: str,
    cwd: Path | None = None,
    timeout: float = TIMEOUT,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
) -> subprocess.CompletedProcess[bytes] | None:
    """``git args`` in the repository at ``root`` with cast's hardening; None when git is
    missing or times out. ``root=None`` discovers the repository from ``cwd`` (bare ones only
    when explicit). ``env`` adds variables after the hardening, e.g. a private ``GIT_DIR`` and
    ``GIT_INDEX_FILE`` for a repository cast keeps itself."""
    where = cwd or root
    if where is None:
        raise ValueError("git needs a root or a cwd")
    full = git_env(root)
    full.update(env or {})
    try:
        return subprocess.run(
            ["git", "--no-pager", *args],
            cwd=where,
            env=full,
            capture_output=True,
            timeout=timeout,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def run(
    root: Path | None, *args: str, cwd: Path | None = None, timeout: float = TIMEOUT, env: dict[str, str] | None = None
) -> bytes | None:
    """stdout of ``git args`` (see ``call``), or None when it fails."""
    out = call(root, *args, cwd=cwd, timeout=timeout, env=env)
    return out.stdout if out is not None and out.returncode == 0 else None


def _line(out: bytes | None) -> str | None:
    text = os.fsdecode(out or b"").strip("\n")
    return text or None


def toplevel(start: Path) -> Path | None:
    """The work tree containing ``start`` (the one place cast lets git discover): the directory
    holding the `.git` git found. A repository's ``core.worktree`` may name any other directory
    (``/root``, the home) as its work tree, and would make that cast's workspace, readable in the
    sandbox and writable where approved; so it is not believed (cast pins ``GIT_WORK_TREE``)."""
    top = _line(run(None, "rev-parse", "--show-toplevel", cwd=start, timeout=10))
    if not top:
        return None
    found = _holding_dot_git(Path(os.path.realpath(start)))
    if found is None:
        return None
    return Path(top) if os.path.realpath(top) == str(found) else found


def _holding_dot_git(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def head(root: Path, *, short: bool = False) -> str | None:
    args = ["rev-parse", "--verify", "--quiet", *(["--short"] if short else []), "HEAD"]
    return _line(run(root, *args, timeout=10))


def index_path(root: Path) -> str | None:
    """The index file's absolute path (worktrees keep their own)."""
    return _line(run(root, "rev-parse", "--path-format=absolute", "--git-path", "index", timeout=10))


@dataclass(frozen=True)
class StatusEntry:
    code: str  # the two porcelain v1 status letters, e.g. " M", "??", "R "
    path: str
    source: str | None = None  # where a rename or copy came from


def kept_index(root: Path) -> str | None:
    """A copy of the user's index in cast's private state, which cast's own ``git status`` may
    refresh: the refreshed stat data stays there between calls and runs, so a tree whose
    timestamps changed (a checkout, a copy, a build) is re-hashed once, not on every call, and the
    user's index is never written. Taken again whenever the user's index changes. None (read the
    user's index without refreshing it) without an index or a usable private state directory."""
    dot = Path(root) / ".git"
    source = str(dot / "index") if dot.is_dir() and not dot.is_symlink() else index_path(root)
    try:
        info = os.stat(source) if source else None
    except OSError:
        info = None
    if source is None or info is None:
        return None
    from cast.state import StateError, private_dir  # deferred: keeps cast.state off the REPL's first prompt

    try:
        directory = private_dir(root, "index")
        copy, stamp_file = directory / "index", directory / "source"
        stamp = f"{source}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ctime_ns}"
        if not copy.is_file() or not stamp_file.is_file() or stamp_file.read_text("utf-8", "replace") != stamp:
            atomic_write(copy, Path(source).read_bytes(), durable=False)  # a cache: rebuilt if lost
            atomic_write(stamp_file, stamp.encode("utf-8"), durable=False)
        return str(copy)
    except (StateError, OSError, ValueError):
        return None


STATUS_ARGS = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty")


def status(root: Path) -> list[StatusEntry] | None:
    """``git status --porcelain=v1 -z --untracked-files=all``, parsed: the dirty set, refreshing
    only cast's own copy of the index (``kept_index``). None outside a repository."""
    kept = kept_index(root)
    out = run(root, *STATUS_ARGS, env={"GIT_INDEX_FILE": kept, "GIT_OPTIONAL_LOCKS": "1"}) if kept else None
    if out is None:  # no copy, or one this git cannot read alone: the user's index, not refreshed
        out = run(root, *STATUS_ARGS)
    if out is None:
        return None
    entries: list[StatusEntry] = []
    fields, index = out.split(b"\0"), 0
    while index < len(fields):
        entry, index = fields[index], index + 1
        if len(entry) < 4:
            continue
        code, path = entry[:2].decode("ascii", "replace"), os.fsdecode(entry[3:])
        source = None
        if code[0] in "RC" and index < len(fields):
            source, index = os.fsdecode(fields[index]), index + 1
        entries.append(StatusEntry(code, path, source))
    return entries
