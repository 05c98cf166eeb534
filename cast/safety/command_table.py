"""The read-only command table: every program plan mode may run, with the flags it refuses, the
flags that take values and its operand limits (``Rule``), the exact version probes allowed for
interpreters, and the programs that read configuration from the tree. Data only; the walk over
it is ``command_rules.check_argv``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from cast.safety.options import Rule

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
            "ps",
        )
    },
    "fd": Rule(
        forbidden=_flags(
            {
                "-x": "runs a command for every match",
                "--exec": "runs a command for every match",
                "-X": "runs a command with the matches",
                "--exec-batch": "runs a command with the matches",
            }
        ),
        short_value="etEdSjco",
        long_value=frozenset(
            {
                "--extension",
                "--type",
                "--exclude",
                "--max-depth",
                "--min-depth",
                "--exact-depth",
                "--size",
                "--threads",
                "--color",
                "--owner",
                "--changed-within",
                "--changed-before",
                "--max-results",
                "--search-path",
                "--base-directory",
                "--ignore-file",
                "--path-separator",
                "--format",
            }
        ),
        abbreviations=False,
    ),
    "tar": Rule(validator="tar"),
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

# Programs on the list (or plain tools) whose exact `--version` or `--help` only prints: an awk
# asks for a program otherwise, and these never pick a binary from the tree.
PRINTS_ITS_VERSION = frozenset({"awk", "gawk", "mawk", "nawk", "sed", "find", "xxd", "date", "tar", "fd", "ps", "jq"})
# Interpreters whose syntax check reads one file and runs none of it: `node --check app.js`.
SYNTAX_CHECKS: dict[str, frozenset[str]] = {"node": frozenset({"--check", "-c"})}

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
