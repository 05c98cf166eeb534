"""``tar`` as a reader: listing an archive's members (``tar tf ./archive.tar``) and nothing else.

Every other mode writes (``x``, ``c``, ``r``, ``u``, ``A``, ``--delete``), and several options run
programs (``-I``/``--use-compress-program``, ``--to-command``, ``--checkpoint-action=exec``,
``-F``/``--info-script``, ``--rsh-command``), so the letters and long options are an allowlist.
An archive named ``host:file`` is opened on a remote host through rsh, so it must be local.
"""

from __future__ import annotations

from cast.safety.blocked import Blocked
from cast.safety.options import Rule
from cast.safety.words import Word

_LETTERS = frozenset("tvfzjJa")
_LONG = frozenset(
    {"--list", "--file", "--verbose", "--gzip", "--bzip2", "--xz", "--zstd", "--auto-compress", "--numeric-owner"}
    | {"--full-time", "--utc", "--wildcards", "--no-wildcards", "--anchored", "--no-anchored", "--force-local"}
)


def check_tar(name: str, rule: Rule, args: list[Word]) -> None:
    tar_archive(args)


def tar_archive(args: list[Word]) -> Word:
    """The archive a listing reads; refuse anything but a listing of a local archive."""
    listing = False
    archive: Word | None = None
    i, n = 0, len(args)
    if args and args[0].static and args[0].value and not args[0].value.startswith("-"):
        listing, archive, i = _letters(args[0].value, args, 1, old_style=True)  # `tar tf FILE`
    while i < n:
        word = args[i]
        i += 1
        if not word.static:
            if word.cannot_be_option:
                continue  # a member name
            raise Blocked(f"tar: argument {word.source} is expanded at run time and could become an option")
        value = word.value
        if value == "--":
            break
        if value.startswith("--"):
            flag, eq, rest = value.partition("=")
            if flag not in _LONG:
                raise Blocked(f"tar: option {flag} is not allowed (only listing an archive: tar tf FILE)")
            listing = listing or flag == "--list"
            if flag == "--file":
                archive = Word.literal(rest) if eq else (args[i] if i < n else None)
                i += 0 if eq else 1
        elif value.startswith("-") and len(value) > 1:
            found, named, i = _letters(value[1:], args, i)
            listing, archive = listing or found, named or archive
    if not listing:
        raise Blocked("tar: only listing an archive (t, --list) is allowed; every other mode writes")
    if archive is None:
        raise Blocked("tar: name the archive with f (tar tf FILE)")
    first = archive.prefix.split("/")[0]
    home = bool(archive.pieces) and archive.pieces[0][2] == "~"
    local = archive.static or "/" in archive.prefix or home
    if not (archive.fixed and archive.cannot_be_option and local and ":" not in first):
        raise Blocked(f"tar: archive {archive.source} must be a fixed local path (host:file runs rsh)")
    return archive


def _letters(letters: str, args: list[Word], i: int, *, old_style: bool = False) -> tuple[bool, Word | None, int]:
    """A bundle of letters; ``f`` takes the rest of a dashed bundle, else the next word."""
    archive: Word | None = None
    for k, letter in enumerate(letters):
        if letter not in _LETTERS:
            raise Blocked(f"tar: option {letter!r} is not allowed (only listing an archive: tar tf FILE)")
        if letter == "f":
            rest = letters[k + 1 :]
            if rest and not old_style:
                return "t" in letters, Word.literal(rest), i
            archive = args[i] if i < len(args) else None
            i += 1
    return "t" in letters, archive, i
