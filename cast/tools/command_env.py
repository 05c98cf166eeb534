"""The environments commands run with, worked out once and reused while what they rest on holds.

A proven read-only command gets `read_only_env`: PATH without the workspace, and cast's hardened
git (cast/git.py), whose overrides name every filter and diff driver the repository's config
defines — one `git config` run, a few milliseconds, which a planner exploring with 40 commands
would otherwise pay 40 times. It is kept per workspace and used again while cast's environment
and every config file git read are unchanged: the repository's own `config` and `config.worktree`
(in its git dir and common dir), `HEAD` (an `includeIf "onbranch:"` follows it), the workspace's
`.git`, and every file an `include.path` or `includeIf.*.path` names, whether it exists yet or
not (each one's stat: inode, size, mtime and ctime, which no command can set back as `touch` sets
the mtime). An include cast cannot place (`%(prefix)/`) makes it
ask git every time, as before. The private copy of the index (`private_git_index`) is kept the
same way: copied again only when the user's index changes.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from cast import git
from cast.gitdir import belongs

_INCLUDES = r"^include(if\..*)?\.path$"
_LOCK = threading.Lock()
_ENVS: dict[str, tuple[object, tuple[str, ...], tuple[object, ...], dict[str, str]]] = {}
_INDEXES: dict[str, tuple[object, str]] = {}
_COPIES: list[str] = []  # the private dir the index copies live in, removed when cast exits


def hardened_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BASH_ENV", "ENV", "PROMPT_COMMAND")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat", GIT_TERMINAL_PROMPT="0", TERM="dumb")
    env.update(extra or {})
    return env


def read_only_env(root: Path) -> dict[str, str]:
    """For commands proven read-only: the proof assumes `ls` is the system's ls, so PATH loses
    every entry that is relative or inside the workspace (a planted `./bin/ls` would otherwise
    run), and tools' config files that can name programs to run are not consulted."""
    real = os.path.realpath(root)
    context = tuple(os.environ.items())
    with _LOCK:
        cached = _ENVS.get(real)
    if cached is not None and cached[0] == context and _marks(cached[1]) == cached[2]:
        return dict(cached[3])
    sources = _config_sources(Path(real))
    marks = _marks(sources) if sources is not None else ()
    env = _read_only_env_now(root, real)
    if sources is not None:
        with _LOCK:
            _ENVS[real] = (context, sources, marks, env)
    return dict(env)


def _read_only_env_now(root: Path, real_root: str) -> dict[str, str]:
    entries = [
        p
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if os.path.isabs(p) and not (os.path.realpath(p) + os.sep).startswith(real_root + os.sep)
    ]
    env = hardened_env({"PATH": os.pathsep.join(entries)})
    for name in ("RIPGREP_CONFIG_PATH", "PYTHONSTARTUP", "PYTHONPATH", "LD_PRELOAD"):
        env.pop(name, None)
    return git.hardened_env(root, env)  # the git it runs: hardened, pinned, behind cast's shim


def _marks(paths: tuple[str, ...]) -> tuple[object, ...]:
    found: list[object] = []
    for path in paths:
        try:
            st = os.stat(path)
            link = os.lstat(path)
        except (OSError, ValueError):
            found.append(None)
            continue
        found.append((st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns, link.st_ino))
    return tuple(found)


def _config_sources(root: Path) -> tuple[str, ...] | None:
    """Every file whose change could change what the repository's git config defines; None when
    one cannot be named (git missing, an include cast cannot place)."""
    if not os.path.lexists(os.path.join(root, ".git")):  # no repository: git finds none until one appears
        return (os.path.join(root, ".git"),)
    dirs = _git_output(root, "rev-parse", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir")
    listed = _git_output(root, "config", "--show-origin", "-z", "--get-regexp", _INCLUDES, allow_empty=True)
    if dirs is None or listed is None:
        return None
    git_dir, _, common = dirs.decode("utf-8", "surrogateescape").strip().partition("\n")
    files = [os.path.join(root, ".git"), os.path.join(git_dir, "HEAD")]
    files += [
        os.path.join(where, name) for where in {git_dir, common.strip() or git_dir} for name in ("config", "config.worktree")
    ]
    parts = listed.split(b"\0")
    for origin, entry in zip(parts[0::2], parts[1::2]):
        place = _include_target(root, os.fsdecode(origin), os.fsdecode(entry).partition("\n")[2])
        if place is None:
            return None
        files.append(place)
    return tuple(sorted(set(files)))


def _include_target(root: Path, origin: str, value: str) -> str | None:
    """Where git looks for an included file (relative to the file holding the include, `~` the
    home), or None when cast cannot say."""
    if not origin.startswith("file:") or value.startswith("%(prefix)") or not value:
        return None
    if value.startswith("~"):
        value = os.path.expanduser(value)
        if value.startswith("~"):
            return None
    holder = os.path.join(root, origin[len("file:") :])
    return os.path.normpath(os.path.join(os.path.dirname(holder), value))


def _pinned(root: Path) -> dict[str, str]:
    """The repository pinned as cast's git pins it; the call itself (git.call with no root) adds
    the hardening without the driver overrides, which are what is being kept."""
    real = os.path.realpath(root)
    return {"GIT_DIR": os.path.join(real, ".git"), "GIT_WORK_TREE": real, "GIT_CEILING_DIRECTORIES": os.path.dirname(real)}


def _git_output(root: Path, *args: str, allow_empty: bool = False) -> bytes | None:
    done = git.call(None, *args, cwd=root, env=_pinned(root))
    if done is not None and (done.returncode == 0 or (allow_empty and done.returncode == 1 and not done.stdout)):
        return done.stdout
    return None


@contextmanager
def private_git_index(root: Path, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """Let read-only git commands read a copy of the index. `git diff` refreshes the index's
    stat cache and writes it back even with GIT_OPTIONAL_LOCKS=0; on a copy, that write lands
    outside `.git` (the sandbox shows the copy read-only, so it fails there) and `.git` stays
    byte for byte as it was. The copy is made again only when the user's index changed."""
    index = _index_path(str(root))
    if index is None or not os.path.isfile(index) or not belongs(str(root), index):  # another repository's: not copied
        yield env
        return
    copy = _copy_of(index)
    yield {**env, "GIT_INDEX_FILE": copy} if copy else env


def _copy_of(index: str) -> str | None:
    try:
        st = os.stat(index)
    except OSError:
        return None
    mark = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _LOCK:
        cached = _INDEXES.get(index)
        if cached is not None and cached[0] == mark and os.path.isfile(cached[1]):
            return cached[1]
        if not _COPIES:
            _COPIES.append(tempfile.mkdtemp(prefix="cast-index-"))
            atexit.register(shutil.rmtree, _COPIES[0], True)
        where = os.path.join(_COPIES[0], str(len(_INDEXES)) if cached is None else os.path.basename(os.path.dirname(cached[1])))
        os.makedirs(where, exist_ok=True)
        copy = os.path.join(where, "index")
        try:
            shutil.copy2(index, copy + ".new")  # its mtime too: git's racy-file check compares against it
            os.replace(copy + ".new", copy)  # a command reading the old copy keeps it whole
        except OSError:
            return None
        _INDEXES[index] = (mark, copy)
        return copy


@lru_cache(maxsize=8)
def _index_path(root: str) -> str | None:
    return git.index_path(Path(root))
