"""Word resolution, sed/awk script checks, and a fuzz test that check never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cast.safety.awk_program import check_awk_program
from cast.safety.bash_check import Verdict, _parser, _Walker, check
from cast.safety.blocked import Blocked
from cast.safety.scripts import check_sed_script
from cast.safety.words import Word, resolve


def _first_argument(command: str) -> Word:
    source = command.encode()
    root = _parser().parse(source).root_node
    node = root.children[0]
    arg = node.children_by_field_name("argument")[0]
    return resolve(arg, _Walker(source))


RESOLVED = [
    ("echo 'r'm", "rm"),
    ("echo s\\ort", "sort"),
    ('echo "-o"', "-o"),
    ('echo -o"file"', "-ofile"),
    ("echo \"a\"'b'c\\ d", "abc d"),
    ('echo "\\$x"', "$x"),
    ('echo "a\\b"', "a\\b"),
    ("echo a\\\\b", "a\\b"),
    ("echo 'a\\b'", "a\\b"),
    ('echo "it\'s"', "it's"),
    ("echo ''", ""),
    ("echo \\*", "*"),
    ("echo '*'", "*"),
    ("echo HEAD@{1}", "HEAD@{1}"),
    ("echo foo$", "foo$"),
    ('echo "  "', "  "),
    ('echo " a "', " a "),
    ('echo " $"', " $"),
    ('echo "a\\\n b"', "a b"),
    ("echo ' x '", " x "),
]


@pytest.mark.parametrize("command,value", RESOLVED)
def test_static_words_resolve_like_bash(command: str, value: str) -> None:
    word = _first_argument(command)
    assert word.static
    assert word.value == value


@pytest.mark.parametrize(
    "command,splits,globs,safe_start",
    [
        ("echo $x", True, False, False),
        ('echo "$x"', False, False, False),
        ('echo "$@"', True, False, False),
        ("echo *", False, True, False),
        ("echo ./*", False, True, True),
        ('echo "./$x"', False, False, True),
        ("echo ~/x", False, False, True),
        ("echo <(ls)", False, False, True),
        ("echo $(ls)", True, False, False),
        ('echo "$(ls)"', False, False, False),
        ("echo $((1+2))", False, False, False),
        ('echo " $x"', False, False, True),
        ('echo "-$x"', False, False, False),
    ],
)
def test_dynamic_words_keep_what_is_certain(command: str, splits: bool, globs: bool, safe_start: bool) -> None:
    word = _first_argument(command)
    assert not word.static
    assert (word.splits, word.globs, word.safe_start) == (splits, globs, safe_start)


@pytest.mark.parametrize("command", ["echo {a,b}", "echo x{1..3}", "echo $'a'", "echo ${x/a/b}"])
def test_unmodelled_rewrites_are_refused(command: str) -> None:
    with pytest.raises(Blocked):
        _first_argument(command)


@pytest.mark.parametrize("script", ["p", "1,5p", "$!N", "s/a/b/g", "/x/{p;q}", "y/ab/cd/", ":a;ba", "1~3d"])
def test_sed_subset_accepted(script: str) -> None:
    check_sed_script(script)


@pytest.mark.parametrize("script", ["w x", "s/a/b/w x", "s/a/b/e", "1e id", "r x", "a x", "s/a", "{p", "v"])
def test_sed_outside_subset_refused(script: str) -> None:
    with pytest.raises(Blocked):
        check_sed_script(script)


@pytest.mark.parametrize(
    "program",
    [
        "{print}",
        "$1 > 3",
        "{ print ($1 > 3) }",
        "/a|b/",
        "{ x = a / b / c }",
        "BEGIN { if (1) print 2 }",
        "{ print length($0) / 2 }",
        "/[[:alpha:]]+/",
        "/[]]/",
    ],
)
def test_awk_read_only_programs_accepted(program: str) -> None:
    check_awk_program(program)


@pytest.mark.parametrize(
    "program",
    [
        '{ print > "f" }',
        '{ print | "sh" }',
        '{ system("x") }',
        '{ getline < "f" }',
        'BEGIN { ARGV[1] = "f" }',
        '@load "x"',
        '{ if (x) print 1 >> "f" }',
        '/[/]"/ { print | "sh" }',
        '/[[:alpha:]/]"/',
    ],
)
def test_awk_writing_programs_refused(program: str) -> None:
    with pytest.raises(Blocked):
        check_awk_program(program)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_check_never_raises_on_arbitrary_text(command: str) -> None:
    verdict = check(command)
    assert isinstance(verdict, Verdict)
    assert verdict.reason
