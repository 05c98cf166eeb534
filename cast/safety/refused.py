"""Well-known programs that are never read-only, each with the reason a refusal gives, so the
model (and the user) reads why rather than "not on the list". Refusal does not depend on this
table: anything absent from ``RULES`` is refused anyway.
"""

from __future__ import annotations

_WRITES = "writes files"
_INTERPRETER = "interpreters can run arbitrary code"
_SHELL = "shells run arbitrary commands"
_STATE = "changes shell state"
_EVAL = "runs its arguments as shell code"
_PRIV = "runs commands as another user or through a shell"

_PIP = "asks rustc and other tools for versions (rustup runs what the tree names) and writes its cache"

REFUSED: dict[str, str] = {
    "pip": _PIP,
    "pip3": _PIP,
    "cargo": "runs build scripts, and rustup may run a toolchain from the workspace",
    "rustc": "compiles code, and rustup may run a toolchain from the workspace",
    "rustup": "may install or run toolchains",
    **{
        n: _INTERPRETER
        for n in (
            "python",
            "python2",
            "python3",
            "pypy",
            "pypy3",
            "node",
            "nodejs",
            "deno",
            "bun",
            "perl",
            "ruby",
            "php",
            "lua",
            "luajit",
            "tclsh",
            "wish",
            "Rscript",
            "R",
            "julia",
            "osascript",
            "java",
            "jshell",
            "scala",
            "groovy",
            "irb",
            "ts-node",
            "tsx",
            "npx",
            "pwsh",
            "powershell",
        )
    },
    **{n: _SHELL for n in ("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "ash", "rbash")},
    **{n: _EVAL for n in ("eval", "source", ".", "exec", "trap", "coproc", "builtin", "enable")},
    **{
        n: _STATE
        for n in (
            "declare",
            "typeset",
            "local",
            "export",
            "readonly",
            "let",
            "read",
            "mapfile",
            "readarray",
            "alias",
            "unalias",
            "unset",
            "set",
            "shopt",
            "ulimit",
            "umask",
            "hash",
            "pushd",
            "popd",
            "dirs",
            "shift",
            "getopts",
            "exit",
            "return",
            "break",
            "continue",
            "wait",
            "kill",
            "disown",
            "fg",
            "bg",
            "jobs",
            "suspend",
            "logout",
        )
    },
    **{
        n: _PRIV
        for n in (
            "sudo",
            "doas",
            "su",
            "runuser",
            "pkexec",
            "chroot",
            "setsid",
            "unshare",
            "nsenter",
            "flock",
            "script",
            "strace",
            "ltrace",
            "gdb",
        )
    },
    "watch": "runs its command through a shell repeatedly",
    "parallel": "runs its command through a shell",
    "nohup": "may write nohup.out",
    "stdbuf": "wraps commands with a preloaded library",
    "tee": _WRITES,
    "dd": _WRITES,
    "truncate": _WRITES,
    "touch": _WRITES,
    "rm": "deletes files",
    "rmdir": "deletes directories",
    "mv": "moves files",
    "cp": "copies files",
    "ln": "creates links",
    "mkdir": "creates directories",
    "chmod": "changes permissions",
    "chown": "changes ownership",
    "install": _WRITES,
    "patch": _WRITES,
    "make": "runs build recipes",
    "curl": "network access and can write files",
    "wget": "network access and writes files",
    "less": "pagers can run commands",
    "more": "pagers can run commands",
    "vi": "editors can write files",
    "vim": "editors can write files",
    "nano": "editors can write files",
    "emacs": "editors can write files",
}
