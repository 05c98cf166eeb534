"""Where plans live: `.cast/plans/<session>/<name>.md`, with front matter owned by cast.

write_plan is the only write plan mode allows, and its name comes from the model, so it is built
to be unable to write anywhere else: the name is a plain file name, every directory below the
workspace root is entered through a file descriptor opened with O_NOFOLLOW (a symlink anywhere on
the way is refused, even one swapped in after the check), and the file appears atomically.

A read-only checkout still plans: when `.cast/` cannot be written, its plans go to the workspace's
private state dir (cast/state.py) instead, cast says so once, and readers look in both places.
"""

from __future__ import annotations

import difflib
import errno
import json
import os
import re
import secrets
import stat
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path

from cast import git
from cast.fsutil import O_CLOEXEC, ensure_gitignore_at, write_at
from cast.plans.checklist import PlanError, front_matter_lines, parse, validate
from cast.state import announce, existing_workspace_state, workspace_state, workspace_state_path
from cast.text import slugify

PLAN_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
MAX_NAME = 100
MAX_PLAN_BYTES = 1024 * 1024
MAX_PLAN_READ = 4 * MAX_PLAN_BYTES  # larger is no plan cast wrote, and parsing it would take long: never read
_FIELDS = ("task", "session", "created", "base_commit")
_CONTROL = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff"  # never left raw in front matter
# A plain YAML scalar: no leading indicator or space, no trailing space or ':', no control characters.
_PLAIN = re.compile(rf"[^-?:,\[\]{{}}#&*!|>'\"%@`\s{_CONTROL}](?:[^{_CONTROL}]*[^:\s{_CONTROL}])?")
# Plain values YAML would turn into booleans, nulls or numbers.
_TYPED = re.compile(r"true|false|yes|no|on|off|null|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)(e[-+]?\d+)?|0x[0-9a-f]+|\.inf|\.nan", re.I)
_ESCAPE = re.compile(rf'["\\{_CONTROL}]')
_ODD_NAME = re.compile(rf"[{_CONTROL}]")  # a newline or escape in a plan's path would forge lines wherever it is shown
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}


def _writable(directory: Path) -> bool:
    """Really try, and leave no trace: permission bits say nothing to root, and a read-only mount
    or a sandbox says nothing to os.access. Only a refusal to write counts: anything else (`.cast`
    is a file, say) is for write_plan to refuse with its own reason."""
    cast_dir = directory / ".cast"
    if os.path.islink(cast_dir):
        return True  # never probe through it: write_plan refuses a symlinked .cast with its own reason
    try:
        if not os.path.lexists(cast_dir):
            os.mkdir(cast_dir)
            os.rmdir(cast_dir)
            return True
        probe = cast_dir / f".probe-{secrets.token_hex(4)}"
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | O_CLOEXEC, 0o600))
        os.unlink(probe)
        return True
    except OSError as exc:
        return exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM)


@lru_cache(maxsize=64)
def _state_root(root: str) -> Path:
    if _writable(Path(root)):
        return Path(root)
    fallback = workspace_state(Path(root))
    announce(f"{root}/.cast cannot be written; plans of this workspace go to {fallback}/.cast/plans")
    return fallback


def state_root(root: Path) -> Path:
    """The directory whose `.cast/` holds this workspace's plans: the workspace itself, or its
    private state dir (verified) when the checkout cannot be written."""
    return _state_root(str(root))


def roots(root: Path) -> list[Path]:
    """Every place plans of this workspace may be: the checkout, then its private state dir."""
    fallback = existing_workspace_state(root)
    return [root, fallback] if fallback is not None else [root]


def new_session_id(root: Path, task: str, today: date) -> str:
    """`YYYY-MM-DD-<slug>`, suffixed -2, -3 … past any plan or session directory already there."""
    base = f"{today.isoformat()}-{slugify(task)}"
    taken = [where / ".cast" / "plans" for where in roots(root)] + [workspace_state_path(root) / "sessions"]
    candidate, n = base, 1
    while any(os.path.lexists(directory / candidate) for directory in taken):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _scalar(value: str) -> str:
    """The value as a YAML scalar: plain when YAML would read it back as the same string, else
    double-quoted with JSON-compatible escapes (valid YAML too), so any task text round-trips."""
    if _PLAIN.fullmatch(value) and ": " not in value and " #" not in value and not _TYPED.fullmatch(value):
        return value
    return '"' + _ESCAPE.sub(lambda m: _ESCAPES.get(m[0]) or f"\\u{ord(m[0]):04x}", value) + '"'


def _unscalar(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        with suppress(ValueError):
            return str(json.loads(value))
        return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def _utc(created: datetime) -> str:
    aware = created if created.tzinfo else created.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def front_matter(task: str, session: str, created: datetime, base_commit: str | None) -> str:
    values = {"task": task, "session": session, "created": _utc(created), "base_commit": base_commit}
    lines = [f"{key}: {_scalar(values[key] or '')}" for key in _FIELDS if key != "base_commit" or values[key]]
    return "---\n" + "\n".join(lines) + "\n---\n"


def parse_front_matter(text: str) -> dict[str, str]:
    """The `key: value` pairs of the front matter ({} when there is none)."""
    lines = text.split("\n")
    fields: dict[str, str] = {}
    for line in lines[1 : max(front_matter_lines(lines) - 1, 1)]:
        key, sep, value = line.rstrip("\r").partition(":")
        if sep and key.strip():
            fields[key.strip()] = _unscalar(value.strip())
    return fields


def base_commit(root: Path) -> str | None:
    """Short HEAD sha, so a plan records what code it was made against; None outside git."""
    return git.head(root, short=True)


def _file_name(name: object) -> str:
    if not isinstance(name, str) or len(name) > MAX_NAME or not PLAN_NAME.fullmatch(name) or ".." in name:
        raise PlanError(
            f"invalid plan name {name!r}: use a plain file name of lowercase letters, digits, '.', '_' "
            "and '-' that starts with a letter or digit, with no '/' or '..' (for example 'plan')"
        )
    return name if name.endswith(".md") else name + ".md"


def _enter(parent_fd: int, name: str, shown: str) -> int:
    """Open directory `name` below `parent_fd`, creating it; refuse symlinks and non-directories."""
    try:
        info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        with suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=parent_fd)
        info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise PlanError(f"refusing to write the plan: {shown} is a symlink; plans go only into a real directory")
    if not stat.S_ISDIR(info.st_mode):
        raise PlanError(f"refusing to write the plan: {shown} exists and is not a directory")
    try:  # O_NOFOLLOW catches a symlink swapped in after the check above
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | O_CLOEXEC, dir_fd=parent_fd)
    except OSError as exc:
        raise PlanError(f"refusing to write the plan: cannot open {shown} as a directory ({exc.strerror})") from None


def strip_front_matter(body: str) -> str:
    lines = body.split("\n")
    rest = "\n".join(lines[front_matter_lines(lines) :]).lstrip("\r\n")
    return rest if rest.endswith("\n") or not rest else rest + "\n"


def write_plan(
    root: Path,
    session: str,
    name: str,
    body: str,
    *,
    task: str,
    created: datetime,
    base_commit: str | None,
) -> tuple[Path, int]:
    """Write the plan (cast's front matter + the model's body); return its path and item count."""
    file_name = _file_name(name)
    if not PLAN_NAME.fullmatch(session) or ".." in session:
        raise PlanError(f"invalid session id {session!r}")
    validate(strip_front_matter(body))
    text = front_matter(task, session, created, base_commit) + strip_front_matter(body)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PlanError(f"the plan text is not valid Unicode ({exc.reason}); remove the odd character") from None
    if len(data) > MAX_PLAN_BYTES:
        raise PlanError(f"the plan is {len(data)} bytes; keep it under {MAX_PLAN_BYTES} (a plan, not the code)")
    parts = (".cast", "plans", session)
    if os.path.dirname(os.path.normpath(os.path.join(*parts, file_name))) != os.path.join(*parts):
        raise PlanError(f"invalid plan name {name!r}: it must name a file directly in the session directory")
    root = state_root(root)
    try:
        fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | O_CLOEXEC)]
    except OSError as exc:
        raise PlanError(f"cannot open the workspace {root}: {exc.strerror}") from None
    try:
        for depth, part in enumerate(parts):
            fds.append(_enter(fds[-1], part, "/".join(parts[: depth + 1])))
            if part == ".cast":
                ensure_gitignore_at(fds[-1])
        shown = "/".join((*parts, file_name))
        with suppress(FileNotFoundError):
            if not stat.S_ISREG(os.stat(file_name, dir_fd=fds[-1], follow_symlinks=False).st_mode):
                raise PlanError(f"refusing to write the plan: {shown} exists and is not a regular file")
        try:
            write_at(fds[-1], file_name, data)
        except OSError as exc:
            raise PlanError(f"cannot write {shown}: {exc.strerror or exc}") from None
    finally:
        for fd in fds:
            os.close(fd)
    return root / ".cast" / "plans" / session / file_name, len(parse(text))


@dataclass(frozen=True)
class PlanInfo:
    path: Path
    session: str
    task: str
    done: int
    total: int
    created: str
    mtime: float


def _created_ts(created: str, mtime: float) -> float:
    try:
        return datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return mtime  # hand-made plans without front matter sort by when they were written


def _plan_files(directory: Path) -> list[Path]:
    try:
        # a symlink is never a plan: cast writes none, and ticking one would write wherever a clone points it
        return sorted(
            p
            for p in directory.iterdir()
            if p.suffix == ".md"
            and not p.name.startswith(".")
            and not _ODD_NAME.search(p.name)
            and p.is_file()
            and not p.is_symlink()
        )
    except OSError:
        return []


def _sessions(root: Path) -> list[Path]:
    found: list[Path] = []
    for base in roots(root):
        if (base / ".cast").is_symlink() or (base / ".cast" / "plans").is_symlink():
            continue  # a clone's link to plans elsewhere: not this workspace's plans
        try:
            found += (
                d
                for d in (base / ".cast" / "plans").iterdir()
                if d.is_dir() and not d.is_symlink() and not d.name.startswith(".") and not _ODD_NAME.search(d.name)
            )
        except OSError:
            pass
    return sorted(found, key=lambda d: d.name)


def list_plans(root: Path) -> list[PlanInfo]:
    """Every plan with its progress, newest first (front matter `created`, then mtime)."""
    found: list[tuple[float, PlanInfo]] = []
    for session_dir in _sessions(root):
        for path in _plan_files(session_dir):
            try:
                seen = path.stat()
                if seen.st_size > MAX_PLAN_READ:
                    continue
                text, mtime = path.read_bytes().decode("utf-8", "replace"), seen.st_mtime
            except OSError:
                continue
            fields, items = parse_front_matter(text), parse(text)
            created = fields.get("created", "")
            info = PlanInfo(
                path, session_dir.name, fields.get("task", ""), sum(i.checked for i in items), len(items), created, mtime
            )
            found.append((_created_ts(created, mtime), info))
    found.sort(key=lambda pair: (pair[0], pair[1].mtime, str(pair[1].path)), reverse=True)
    return [info for _, info in found]


def _plan_in(directory: Path) -> Path | None:
    files = _plan_files(directory)
    if (directory / "plan.md") in files:
        return directory / "plan.md"
    return max(files, key=lambda p: p.stat().st_mtime, default=None)


def _confined(root: Path, plan: Path) -> Path:
    """A plan named by a path inside the workspace (or its state dir) must really be there: a
    committed symlink on the way would make ticking write to a file outside it. And it must be
    no larger than a plan can be."""
    with suppress(OSError):
        if (size := plan.stat().st_size) > MAX_PLAN_READ:
            raise PlanError(f"{plan} is {size} bytes, larger than any plan ({MAX_PLAN_READ >> 20} MB): not reading it")
    for base in roots(root):
        if Path(os.path.normpath(plan)).is_relative_to(base) and not Path(os.path.realpath(plan)).is_relative_to(
            os.path.realpath(base)
        ):
            raise PlanError(
                f"{plan} leads outside the workspace through a symlink ({os.path.realpath(plan)}); "
                "cast ticks plans only where they are: name the file itself"
            )
    return plan


def find_plan(root: Path, ref: str | None) -> Path:
    """The plan `cast execute` should run: by file path, by session id, or the newest unfinished."""
    return _confined(root.absolute(), _find_plan(root, ref))


def _find_plan(root: Path, ref: str | None) -> Path:
    if ref is None:
        for info in list_plans(root):
            if info.done < info.total:
                return info.path
        raise PlanError("no plan with unticked items; run cast plan first")
    given = Path(ref).expanduser()
    if given.is_file():
        return given.absolute()
    sessions = {d.name: d for d in _sessions(root)}
    # `cast sessions` lists the runs that executed a plan as `<plan session>-exec[-N]`: their plan is that session's
    planned = re.sub(r"(?:-exec(?:-\d+)?)+$", "", ref.strip("/"))
    directory = sessions.get(ref.strip("/")) or sessions.get(planned) or (given if given.is_dir() else None)
    if directory is not None and directory.resolve() not in {d.resolve() for d in sessions.values()}:
        if not (directory / "plan.md").is_file():  # `cast execute .` must not run README.md's checklist
            raise PlanError(f"{ref!r} is not a plan session directory and has no plan.md: name the plan file or session id")
    if directory is not None:
        plan = _plan_in(directory)
        if plan is None:
            raise PlanError(f"session {ref} has no plan file (.md) in {directory}")
        return plan.absolute()
    if not sessions:
        raise PlanError(f"no plan file or session {ref!r}, and there are no plans yet; run cast plan first")
    close = difflib.get_close_matches(ref, list(sessions), n=5, cutoff=0.4)
    close += [s for s in sorted(sessions, reverse=True) if ref in s and s not in close][: 5 - len(close)]
    hint = f"; did you mean: {', '.join(close)}?" if close else f"; sessions: {', '.join(sorted(sessions)[-5:])}"
    raise PlanError(f"no plan file or session {ref!r}{hint} (cast plans lists them all)")
