"""Writing files so that a crash or a hostile tree cannot leave them half-written or elsewhere.

One atomic writer for every file cast owns (plans, session metadata, edits): temp file in the same
directory, fsync, rename, fsync the directory. The directory-descriptor form is what plan mode
uses, so a symlink swapped in along the way can never redirect a write.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
CAST_IGNORES = ("checkpoints/",)  # snapshots are private; plans are not (sessions and history live in cast/state.py's dir)


class NotRegularFile(OSError):
    """What `read_regular` raises for a symlink, device, FIFO, socket or directory."""


def read_regular(path: Path | str, limit: int | None = None, dir_fd: int | None = None) -> bytes:
    """The bytes of a regular file, without following a symlink at `path` itself, never blocking
    on a FIFO, and reading at most `limit + 1` bytes (so a caller can tell "exactly the cap" from
    "more"): /dev/zero, /proc files and pipes cannot make cast hang or fill its memory."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | O_CLOEXEC
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFile(errno.ELOOP, "is a symlink", str(path)) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        want = info.st_size + 1 if limit is None else limit + 1
        chunks, got = [], 0
        while got < want:
            chunk = os.read(fd, min(want - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if limit is None:
                want = got + (1 << 20)  # the file grew while read: keep reading to its end
        return b"".join(chunks)
    finally:
        os.close(fd)


SETTINGS_LIMIT = 1 << 20


def read_settings(path: Path, repository: bool) -> str:
    """A settings file's text. A repository's is data (a clone carries it): never read through a
    symlink, never past 1 MB, so it cannot make cast read a file elsewhere, or without end."""
    data = read_regular(path, SETTINGS_LIMIT) if repository else Path(path).read_bytes()
    if len(data) > SETTINGS_LIMIT:
        raise OSError(errno.EFBIG, "larger than 1 MB, so not a settings file", str(path))
    return data.decode("utf-8")  # not UTF-8: UnicodeDecodeError, for the caller to name the file


def write_at(dir_fd: int, name: str, data: bytes, durable: bool = True) -> None:
    """Write `name` in the directory `dir_fd` atomically: a reader sees the old file or the new
    one, never half of either, and a crash leaves at most a hidden temp file (removed on error).
    `durable=False` skips the fsyncs: still atomic for readers and a killed process, for files
    rewritten every step where waiting for the disk would cost more than a lost update."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(name, dir_fd=dir_fd).st_mode)
    except FileNotFoundError:
        mode = None
    tmp = f".{name}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | O_CLOEXEC
    fd = os.open(tmp, flags, 0o666 if mode is None else 0o600, dir_fd=dir_fd)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # keep the user's permissions on the file being replaced
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    if durable:
        with suppress(OSError):  # some file systems refuse fsync on a directory
            os.fsync(dir_fd)


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Replace `path` atomically (temp file in the same directory, fsync, rename, fsync the
    directory). A symlink at `path` is kept and the file it points to is replaced."""
    target = Path(os.path.realpath(path))
    dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | O_CLOEXEC)
    try:
        write_at(dir_fd, target.name, data, durable)
    finally:
        os.close(dir_fd)


def ensure_gitignore_at(cast_fd: int) -> None:
    """`.cast/.gitignore` (in the directory `cast_fd`) ignores what is private. A missing line is
    appended; nothing else in the file changes; a symlink in its place is left alone."""
    try:
        fd = os.open(".gitignore", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | O_CLOEXEC, 0o666, dir_fd=cast_fd)
    except OSError:
        return
    try:
        text = os.read(fd, 1 << 16).decode("utf-8", "replace")
        present = {line.strip().lstrip("/") for line in text.splitlines()}
        missing = [entry for entry in CAST_IGNORES if entry not in present and entry.rstrip("/") not in present]
        if missing:
            os.lseek(fd, 0, os.SEEK_END)
            os.write(fd, (("" if not text or text.endswith("\n") else "\n") + "\n".join(missing) + "\n").encode())
    finally:
        os.close(fd)


def ensure_gitignore(root: Path) -> None:
    """The same, for `<root>/.cast`, created if needed; a `.cast` that is a symlink is not followed."""
    cast_dir = Path(root) / ".cast"
    with suppress(FileExistsError):
        cast_dir.mkdir(parents=True)
    try:
        fd = os.open(cast_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | O_CLOEXEC)
    except OSError:
        return
    try:
        ensure_gitignore_at(fd)
    finally:
        os.close(fd)
