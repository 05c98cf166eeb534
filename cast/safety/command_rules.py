"""The read-only command table and the checks that need more than a table.

``RULES`` is the allowlist: a command absent from it is refused. Most entries
are plain data (forbidden flags, flags taking values, operand limits); the
few commands whose danger lives in their operands or scripts name a
validator. ``REFUSED`` gives specific reasons for well-known commands that
are never read-only, so a refusal says why rather than just "unknown".

Wrappers (``timeout``, ``nice``, ``env``, ``command``, ``time``) run their
operands as a command, which is checked exactly as if written directly.
``xargs`` appends arguments no one can see in advance, so the command it
runs must be safe with any arguments at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from types import MappingProxyType

from cast.safety.blocked import Blocked
from cast.safety.git_rules import check_git
from cast.safety.operand_checks import (
    check_awk,
    check_date,
    check_find,
    check_sed,
    check_test,
    check_xxd,
)
from cast.safety.options import Rule, check_operands, parse_options
from cast.safety.words import Word

_WRITES = "writes files"


def _flags(mapping: dict[str, str]) -> Mapping[str, str]:
    return MappingProxyType(mapping)


FREE = Rule()

RULES: dict[str, Rule] = {
    # Listing and reading files: no flag of these writes or executes.
    **{
        name: FREE
        for name in (
            "ls",
            "cat",
            "head",
            "tail",
            "wc",
            "grep",
            "egrep",
            "fgrep",
            "cut",
            "tr",
            "diff",
            "cmp",
            "comm",
            "stat",
            "du",
            "df",
            "which",
            "type",
            "echo",
            "pwd",
            "basename",
            "dirname",
            "realpath",
            "readlink",
            "printenv",
            "id",
            "whoami",
            "uname",
            "nproc",
            "jq",
            "od",
            "hexdump",
            "strings",
            "md5sum",
            "sha1sum",
            "sha224sum",
            "sha256sum",
            "sha384sum",
            "sha512sum",
            "b2sum",
            "cksum",
            "nl",
            "column",
            "tac",
            "rev",
            "seq",
            "true",
            "false",
            "cd",
            ":",
            "numfmt",
            "expr",
            "locale",
            "paste",
            "fold",
            "fmt",
            "expand",
            "unexpand",
            "join",
            "look",
        )
    },
    "rg": Rule(
        forbidden=_flags(
            {
                "--pre": "runs a preprocessor program on every file",
                "--pre-glob": "selects files for the --pre program",
                "-z": "runs decompression programs",
                "--search-zip": "runs decompression programs",
                "--hostname-bin": "runs a program",
            }
        ),
        short_value="efgtTABCmMrjEd",
        long_value=frozenset(
            {
                "--regexp",
                "--file",
                "--glob",
                "--iglob",
                "--type",
                "--type-not",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--max-columns",
                "--threads",
                "--encoding",
                "--max-depth",
                "--replace",
            }
        ),
        abbreviations=False,
    ),
    "sort": Rule(
        forbidden=_flags(
            {
                "-o": _WRITES,
                "--output": _WRITES,
                "--compress-program": "runs a compression program",
                "-T": "writes temporary files into a directory",
                "--temporary-directory": "writes temporary files into a directory",
            }
        ),
        short_value="kotST",
        long_value=frozenset(
            {
                "--key",
                "--output",
                "--field-separator",
                "--buffer-size",
                "--temporary-directory",
                "--files0-from",
                "--random-source",
                "--sort",
                "--parallel",
                "--batch-size",
                "--compress-program",
            }
        ),
    ),
    "uniq": Rule(
        short_value="fsw",
        long_value=frozenset({"--skip-fields", "--skip-chars", "--check-chars"}),
        max_positionals=1,
    ),
    "file": Rule(
        forbidden=_flags({"-C": "compiles a magic file (writes it)", "--compile": "compiles a magic file (writes it)"}),
        short_value="mfFeP",
        long_value=frozenset({"--magic-file", "--files-from", "--separator", "--exclude", "--parameter"}),
    ),
    "tree": Rule(
        forbidden=_flags({"-o": _WRITES, "--output": _WRITES, "-R": "writes 00Tree.html files"}),
        abbreviations=False,
        double_dash=False,
    ),
    "base64": Rule(
        forbidden=_flags({"-o": _WRITES, "--output": _WRITES}),
        short_value="w",
        long_value=frozenset({"--wrap"}),
    ),
    "printf": Rule(
        forbidden=_flags({"-v": "assigns a shell variable"}),
        permute=False,
    ),
    "date": Rule(
        forbidden=_flags({"-s": "sets the system clock", "--set": "sets the system clock"}),
        short_value="dfrs",
        short_optional="I",
        long_value=frozenset({"--date", "--file", "--reference", "--set"}),
        validator="date",
    ),
    "sed": Rule(
        forbidden=_flags(
            {
                "-i": "edits files in place",
                "--in-place": "edits files in place",
                "-f": "reads a script file that cannot be checked",
                "--file": "reads a script file that cannot be checked",
            }
        ),
        short_value="efl",
        long_value=frozenset({"--expression", "--file", "--line-length"}),
        validator="sed",
    ),
    "xxd": Rule(validator="xxd"),
    "find": Rule(validator="find"),
    "awk": Rule(validator="awk"),
    "gawk": Rule(validator="awk"),
    "mawk": Rule(validator="awk"),
    "nawk": Rule(validator="awk"),
    "git": Rule(validator="git"),
    "test": Rule(validator="test"),
    "[": Rule(validator="test"),
    "env": Rule(validator="env"),
    "command": Rule(validator="command"),
    "timeout": Rule(validator="timeout"),
    "nice": Rule(validator="nice"),
    "time": Rule(validator="time"),
    "xargs": Rule(validator="xargs"),
}

# Interpreters and tools that only answer read-only for exactly these argvs.
# cargo/rustc are left out: rustup's proxies obey a rust-toolchain.toml in the
# workspace, whose ``path`` can name a toolchain inside the workspace to run.
VERSION_PROBES: dict[str, frozenset[tuple[str, ...]]] = {
    **{
        name: frozenset({("--version",), ("-V",)})
        for name in (
            "python",
            "python3",
            *(f"python3.{minor}" for minor in range(6, 15)),
        )
    },
    "node": frozenset({("--version",), ("-v",)}),
    "go": frozenset({("version",)}),
    "ruby": frozenset({("--version",)}),
    "perl": frozenset({("--version",), ("-v",)}),
    "java": frozenset({("-version",), ("--version",)}),
    "javac": frozenset({("-version",), ("--version",)}),
    "gcc": frozenset({("--version",)}),
    "clang": frozenset({("--version",)}),
    "make": frozenset({("--version",)}),
    "cmake": frozenset({("--version",)}),
    "deno": frozenset({("--version",)}),
    "php": frozenset({("--version",), ("-v",)}),
    "lua": frozenset({("-v",)}),
}

# Commands that read configuration from the tree, or run a program the tree
# picks: git (hooks, filters, fsmonitor, textconv in .git/config) and the
# version probes (pyenv, rbenv, asdf and GOTOOLCHAIN choose the binary from
# files such as .python-version, .tool-versions or go.mod). Under a kernel
# sandbox they are harmless; the strict subset, used without one, refuses them.
_TREE_PICKS = "a version manager may pick the program to run from files in the tree"
READS_TREE_CONFIG: dict[str, str] = {
    "git": "runs with the repository's own configuration (hooks, filters, fsmonitor, textconv)",
    **{name: _TREE_PICKS for name in VERSION_PROBES},
}
STRICT: ContextVar[bool] = ContextVar("cast_checker_strict", default=False)
_STRICT_NOTE = "refused in the strict subset (no kernel sandbox under the checker)"

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

Validator = Callable[[str, Rule, list[Word]], None]


def check_argv(words: list[Word]) -> None:
    """Refuse unless the command named by ``words[0]`` only reads."""
    if not words:
        raise Blocked("empty command")
    name_word = words[0]
    if not name_word.static:
        raise Blocked(f"command name {name_word.source!r} is expanded at run time")
    name = name_word.value
    if not name:
        raise Blocked("empty command name")
    if "/" in name:
        raise Blocked(f"path-qualified command {name!r} is not allowed (only known commands by name)")
    if STRICT.get() and name in READS_TREE_CONFIG:
        raise Blocked(f"{name}: {READS_TREE_CONFIG[name]}; {_STRICT_NOTE}")
    args = words[1:]
    probes = VERSION_PROBES.get(name)
    if probes is not None and all(w.static for w in args):
        if tuple(w.value for w in args) in probes:
            return
    rule = RULES.get(name)
    if rule is None:
        why = REFUSED.get(name)
        if why is not None:
            raise Blocked(f"{name}: {why}")
        raise Blocked(f"{name}: not on the read-only command list")
    if rule.validator is not None:
        VALIDATORS[rule.validator](name, rule, args)
        return
    if rule.any_args:
        return
    check_operands(name, rule, parse_options(name, args, rule))


def safe_with_any_args(name: str) -> bool:
    rule = RULES.get(name)
    return rule is not None and rule.any_args


# --- wrappers ----------------------------------------------------------------


def _inner(name: str, args: list[Word], start: int) -> None:
    if start >= len(args):
        raise Blocked(f"{name}: no command to run")
    try:
        check_argv(args[start:])
    except Blocked as blocked:
        raise Blocked(f"{name}: {blocked.reason}") from None


def _env(name: str, rule: Rule, args: list[Word]) -> None:
    if not args:
        return
    first = args[0]
    if not first.static or first.value.startswith("-") or "=" in first.value:
        raise Blocked(f"env: {first.source!r} changes the environment of the command it runs")
    _inner(name, args, 0)


def _command(name: str, rule: Rule, args: list[Word]) -> None:
    if args and args[0].static and args[0].value in ("-v", "-V"):
        return
    if args and args[0].static and args[0].value.startswith("-"):
        why = "searches a default PATH, past the one cast prepares" if "p" in args[0].value else "is not allowed"
        raise Blocked(f"command: option {args[0].value} {why}")
    _inner(name, args, 0)


_TIMEOUT = Rule(
    allowed_short="ksv",
    allowed_long=frozenset({"--kill-after", "--signal", "--foreground", "--preserve-status", "--verbose"}),
    short_value="ks",
    long_value=frozenset({"--kill-after", "--signal"}),
    permute=False,
)
_NICE = Rule(
    allowed_short="n",
    allowed_long=frozenset({"--adjustment"}),
    short_value="n",
    long_value=frozenset({"--adjustment"}),
    permute=False,
)
_TIME = Rule(allowed_short="p", allowed_long=frozenset(), permute=False)
_XARGS = Rule(
    allowed_short="0rtxnLPdsaE",
    allowed_long=frozenset(
        {
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--max-args",
            "--max-lines",
            "--max-procs",
            "--delimiter",
            "--max-chars",
            "--arg-file",
        }
    ),
    short_value="nLPdsaE",
    long_value=frozenset({"--max-args", "--max-lines", "--max-procs", "--delimiter", "--max-chars", "--arg-file"}),
    permute=False,
)


def _wrapper(own: Rule, operands_before_command: int) -> Validator:
    def check(name: str, rule: Rule, args: list[Word]) -> None:
        parsed = parse_options(name, args, own, stop_at_operand=True)
        start = parsed.first_positional
        if start is None:
            if name == "time" and not args:
                return
            raise Blocked(f"{name}: no command to run")
        for k in range(operands_before_command):
            if start + k >= len(args) or not args[start + k].fixed:
                raise Blocked(f"{name}: expected a fixed duration before the command")
        _inner(name, args, start + operands_before_command)

    return check


def _xargs(name: str, rule: Rule, args: list[Word]) -> None:
    parsed = parse_options(name, args, _XARGS, stop_at_operand=True)
    start = parsed.first_positional
    if start is None:
        return  # runs echo
    inner = args[start]
    if not inner.static or not safe_with_any_args(inner.value):
        raise Blocked(f"xargs: {inner.source!r} must be safe with any arguments (xargs appends input words)")
    check_argv(args[start:])


VALIDATORS: dict[str, Validator] = {
    "date": check_date,
    "sed": check_sed,
    "awk": check_awk,
    "xxd": check_xxd,
    "find": check_find,
    "git": lambda name, rule, args: check_git(args),
    "test": check_test,
    "env": _env,
    "command": _command,
    "timeout": _wrapper(_TIMEOUT, 1),
    "nice": _wrapper(_NICE, 0),
    "time": _wrapper(_TIME, 0),
    "xargs": _xargs,
}
