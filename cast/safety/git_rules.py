"""Which git invocations only read.

Git is judged per subcommand: each gets a ``Rule`` (flags it refuses or the
only flags it accepts), and the few whose meaning depends on their operands
(``branch``, ``tag``, ``config``, ``remote``, ``stash``, ``reflog``,
``worktree``) get a small check. Global options before the subcommand can
re-point git at other config, repositories or programs, so only a short
allowlist of harmless ones passes.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from cast.safety.blocked import Blocked
from cast.safety.options import Parsed, Rule, check_operands, parse_options
from cast.safety.words import Word

_GLOBAL_OK = frozenset(
    {
        "--no-pager",
        "-P",
        "--no-optional-locks",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-replace-objects",
    }
)
_GLOBAL_WHY = (
    ("-c", "sets configuration, which can name programs to run (core.pager, diff.external)"),
    ("--config-env", "sets configuration, which can name programs to run"),
    ("-C", "runs git in another directory"),
    ("--git-dir", "points git at another repository"),
    ("--work-tree", "points git at another work tree"),
    ("--exec-path", "runs git helpers from another directory"),
    ("--namespace", "changes the ref namespace"),
    ("--super-prefix", "is internal to git"),
    ("--paginate", "runs the pager"),
    ("-p", "runs the pager"),
    ("--bare", "treats the directory as a bare repository"),
)

_WRITES = "writes files"
_SIGNATURE = "runs gpg to verify signatures (and gpg creates ~/.gnupg)"
_DIFF = MappingProxyType(
    {
        "--output": _WRITES,
        "--ext-diff": "runs external diff programs",
        "--textconv": "runs textconv filter programs",
        "--remerge-diff": "writes temporary objects into .git",
        "--show-signature": _SIGNATURE,
        "--help": "runs the configured man viewer",
    }
)
_LOG = Rule(forbidden=_DIFF, exact_long=frozenset({"--text"}))

# Values no configuration override can make harmless. git parses these options
# itself, so a value is judged as written (and abbreviated option names too).
_BAD_VALUES = (
    ("--submodule", "diff", "runs git diff inside submodules, which rewrites their index"),
    ("--diff-merges", "r", "writes temporary objects into .git (remerge)"),
)
_FORMATS = ("--format", "--pretty")
_FREE = Rule()

_LIST_FLAGS = ("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")

SUBCOMMANDS: dict[str, Rule] = {
    "status": _FREE,
    "log": _LOG,
    "show": _LOG,
    "diff": _LOG,
    "whatchanged": _LOG,
    "diff-tree": _LOG,
    "shortlog": _LOG,
    "rev-list": _LOG,
    "blame": Rule(forbidden=MappingProxyType({"--textconv": "runs textconv filter programs"})),
    "grep": Rule(
        forbidden=MappingProxyType(
            {
                "-O": "opens files in a pager program",
                "--open-files-in-pager": "opens files in a pager program",
                "--textconv": "runs textconv filter programs",
                "--ext-grep": "runs an external grep",
            }
        )
    ),
    "describe": Rule(forbidden=MappingProxyType({"--dirty": "refreshes the index", "--broken": "refreshes the index"})),
    "cat-file": Rule(
        forbidden=MappingProxyType({"--textconv": "runs textconv filter programs", "--filters": "runs filter programs"})
    ),
    "rev-parse": _FREE,
    "ls-files": _FREE,
    "ls-tree": _FREE,
    "merge-base": _FREE,
    "count-objects": _FREE,
    "for-each-ref": _FREE,
    "name-rev": _FREE,
    "show-ref": _FREE,
    "var": _FREE,
    "check-ignore": _FREE,
    "version": _FREE,
    "branch": Rule(
        allowed_short="arvil",
        allowed_long=frozenset(
            {
                "--list",
                "--all",
                "--remotes",
                "--verbose",
                "--show-current",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--sort",
                "--format",
                "--column",
                "--no-column",
                "--color",
                "--no-color",
                "--ignore-case",
                "--abbrev",
                "--no-abbrev",
                "--omit-empty",
            }
        ),
        long_value=frozenset({"--sort", "--format", "--points-at"}),
        validator="listing",
    ),
    "tag": Rule(
        allowed_short="lni0123456789",
        allowed_long=frozenset(
            {
                "--list",
                "--sort",
                "--format",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--column",
                "--no-column",
                "--color",
                "--no-color",
                "--ignore-case",
                "--omit-empty",
            }
        ),
        long_value=frozenset({"--sort", "--format", "--points-at"}),
        validator="listing",
    ),
    "config": Rule(
        allowed_short="lfz",
        allowed_long=frozenset(
            {
                "--get",
                "--get-all",
                "--get-regexp",
                "--get-urlmatch",
                "--list",
                "--show-origin",
                "--show-scope",
                "--name-only",
                "--null",
                "--global",
                "--system",
                "--local",
                "--worktree",
                "--file",
                "--blob",
                "--type",
                "--bool",
                "--int",
                "--path",
                "--default",
                "--includes",
                "--no-includes",
                "--all",
                "--regexp",
                "--show-names",
                "--value",
                "--url",
            }
        ),
        short_value="f",
        long_value=frozenset({"--file", "--blob", "--type", "--default"}),
        validator="config",
    ),
    "remote": Rule(validator="remote"),
    "stash": Rule(validator="stash"),
    "reflog": Rule(validator="reflog"),
    "worktree": Rule(validator="worktree"),
}

_CONFIG_MODES = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l")


def check_git(args: list[Word]) -> None:
    i = 0
    while i < len(args):
        word = args[i]
        if not word.static:
            raise Blocked(f"git: argument {word.source} before the subcommand is expanded at run time")
        value = word.value
        if not value.startswith("-"):
            break
        if value == "--version" and len(args) == 1:
            return
        if value not in _GLOBAL_OK:
            for flag, why in _GLOBAL_WHY:
                if value == flag or value.startswith(flag + "=") or (len(flag) == 2 and value.startswith(flag)):
                    raise Blocked(f"git: global option {flag} {why}")
            raise Blocked(f"git: global option {value} is not allowed")
        i += 1
    if i >= len(args):
        raise Blocked("git: no subcommand")
    sub = args[i].value
    rule = SUBCOMMANDS.get(sub)
    if rule is None:
        raise Blocked(f"git: subcommand {sub!r} is not on the read-only list")
    rest = args[i + 1 :]
    name = f"git {sub}"
    _check_values(name, rest)
    if rule.validator in _SPECIAL:
        _SPECIAL[rule.validator](name, rule, rest)
        return
    if rule.any_args:
        return
    check_operands(name, rule, parse_options(name, rest, rule))


def _check_values(name: str, rest: list[Word]) -> None:
    """``--help`` anywhere, option values that write, and ``%G`` pretty formats
    (they run gpg); a format that is only known at run time could be one."""
    for word in rest:
        prefix = word.value if word.static else word.prefix
        flag, eq, value = prefix.partition("=")
        if word.static and flag.startswith("--h") and "--help".startswith(flag):
            raise Blocked(f"{name}: {word.value} runs the configured man viewer")
        for option, bad, why in _BAD_VALUES:
            if len(flag) > 3 and option.startswith(flag) and (value.startswith(bad) or not word.static):
                raise Blocked(f"{name}: {option}={value} {why}")
            if len(flag) > 3 and option == "--diff-merges" and option.startswith(flag) and not eq:
                raise Blocked(f"{name}: give {option} its value with '=' (--diff-merges=r writes into .git)")
        if "%G" in prefix or (not word.static and any(f.startswith(flag) for f in _FORMATS if len(flag) > 3)):
            raise Blocked(f"{name}: {word.source} may use a %G format, which runs gpg")


def _listing(name: str, rule: Rule, rest: list[Word]) -> None:
    """``git branch``/``git tag`` create refs from operands unless listing."""
    parsed = parse_options(name, rest, rule)
    if parsed.positionals and not (parsed.has(*_LIST_FLAGS) or (name == "git tag" and parsed.has("-n"))):
        first = parsed.positionals[0]
        raise Blocked(f"{name}: operand {first.source!r} would create a ref (use --list to filter)")


def _config(name: str, rule: Rule, rest: list[Word]) -> None:
    """Only reading modes; without one, ``git config key value`` writes."""
    if rest and rest[0].static and rest[0].value in ("get", "list"):
        parse_options(name, rest[1:], rule)
        return
    parsed = parse_options(name, rest, rule)
    if not parsed.has(*_CONFIG_MODES):
        raise Blocked(f"{name}: only --get, --get-all, --get-regexp and --list are allowed")


def _remote(name: str, rule: Rule, rest: list[Word]) -> None:
    words = _static(name, rest)
    if all(w in ("-v", "--verbose") for w in words):
        return
    if words[0] == "get-url":
        parse_options(name, rest[1:], Rule(allowed_short="", allowed_long=frozenset({"--push", "--all"})))
        return
    if words[0] == "show" and "-n" in words[1:]:
        parse_options(name, rest[1:], Rule(allowed_short="n", allowed_long=frozenset()))
        return
    raise Blocked(f"{name}: only 'git remote [-v]', 'get-url' and 'show -n' are allowed")


def _stash(name: str, rule: Rule, rest: list[Word]) -> None:
    if rest and rest[0].static and rest[0].value in ("list", "show"):
        check_operands(name, _LOG, parse_options(f"{name} {rest[0].value}", rest[1:], _LOG))
        return
    raise Blocked(f"{name}: only 'git stash list' and 'git stash show' are allowed")


def _reflog(name: str, rule: Rule, rest: list[Word]) -> None:
    if not rest:
        return
    first = rest[0]
    if first.static and first.value in ("show", "list", "exists"):
        parse_options(name, rest[1:], _LOG)
        return
    if first.static and (first.value.startswith("-") or first.value == "HEAD"):
        parse_options(name, rest, _LOG)
        return
    raise Blocked(f"{name}: only 'git reflog [show]' is allowed (expire and delete write)")


def _worktree(name: str, rule: Rule, rest: list[Word]) -> None:
    if rest and rest[0].static and rest[0].value == "list":
        parse_options(name, rest[1:], Rule(allowed_short="vz", allowed_long=frozenset({"--porcelain", "--verbose"})))
        return
    raise Blocked(f"{name}: only 'git worktree list' is allowed")


def _static(name: str, rest: list[Word]) -> list[str]:
    for w in rest:
        if not w.static:
            raise Blocked(f"{name}: argument {w.source} is expanded at run time")
    return [w.value for w in rest]


_SPECIAL: dict[str, Callable[[str, Rule, list[Word]], None]] = {
    "listing": _listing,
    "config": _config,
    "remote": _remote,
    "stash": _stash,
    "reflog": _reflog,
    "worktree": _worktree,
}

__all__ = ["SUBCOMMANDS", "check_git", "Parsed"]
