"""Which words of each listed command name files it reads: data for the path checks.

Every command on the read-only list (``command_table.RULES``) has an entry, so a new command
cannot slip in without saying which of its words are paths (a test holds the two tables
together). ``operands`` says which operands are paths: all of them, none, or all but the first
(a pattern, script or program), and a few shapes with their own grammar (``find``'s starting
points, ``xxd``'s one input). ``value_paths`` are flags whose value is a file read (``grep -f``);
``short_value``/``long_value`` are the other flags that take a value, so the value is not
taken for an operand (a mistake there only makes a word a path, the safe side). ``recursive``
flags (or ``always_recursive``) make a directory operand read the whole tree beneath it, and
``default`` is the operand such a command reads when none is given. ``pairs`` take two values
(``jq --rawfile NAME FILE``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paths:
    operands: str = "all"  # all | none | after_first | find | first
    first_given_by: frozenset[str] = frozenset()  # flags that supply the first operand's part (grep -e)
    value_paths: frozenset[str] = frozenset()
    short_value: str = ""
    long_value: frozenset[str] = frozenset()
    recursive: frozenset[str] = frozenset()
    always_recursive: bool = False
    default: str | None = None
    pairs: frozenset[str] = frozenset()  # flags taking two values; in value_paths, the second is a file


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


FILES = Paths()
NO_PATHS = Paths(operands="none")
_HEAD = Paths(short_value="nc", long_value=_f("--lines", "--bytes"))
_GREP = Paths(
    operands="after_first",
    first_given_by=_f("-e", "--regexp", "-f", "--file"),
    value_paths=_f("-f", "--file"),
    short_value="efmABCdD",
    long_value=_f("--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context")
    | _f("--directories", "--devices", "--label", "--binary-files", "--color", "--colour"),
    recursive=_f("-r", "-R", "--recursive", "--dereference-recursive", "--directories=recurse"),
    default=".",
)
_SUMS = Paths(value_paths=_f("--files0-from"))

PATHS: dict[str, Paths] = {
    **{name: FILES for name in ("cat", "tac", "rev", "nl", "strings", "stat", "realpath", "readlink", "file")},
    **{name: FILES for name in ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum")},
    **{name: FILES for name in ("b2sum", "cksum", "hexdump", "paste", "expand", "unexpand", "fmt", "comm")},
    **{name: NO_PATHS for name in ("echo", "printf", "tr", "seq", "expr", "basename", "dirname", "which", "type")},
    **{name: NO_PATHS for name in ("pwd", "printenv", "id", "whoami", "uname", "nproc", "true", "false", ":")},
    **{name: NO_PATHS for name in ("numfmt", "locale", "test", "[", "env", "command", "timeout", "nice", "time")},
    "xargs": Paths(operands="none", value_paths=_f("-a", "--arg-file"), short_value="nLPdsaE"),
    "head": _HEAD,
    "tail": _HEAD,
    "wc": _SUMS,
    "du": Paths(value_paths=_f("--files0-from"), short_value="dBt", long_value=_f("--max-depth", "--exclude", "--time-style")),
    "df": FILES,
    "ls": Paths(short_value="IwT", long_value=_f("--ignore", "--hide", "--width", "--tabsize", "--format", "--sort")),
    "cd": FILES,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": Paths(
        operands="after_first",
        first_given_by=_f("-e", "--regexp", "-f", "--file", "--files", "--type-list"),
        value_paths=_f("-f", "--file", "--ignore-file"),
        short_value="efgtTABCmMrjEd",
        long_value=_f("--regexp", "--file", "--glob", "--iglob", "--type", "--type-not", "--max-count", "--threads")
        | _f("--after-context", "--before-context", "--context", "--max-columns", "--encoding", "--max-depth", "--replace"),
        always_recursive=True,
        default=".",
    ),
    "cut": Paths(short_value="bcdf", long_value=_f("--bytes", "--characters", "--delimiter", "--fields")),
    "diff": Paths(
        short_value="CUFIxLX",
        long_value=_f("--context", "--unified", "--label", "--ignore-matching-lines", "--exclude", "--from-file"),
        value_paths=_f("-X", "--exclude-from", "--from-file", "--to-file"),
        recursive=_f("-r", "--recursive"),
    ),
    "cmp": Paths(short_value="in", long_value=_f("--ignore-initial", "--bytes")),
    "jq": Paths(
        operands="after_first",
        first_given_by=_f("-f", "--from-file"),
        value_paths=_f("-f", "--from-file", "-L", "--slurpfile", "--rawfile"),
        short_value="fL",
        long_value=_f("--from-file", "--indent"),
        pairs=_f("--arg", "--argjson", "--slurpfile", "--rawfile"),
    ),
    "od": Paths(short_value="AjNtw", long_value=_f("--address-radix", "--skip-bytes", "--read-bytes", "--format", "--width")),
    "column": Paths(short_value="stcoNRHWEOdl"),
    "fold": Paths(short_value="w", long_value=_f("--width")),
    "join": Paths(short_value="aejot12", long_value=_f("--check-order")),
    "look": Paths(operands="after_first", short_value="t"),
    "sort": Paths(
        value_paths=_f("--files0-from", "--random-source"),
        short_value="kotST",
        long_value=_f("--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory", "--sort"),
    ),
    "uniq": Paths(short_value="fsw", long_value=_f("--skip-fields", "--skip-chars", "--check-chars")),
    "tree": Paths(short_value="LIPo", long_value=_f("--filelimit", "--fromfile"), value_paths=_f("--fromfile")),
    "base64": Paths(short_value="w", long_value=_f("--wrap")),
    "date": Paths(operands="none", value_paths=_f("-f", "--file", "-r", "--reference"), short_value="dfrs"),
    "sed": Paths(
        operands="after_first",
        first_given_by=_f("-e", "--expression", "-f", "--file"),
        value_paths=_f("-f", "--file"),
        short_value="efl",
        long_value=_f("--expression", "--file", "--line-length"),
    ),
    "xxd": Paths(operands="first", short_value="cglosn"),
    "find": Paths(operands="find"),
    **{name: Paths(operands="awk") for name in ("awk", "gawk", "mawk", "nawk")},
    "git": Paths(operands="git"),
    "ps": NO_PATHS,
    "fd": Paths(
        operands="after_first",
        short_value="etEdSjco",
        long_value=_f("--extension", "--type", "--exclude", "--max-depth", "--min-depth", "--exact-depth", "--size")
        | _f("--threads", "--color", "--owner", "--changed-within", "--changed-before", "--max-results", "--format"),
        value_paths=_f("--search-path", "--base-directory", "--ignore-file"),
    ),
    "tar": Paths(operands="tar"),
}

# find's tests whose argument is a file it reads (its metadata, or names from it).
FIND_PATH_TESTS = frozenset({"-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"})
