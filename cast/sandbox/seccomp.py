"""A classic-BPF seccomp filter, built here in Python, that lets a sandboxed command create
sockets only of the families it may use (never AF_UNIX).

Why `socket()` and not `connect()`: a filter sees only the syscall's registers, never the address
a pointer leads to, so the family is the one thing it can read. Refusing `socket(AF_UNIX, ...)`
closes every host unix socket, by path (ssh-agent, docker.sock, D-Bus) and by abstract name,
while `socketpair()` (what asyncio and multiprocessing use for their own pipes) still works.
io_uring is refused too: its IORING_OP_SOCKET would create a socket the filter never sees.
Calls from another architecture's syscall table (i386's `socketcall`, x32) are refused whole.

Standard library only: the launcher imports it in a bare `python -I -S`.
"""

from __future__ import annotations

import ctypes
import os
import struct

TYPE_CHECKING = False  # typing and collections cost the launcher milliseconds it pays per command
if TYPE_CHECKING:
    from collections.abc import Iterable

AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
LOCAL_ONLY = (AF_NETLINK,)  # talks to the kernel only
WITH_INET = (AF_INET, AF_INET6, AF_NETLINK)
EPERM, ENOSYS = 1, 38

# audit arch, socket, io_uring_setup: the numbers differ per architecture
_ARCH: dict[str, tuple[int, int, int]] = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}
_X32_BIT = 0x40000000

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _MODE_FILTER = 38, 22, 2


def supported() -> bool:
    """Asked once per process (the answer cannot change while it runs). An architecture whose numbers we know, on a kernel built with seccomp (else the filter is
    left out and cast.sandbox.policy.isolation() says unix sockets are reachable)."""
    if not _SUPPORTED:
        _SUPPORTED.append(_supported())
    return _SUPPORTED[0]


_SUPPORTED: list[bool] = []


def _supported() -> bool:
    if os.uname().machine not in _ARCH:
        return False
    try:
        with open("/proc/self/status", "rb") as status:
            return b"\nSeccomp:" in status.read()
    except OSError:
        return False


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


_PROGRAMS: dict[tuple[int, ...], bytes] = {}


def program(allowed_families: Iterable[int]) -> bytes:
    """Built once per set of families in a process (cast hands it to bwrap for every command)."""
    key = tuple(sorted(set(allowed_families)))
    if key not in _PROGRAMS:
        _PROGRAMS[key] = _build(key)
    return _PROGRAMS[key]


def _build(allowed_families: Iterable[int]) -> bytes:
    """The filter as bytes (what bwrap's --seccomp reads): `socket(family, ...)` fails with EPERM
    unless the family is allowed (AF_UNIX never is), io_uring_setup with ENOSYS, the rest runs."""
    arch, socket_nr, uring_nr = _ARCH[os.uname().machine]
    families = sorted(set(allowed_families) - {AF_UNIX})
    deny, nosys = _ERRNO | EPERM, _ERRNO | ENOSYS
    body = [
        _op(_LD_W_ABS, 4),  # seccomp_data.arch
        _op(_JEQ_K, arch, 1, 0),
        _op(_RET_K, nosys),
        _op(_LD_W_ABS, 0),  # seccomp_data.nr
        _op(_JGE_K, _X32_BIT, 0, 1),
        _op(_RET_K, nosys),
        _op(_JEQ_K, uring_nr, 0, 1),
        _op(_RET_K, nosys),
        _op(_JEQ_K, socket_nr, 1, 0),
        _op(_RET_K, _ALLOW),
        _op(_LD_W_ABS, 16),  # the low 32 bits of args[0]: the family
    ]
    for family in families:
        body += [_op(_JEQ_K, family, 0, 1), _op(_RET_K, _ALLOW)]
    body.append(_op(_RET_K, deny))
    return b"".join(body)


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(allowed_families: Iterable[int]) -> None:
    """Confine this process and everything it will exec. Raises OSError if the kernel refuses."""
    code = program(allowed_families)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _Fprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(_PR_SET_SECCOMP, _MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter refused")
