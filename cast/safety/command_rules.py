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

import re
from types import MappingProxyType
from typing import Callable, Mapping

from cast.safety.blocked import Blocked
from cast.safety.git_rules import check_git
from cast.safety.options import Rule, check_operands, parse_options
from cast.safety.scripts import check_awk_program, check_sed_script
from cast.safety.words import Word

_WRITES = "writes files"
_RUNS = "runs other programs"


def _why(**flags: str) -> Mapping[str, str]:
    return MappingProxyType(flags)


def _flags(mapping: dict[str, str]) -> Mapping[str, str]:
    return MappingProxyType(mapping)


FREE = Rule()

RULES: dict[str, Rule] = {
    # Listing and reading files: no flag of these writes or executes.
    **{name: FREE for name in (
        "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "cut", "tr",
        "diff", "cmp", "comm", "stat", "du", "df", "which", "type", "echo", "pwd",
        "basename", "dirname", "realpath", "readlink", "printenv", "id", "whoami",
        "uname", "nproc", "jq", "od", "hexdump", "strings", "md5sum", "sha1sum",
        "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "nl",
        "column", "tac", "rev", "seq", "true", "false", "cd", ":", "numfmt", "expr",
        "locale", "paste", "fold", "fmt", "expand", "unexpand", "join", "look",
    )},
    "rg": Rule(
        forbidden=_flags({
            "--pre": "runs a preprocessor program on every file",
            "--pre-glob": "selects files for the --pre program",
            "-z": "runs decompression programs",
            "--search-zip": "runs decompression programs",
            "--hostname-bin": "runs a program",
        }),
        short_value="efgtTABCmMrjEd",
        long_value=frozenset({
            "--regexp", "--file", "--glob", "--iglob", "--type", "--type-not",
            "--after-context", "--before-context", "--context", "--max-count",
            "--max-columns", "--threads", "--encoding", "--max-depth", "--replace",
        }),
        abbreviations=False,
    ),
    "sort": Rule(
        forbidden=_flags({
            "-o": _WRITES,
            "--output": _WRITES,
            "--compress-program": "runs a compression program",
            "-T": "writes temporary files into a directory",
            "--temporary-directory": "writes temporary files into a directory",
        }),
        short_value="kotST",
        long_value=frozenset({
            "--key", "--output", "--field-separator", "--buffer-size",
            "--temporary-directory", "--files0-from", "--random-source", "--sort",
            "--parallel", "--batch-size", "--compress-program",
        }),
    ),
    "uniq": Rule(
        short_value="fsw",
        long_value=frozenset({"--skip-fields", "--skip-chars", "--check-chars"}),
        max_positionals=1,
    ),
    "file": Rule(
        forbidden=_why(**{"-C": "compiles a magic file (writes it)", "--compile": "compiles a magic file (writes it)"}),
        short_value="mfFeP",
        long_value=frozenset({"--magic-file", "--files-from", "--separator", "--exclude", "--parameter"}),
    ),
    "tree": Rule(
        forbidden=_why(**{"-o": _WRITES, "--output": _WRITES, "-R": "writes 00Tree.html files"}),
        abbreviations=False,
        double_dash=False,
    ),
    "base64": Rule(
        forbidden=_why(**{"-o": _WRITES, "--output": _WRITES}),
        short_value="w",
        long_value=frozenset({"--wrap"}),
    ),
    "printf": Rule(
        forbidden=_why(**{"-v": "assigns a shell variable"}),
        permute=False,
    ),
    "date": Rule(
        forbidden=_why(**{"-s": "sets the system clock", "--set": "sets the system clock"}),
        short_value="dfrs",
        short_optional="I",
        long_value=frozenset({"--date", "--file", "--reference", "--set"}),
        validator="date",
    ),
    "sed": Rule(
        forbidden=_flags({
            "-i": "edits files in place",
            "--in-place": "edits files in place",
            "-f": "reads a script file that cannot be checked",
            "--file": "reads a script file that cannot be checked",
        }),
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
    "pip": Rule(validator="pip"),
    "pip3": Rule(validator="pip"),
}

# Interpreters and tools that only answer read-only for exactly these argvs.
# cargo/rustc are left out: rustup's proxies obey a rust-toolchain.toml in the
# workspace, whose ``path`` can name a toolchain inside the workspace to run.
VERSION_PROBES: dict[str, frozenset[tuple[str, ...]]] = {
    **{name: frozenset({("--version",), ("-V",)}) for name in (
        "python", "python3", *(f"python3.{minor}" for minor in range(6, 15)),
    )},
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

_INTERPRETER = "interpreters can run arbitrary code"
_SHELL = "shells run arbitrary commands"
_STATE = "changes shell state"
_EVAL = "runs its arguments as shell code"
_PRIV = "runs commands as another user or through a shell"

REFUSED: dict[str, str] = {
    "cargo": "runs build scripts, and rustup may run a toolchain from the workspace",
    "rustc": "compiles code, and rustup may run a toolchain from the workspace",
    "rustup": "may install or run toolchains",
    **{n: _INTERPRETER for n in (
        "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun",
        "perl", "ruby", "php", "lua", "luajit", "tclsh", "wish", "Rscript", "R", "julia",
        "osascript", "java", "jshell", "scala", "groovy", "irb", "ts-node", "tsx", "npx",
        "pwsh", "powershell",
    )},
    **{n: _SHELL for n in ("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "ash", "rbash")},
    **{n: _EVAL for n in ("eval", "source", ".", "exec", "trap", "coproc", "builtin", "enable")},
    **{n: _STATE for n in (
        "declare", "typeset", "local", "export", "readonly", "let", "read", "mapfile",
        "readarray", "alias", "unalias", "unset", "set", "shopt", "ulimit", "umask", "hash",
        "pushd", "popd", "dirs", "shift", "getopts", "exit", "return", "break", "continue",
        "wait", "kill", "disown", "fg", "bg", "jobs", "suspend", "logout",
    )},
    **{n: _PRIV for n in ("sudo", "doas", "su", "runuser", "pkexec", "chroot", "setsid",
                          "unshare", "nsenter", "flock", "script", "strace", "ltrace", "gdb")},
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


# --- validators -------------------------------------------------------------


def _date(name: str, rule: Rule, args: list[Word]) -> None:
    parsed = parse_options(name, args, rule)
    if len(parsed.positionals) > 1 or any(not w.fixed for w in parsed.positionals):
        raise Blocked("date: only one +FORMAT operand is allowed")
    for w in parsed.positionals:
        if not w.prefix.startswith("+"):
            raise Blocked(f"date: operand {w.source!r} would set the clock (only +FORMAT is allowed)")


def _sed(name: str, rule: Rule, args: list[Word]) -> None:
    for w in args:
        flag = w.prefix.partition("=")[0]
        if len(flag) >= 3 and flag != "--expression" and "--expression".startswith(flag):
            raise Blocked(f"sed: abbreviated option {flag} (spell out --expression or use -e)")
    parsed = parse_options(name, args, rule)
    scripts = parsed.values_of("-e", "--expression")
    if not scripts:
        if not parsed.positionals:
            raise Blocked("sed: no script")
        scripts = [parsed.positionals[0]]
    for script in scripts:
        if not script.static:
            raise Blocked(f"sed: script {script.source} is expanded at run time")
    # GNU sed joins -e pieces with newlines before parsing; check what it parses.
    check_sed_script("\n".join(script.value for script in scripts))


def _awk(name: str, rule: Rule, args: list[Word]) -> None:
    i, n = 0, len(args)
    program: Word | None = None
    while i < n:
        word = args[i]
        if not word.static:
            raise Blocked(f"{name}: argument {word.source} before the program is expanded at run time")
        value = word.value
        i += 1
        if value == "--":
            break
        if value in ("-F", "-v"):
            if i >= n or args[i].splits:
                raise Blocked(f"{name}: {value} needs one fixed value")
            i += 1
            continue
        if value.startswith(("-F", "-v")):
            continue
        if value.startswith("-") and value != "-":
            raise Blocked(f"{name}: option {value} is not allowed (only -F, -v)")
        program = word
        break
    if program is None:
        if i >= n:
            raise Blocked(f"{name}: no program")
        program = args[i]
        i += 1
    if not program.static:
        raise Blocked(f"{name}: program {program.source} is expanded at run time")
    try:
        check_awk_program(program.value)
    except Blocked as blocked:
        raise Blocked(blocked.reason.replace("awk:", f"{name}:", 1)) from None
    for word in args[i:]:
        if not word.cannot_be_option or (word.static and word.value.startswith("-") and word.value != "-"):
            if word.static and word.value == "-":
                continue
            raise Blocked(f"{name}: operand {word.source} could be read as an option")


_XXD_VALUE = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset",
                        "-s", "-seek", "-n", "-name", "-R"})


def _xxd(name: str, rule: Rule, args: list[Word]) -> None:
    """xxd matches options by prefix (``-r``, ``-rev``, ``--revert`` all revert)
    and stops at the first operand; a second operand is the output file."""
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        if not word.static:
            if word.cannot_be_option:
                break
            raise Blocked(f"xxd: argument {word.source} is expanded at run time and could become an option")
        value = word.value
        flag = value[1:] if value.startswith("--") and len(value) > 2 else value
        if not flag.startswith("-") or flag == "-":
            break
        i += 1
        if value == "--":
            break
        if flag.startswith("-r"):
            raise Blocked(f"xxd: flag {value} reverses a dump and writes binary output")
        if flag in _XXD_VALUE:
            i += 1
    operands = args[i:]
    if any(not w.fixed for w in operands):
        raise Blocked("xxd: operands that expand at run time could name an output file")
    if len(operands) > 1:
        raise Blocked(f"xxd: operand {operands[1].source!r} would be written (at most 1 allowed)")


_FIND_NO_ARG = frozenset({
    "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty",
    "-executable", "-readable", "-writable", "-nouser", "-nogroup", "-depth", "-mount",
    "-xdev", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart",
    "-follow", "-not", "!", "-a", "-and", "-o", "-or", "(", ")", ",", "-d",
})
_FIND_ONE_ARG = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-regextype", "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin",
    "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-perm", "-user", "-group", "-uid",
    "-gid", "-links", "-inum", "-samefile", "-lname", "-ilname", "-maxdepth", "-mindepth",
    "-fstype", "-used", "-printf", "-context", "-files0-from",
})
_FIND_WHY = {
    "-exec": "runs commands",
    "-execdir": "runs commands",
    "-ok": "runs commands",
    "-okdir": "runs commands",
    "-delete": "deletes files",
    "-fprint": _WRITES,
    "-fprint0": _WRITES,
    "-fprintf": _WRITES,
    "-fls": _WRITES,
}
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]\Z")


def _find(name: str, rule: Rule, args: list[Word]) -> None:
    i, n = 0, len(args)
    while i < n and args[i].static and args[i].value in ("-H", "-L", "-P"):
        i += 1
    while i < n:
        word = args[i]
        if word.static and (word.value.startswith("-") or word.value in ("(", "!")):
            break
        if not word.cannot_be_option:
            raise Blocked(f"find: starting point {word.source} could expand to an expression (use ./ prefix)")
        i += 1
    while i < n:
        word = args[i]
        i += 1
        if not word.static:
            raise Blocked(f"find: expression word {word.source} is expanded at run time")
        token = word.value
        if token in _FIND_WHY:
            raise Blocked(f"find: {token} {_FIND_WHY[token]}")
        if token in _FIND_NO_ARG:
            continue
        if token in _FIND_ONE_ARG or _FIND_NEWER.match(token):
            if i >= n:
                raise Blocked(f"find: {token} needs an argument")
            if args[i].splits or args[i].globs:
                raise Blocked(f"find: argument {args[i].source} of {token} may expand to several words")
            i += 1
            continue
        raise Blocked(f"find: {token!r} is not an allowed find expression")


_TEST_UNARY = frozenset(
    "-a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N -O -S -z -n -o".split()
)
_TEST_BINARY = frozenset("= == != < > -eq -ne -lt -le -gt -ge -nt -ot -ef".split())
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_test_args(name: str, args: list[Word]) -> None:
    """``test``/``[``: ``-v NAME`` evaluates array subscripts in NAME, which can
    run commands (``test -v 'a[$(cmd)]'``). A dynamic operand is allowed only
    where it cannot be read as that operator."""
    for j, w in enumerate(args):
        if w.splits:
            raise Blocked(f"{name}: unquoted expansion {w.source} may change the expression")
        if w.static and w.value in ("-v", "-R") and j + 1 < len(args):
            nxt = args[j + 1]
            if not (nxt.static and _IDENTIFIER.match(nxt.value)):
                raise Blocked(f"{name}: {w.value} with {nxt.source} evaluates array subscripts, which can run commands")
    if all(w.static for w in args):
        return
    shape = args[1:] if args and args[0].static and args[0].value == "!" else args
    if len(shape) == 1:
        return
    if len(shape) == 2 and shape[0].static and shape[0].value in _TEST_UNARY:
        return
    if len(shape) == 3 and shape[1].static and shape[1].value in _TEST_BINARY:
        return
    raise Blocked(f"{name}: run-time values are only allowed in simple one-operator tests")


def _test(name: str, rule: Rule, args: list[Word]) -> None:
    if name == "[":
        if not args or not args[-1].static or args[-1].value != "]":
            raise Blocked("[: missing ']'")
        args = args[:-1]
    check_test_args(name, args)


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
    start = 1 if args and args[0].static and args[0].value == "-p" else 0
    if start < len(args) and args[start].static and args[start].value.startswith("-"):
        raise Blocked(f"command: option {args[start].value} is not allowed")
    _inner(name, args, start)


_TIMEOUT = Rule(allowed_short="ksv", allowed_long=frozenset({"--kill-after", "--signal", "--foreground", "--preserve-status", "--verbose"}),
                short_value="ks", long_value=frozenset({"--kill-after", "--signal"}), permute=False)
_NICE = Rule(allowed_short="n", allowed_long=frozenset({"--adjustment"}), short_value="n",
             long_value=frozenset({"--adjustment"}), permute=False)
_TIME = Rule(allowed_short="p", allowed_long=frozenset(), permute=False)
_XARGS = Rule(
    allowed_short="0rtxnLPdsaE",
    allowed_long=frozenset({"--null", "--no-run-if-empty", "--verbose", "--exit", "--max-args",
                            "--max-lines", "--max-procs", "--delimiter", "--max-chars", "--arg-file"}),
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
        raise Blocked(
            f"xargs: {inner.source!r} must be safe with any arguments (xargs appends input words)"
        )
    check_argv(args[start:])


_PIP = {
    "list": Rule(allowed_short="loeuv", allowed_long=frozenset({
        "--local", "--outdated", "--uptodate", "--editable", "--user", "--format",
        "--not-required", "--exclude-editable", "--include-editable", "--verbose"}),
        long_value=frozenset({"--format"})),
    "show": Rule(allowed_short="fv", allowed_long=frozenset({"--files", "--verbose"})),
    "freeze": Rule(allowed_short="lv", allowed_long=frozenset({
        "--local", "--user", "--all", "--exclude-editable", "--verbose"})),
}


def _pip(name: str, rule: Rule, args: list[Word]) -> None:
    if len(args) == 1 and args[0].static and args[0].value in ("--version", "-V"):
        return
    if not args or not args[0].static or args[0].value not in _PIP:
        shown = args[0].source if args else ""
        raise Blocked(f"{name}: only list, show and freeze are allowed (got {shown!r})")
    sub = args[0].value
    parse_options(f"{name} {sub}", args[1:], _PIP[sub])


VALIDATORS: dict[str, Validator] = {
    "date": _date,
    "sed": _sed,
    "awk": _awk,
    "xxd": _xxd,
    "find": _find,
    "git": lambda name, rule, args: check_git(args),
    "test": _test,
    "env": _env,
    "command": _command,
    "timeout": _wrapper(_TIMEOUT, 1),
    "nice": _wrapper(_NICE, 0),
    "time": _wrapper(_TIME, 0),
    "xargs": _xargs,
    "pip": _pip,
}
