"""Landlock through ctypes: a process confines itself and everything it will exec.

Standard library only, because the launcher imports it in a bare `python -I -S`. The rights that
change things are handled (writes, removals, creations, truncation, TCP, and from ABI 6 on,
abstract unix sockets and signals across the boundary); given `readable`, reading and executing
are handled too and allowed only beneath those trees (cast/sandbox/visible.py), which is how the
user's home stays out of sight. Handling a right and granting it nowhere denies it everywhere.
"""

from __future__ import annotations

import ctypes
import os
import struct

TYPE_CHECKING = False  # typing and collections cost the launcher milliseconds it pays per command
if TYPE_CHECKING:
    from collections.abc import Sequence

_CREATE, _ADD_RULE, _RESTRICT = 444, 445, 446  # the same numbers on every architecture Landlock has
_VERSION_FLAG = 1
_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, READ_FILE, READ_DIR = 1 << 0, 1 << 2, 1 << 3
READS = EXECUTE | READ_FILE | READ_DIR
WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
ALL_WRITES = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE | REFER | TRUNCATE
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class LandlockError(OSError):
    pass


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, f"landlock syscall {number}: {os.strerror(err)}")
    return int(result)


def abi_version() -> int:
    """0 when the kernel has no Landlock (or it is disabled at boot)."""
    try:
        return _syscall(_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION_FLAG))
    except (LandlockError, OSError):
        return 0


def _handled_fs(abi: int) -> int:
    rights = ALL_WRITES
    if abi < 2:
        rights &= ~REFER
    if abi < 3:
        rights &= ~TRUNCATE
    return rights


def restrict(
    writable: Sequence[str], allow_network: bool = False, files: Sequence[str] = (), readable: Sequence[str] | None = None
) -> int:
    """Confine this process: write only beneath `writable` (and into the single `files`, such as
    /dev/null); read only beneath `readable` and `writable` when `readable` is given; no TCP unless
    allowed; from ABI 6, no abstract unix sockets or signals reaching outside. Returns the ABI
    used. Raises LandlockError when the kernel has none."""
    abi = abi_version()
    if abi < 1:
        raise LandlockError(0, "Landlock is not available on this kernel")
    writes = _handled_fs(abi)
    reads = READS if readable is not None else 0
    fs = writes | reads
    net = 0 if allow_network or abi < 4 else NET_BIND_TCP | NET_CONNECT_TCP
    scoped = SCOPE_SIGNAL | (0 if allow_network else SCOPE_ABSTRACT_UNIX) if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs, net, scoped)[: 24 if abi >= 6 else 16 if abi >= 4 else 8]
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        rules: dict[str, int] = {}
        for path, rights in [
            *((p, reads) for p in readable or ()),
            *((p, fs) for p in writable),
            *((f, WRITE_FILE | (TRUNCATE & fs) | (READ_FILE & reads)) for f in files),
        ]:
            rules[path] = rules.get(path, 0) | rights
        for path, rights in rules.items():
            _add_path(ruleset, path, rights)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        _syscall(_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi


def _add_path(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist cannot be written through anyway
    try:
        if not os.path.isdir(path):  # files take only file rights
            rights &= WRITE_FILE | TRUNCATE | READ_FILE | EXECUTE
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_PATH_BENEATH), rule, ctypes.c_uint32(0))
    finally:
        os.close(fd)
