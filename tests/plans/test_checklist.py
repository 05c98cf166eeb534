"""Checklist parsing and in-place ticking, including files edited by hand under our feet."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from cast.plans.checklist import PlanError, PlanFile, parse


def summary(text: str) -> list[tuple[str, bool, int]]:
    items = parse(text)
    data = text.encode()
    for item in items:  # every offset points at the checkbox character of the item's own line
        assert data[item.offset : item.offset + 1] in (b" ", b"x", b"X")
        line_start = len("\n".join(text.split("\n")[: item.line]).encode()) + (1 if item.line else 0)
        assert line_start <= item.offset < line_start + len(text.split("\n")[item.line].encode())
    assert [i.number for i in items] == list(range(1, len(items) + 1))
    return [(i.text, i.checked, i.depth) for i in items]


PARSE_CASES = {
    "dash": ("- [ ] a", [("a", False, 0)]),
    "star": ("* [x] b", [("b", True, 0)]),
    "plus": ("+ [X] c", [("c", True, 0)]),
    "ordered dot": ("1. [ ] d\n10. [x] e", [("d", False, 0), ("e", True, 0)]),
    "ordered paren": ("1) [ ] f", [("f", False, 0)]),
    "end of line": ("- [ ]\n- [x]", [("", False, 0), ("", True, 0)]),
    "tab after box": ("- [ ]\tg", [("g", False, 0)]),
    "several spaces": ("-   [ ]   h  ", [("h", False, 0)]),
    "no space after bullet": ("-[ ] no", []),
    "text glued to box": ("- [ ]x no", []),
    "bad box char": ("- [y] no\n- [] no\n- [  ] no\n- [-] no", []),
    "no bullet": ("[ ] no\ntext - [ ] no", []),
    "ordered needs digits": ("a. [ ] no\n1 [ ] no", []),
    "blockquote": ("> - [ ] quoted\n>- [x] also\n- [ ] real", [("real", False, 0)]),
    "nested order": (
        "- [ ] a\n  - [ ] a1\n    - [x] a1x\n  - [ ] a2\n- [ ] b\n\t- [ ] b1",
        [("a", False, 0), ("a1", False, 1), ("a1x", True, 2), ("a2", False, 1), ("b", False, 0), ("b1", False, 1)],
    ),
    "four-space nesting": ("1. [ ] a\n    1. [ ] b\n        - [ ] c", [("a", False, 0), ("b", False, 1), ("c", False, 2)]),
    "plain bullet parent": ("- Phase 1\n  - [ ] a\n# Phase 2\n  - [ ] b", [("a", False, 1), ("b", False, 0)]),
    "continuation keeps depth": ("- [ ] a\n  more about a\n\n  - [ ] b", [("a", False, 0), ("b", False, 1)]),
    "backtick fence": ("```\n- [ ] no\n```\n- [ ] yes", [("yes", False, 0)]),
    "tilde fence": ("~~~ md\n- [ ] no\n~~~\n- [ ] yes", [("yes", False, 0)]),
    "longer fence": ("````\n```\n- [ ] no\n````\n- [ ] yes", [("yes", False, 0)]),
    "closing must be long enough": ("````\n- [ ] no\n```\n- [ ] no\n`````\n- [ ] yes", [("yes", False, 0)]),
    "other char does not close": ("```\n~~~\n- [ ] no\n```\n- [ ] yes", [("yes", False, 0)]),
    "closing fence takes no info": ("```\n``` x\n- [ ] no\n```\n- [ ] yes", [("yes", False, 0)]),
    "backtick in info is no fence": ("``` a`b\n- [ ] yes", [("yes", False, 0)]),
    "unclosed fence": ("- [ ] yes\n```python\n- [ ] no\n- [ ] no", [("yes", False, 0)]),
    "indented fence in item": ("- [ ] a\n    ```sh\n    - [ ] no\n    ```\n- [ ] b", [("a", False, 0), ("b", False, 0)]),
    "front matter": ("---\ntask: x\n- [ ] no\n---\n- [ ] yes", [("yes", False, 0)]),
    "unclosed front matter is a rule": ("---\n- [ ] yes", [("yes", False, 0)]),
    "late rule is not front matter": ("\n---\n- [ ] a\n---\n- [ ] b", [("a", False, 0), ("b", False, 0)]),
    "crlf": (
        "---\r\nx: y\r\n---\r\n- [ ] a \r\n- [x]\r\n```\r\n- [ ] no\r\n```\r\n- [X] c",
        [("a", False, 0), ("", True, 0), ("c", True, 0)],
    ),
    "lone cr is not a line end": ("- [ ]\rx", []),
    "unicode": ("- [ ] ünïcødé ☃\n- [x] 日本語", [("ünïcødé ☃", False, 0), ("日本語", True, 0)]),
}


@pytest.mark.parametrize("text,expected", PARSE_CASES.values(), ids=PARSE_CASES.keys())
def test_parse(text: str, expected: list[tuple[str, bool, int]]) -> None:
    assert summary(text) == expected


def test_item_fields() -> None:
    text = "---\nt: 1\n---\n# Plan ☃\n- [ ] é\n  1. [x] b\n"
    first, second = parse(text)
    assert (first.number, first.line, first.offset) == (1, 4, text.encode().index(b"[ ]") + 1)
    assert (second.number, second.line, second.depth, second.checked) == (2, 5, 1, True)
    assert text.encode()[second.offset : second.offset + 1] == b"x"


def write(tmp_path: Path, text: str | bytes, name: str = "plan.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_tick_changes_only_the_checkbox(tmp_path: Path) -> None:
    original = "---\r\ntask: x\r\n---\r\n# Plän  \r\n- [ ] one  \r\n\t- [X] twö\r\n\r\n1) [ ] three"
    path = write(tmp_path, original)
    plan = PlanFile(path)
    assert plan.set_checked(1) == []
    assert plan.set_checked(2, False) == []
    assert plan.set_checked(3) == []
    assert (
        path.read_bytes()
        == original.replace("[ ] one", "[x] one").replace("[X]", "[ ]").replace("[ ] three", "[x] three").encode()
    )
    assert [i.checked for i in plan.items] == [True, False, True]
    assert plan.remaining() == [plan.items[1]]
    assert sorted(os.listdir(tmp_path)) == ["plan.md"]  # no temp files left behind


def test_tick_already_in_state_does_not_write(tmp_path: Path) -> None:
    path = write(tmp_path, "- [X] a\n")
    os.utime(path, ns=(1, 1))
    assert PlanFile(path).set_checked(1) == []
    assert path.read_bytes() == b"- [X] a\n" and path.stat().st_mtime_ns == 1


def test_unknown_item_number(tmp_path: Path) -> None:
    plan = PlanFile(write(tmp_path, "- [ ] a\n"))
    for number in (0, 2, -1):
        with pytest.raises(PlanError, match="no checklist item"):
            plan.set_checked(number)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no longer exists"):
        PlanFile(tmp_path / "gone.md")
    path = write(tmp_path, "- [ ] a\n")
    plan = PlanFile(path)
    path.unlink()
    assert plan.changed_on_disk()
    with pytest.raises(PlanError, match="no longer exists"):
        plan.set_checked(1)


def test_keeps_mode_and_writes_through_symlink(tmp_path: Path) -> None:
    real = write(tmp_path, "- [ ] a\n", "real.md")
    real.chmod(0o640)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    PlanFile(link).set_checked(1)
    assert link.is_symlink() and real.read_text() == "- [x] a\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_invalid_utf8_survives(tmp_path: Path) -> None:
    original = b"# \xff\xfe broken\n- [ ] caf\xc3\xa9 \x80\n- [ ] b\n"
    path = write(tmp_path, original)
    PlanFile(path).set_checked(2)
    assert path.read_bytes() == original.replace(b"[ ] b", b"[x] b")


def test_reload_reports(tmp_path: Path) -> None:
    path = write(tmp_path, "# P\n- [ ] a\n- [ ] b\n")
    plan = PlanFile(path)
    assert not plan.changed_on_disk() and plan.reload() == []
    path.write_text("# P, edited\n- [ ] a\n- [ ] b\n")
    assert plan.changed_on_disk()
    assert plan.reload() == ["the plan's text was edited (checklist unchanged)"]
    assert not plan.changed_on_disk()
    path.write_text("# P\n- [ ] a\n  - [x] b\n- [ ] c\n")
    notes = plan.reload()
    assert notes == ['item 2 "b" ticked by hand', 'item 2 "b" re-indented to depth 1', 'item 3 added: "c"']
    assert [i.text for i in plan.items] == ["a", "b", "c"]


# --- edits made by hand between load and tick -------------------------------------------------


def edited(tmp_path: Path, before: str, after: str) -> tuple[Path, PlanFile]:
    path = write(tmp_path, before)
    plan = PlanFile(path)
    path.write_bytes(after.encode())
    return path, plan


def test_added_item_before_target(tmp_path: Path) -> None:
    path, plan = edited(tmp_path, "- [ ] a\n- [ ] b\n", "- [ ] new\n- [ ] a  \n- [ ] b\n")
    notes = plan.set_checked(2)
    assert path.read_text() == "- [ ] new\n- [ ] a  \n- [x] b\n"
    assert 'item 1 added: "new"' in notes and "items renumbered: 1->2, 2->3" in notes
    assert [i.checked for i in plan.items] == [False, False, True]


def test_reworded_target(tmp_path: Path) -> None:
    path, plan = edited(tmp_path, "- [ ] a\n- [ ] run tests\n- [ ] c\n", "- [ ] a\n- [ ] run all tests twice\n- [ ] c\n")
    notes = plan.set_checked(2)
    assert path.read_text() == "- [ ] a\n- [x] run all tests twice\n- [ ] c\n"
    assert notes == ['item 2 reworded: "run tests" -> "run all tests twice"']


def test_reworded_and_added_elsewhere(tmp_path: Path) -> None:
    before = "- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n"
    path, plan = edited(tmp_path, before, "- [ ] a\n- [ ] B rewritten\n- [ ] c\n- [ ] extra\n- [ ] d\n")
    notes = plan.set_checked(2)
    assert path.read_text() == "- [ ] a\n- [x] B rewritten\n- [ ] c\n- [ ] extra\n- [ ] d\n"
    assert 'item 4 added: "extra"' in notes and any("reworded" in n for n in notes)


def test_reworded_among_unequal_changes_uses_similarity(tmp_path: Path) -> None:
    before = "- [ ] a\n- [ ] update the parser\n- [ ] z\n"
    after = "- [ ] a\n- [ ] write docs\n- [ ] update the parser module\n- [ ] z\n"
    path, plan = edited(tmp_path, before, after)
    plan.set_checked(2)
    assert plan.items[2].checked and not plan.items[1].checked


def test_reordered(tmp_path: Path) -> None:
    path, plan = edited(tmp_path, "- [ ] a\n- [ ] b\n- [ ] c\n", "- [ ] c\n- [ ] a\n- [ ] b\n")
    notes = plan.set_checked(3)
    assert path.read_text() == "- [x] c\n- [ ] a\n- [ ] b\n"
    assert 'item "c" moved from position 3 to 1' in notes


def test_duplicates_pick_nearest(tmp_path: Path) -> None:
    before = "- [ ] run tests\n- [ ] b\n- [ ] run tests\n"
    path, plan = edited(tmp_path, before, "- [ ] run tests\n- [ ] b\n- [ ] b2\n- [ ] run tests\n")
    plan.set_checked(3)
    assert path.read_text() == "- [ ] run tests\n- [ ] b\n- [ ] b2\n- [x] run tests\n"


def test_deleted_target_raises(tmp_path: Path) -> None:
    after = "- [ ] a\n- [ ] c\n- [ ] d\n"
    path, plan = edited(tmp_path, "- [ ] a\n- [ ] b\n- [ ] c\n", after)
    with pytest.raises(PlanError, match=r'item 2 \("b"\) is no longer in .*item 2 removed: "b"'):
        plan.set_checked(2)
    assert path.read_text() == after
    assert [i.text for i in plan.items] == ["a", "c", "d"]  # the new state is loaded for the caller


def test_ticked_by_hand(tmp_path: Path) -> None:
    path, plan = edited(tmp_path, "- [ ] a\n- [ ] b\n", "- [x] a\n- [ ] b\n")
    assert plan.set_checked(2) == ['item 1 "a" ticked by hand']
    assert path.read_text() == "- [x] a\n- [x] b\n"
    path.write_text("- [x] a\n- [ ] b\n")
    assert plan.set_checked(2) == ['item 2 "b" unticked by hand']
    assert path.read_text() == "- [x] a\n- [x] b\n"


def test_target_ticked_by_hand_is_not_rewritten(tmp_path: Path) -> None:
    path, plan = edited(tmp_path, "- [ ] a\n", "- [X] a\n")
    assert plan.set_checked(1) == ['item 1 "a" ticked by hand']
    assert path.read_text() == "- [X] a\n"


def test_hand_edits_elsewhere_survive(tmp_path: Path) -> None:
    after = "# My notes ✍\r\n- [ ] a   \r\n\r\nremember: ask Bob\r\n- [ ] b"
    path, plan = edited(tmp_path, "# P\n- [ ] a\n- [ ] b\n", after)
    assert plan.set_checked(2) == ["the plan's text was edited (checklist unchanged)"]
    assert path.read_bytes() == after.replace("[ ] b", "[x] b").encode()
