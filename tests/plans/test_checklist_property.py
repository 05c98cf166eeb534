"""Properties: ticking touches exactly one byte whatever the Markdown around it, and re-mapping
after hand edits finds the item the caller meant."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from datetime import UTC
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cast.plans.checklist import PlanFile, parse
from cast.plans.store import front_matter, parse_front_matter

words = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=20)
indent = st.sampled_from(["", " ", "  ", "    ", "\t", " \t", "      "])
bullet = st.sampled_from(["-", "*", "+", "1.", "2)", "10."])
box = st.sampled_from(["[ ]", "[x]", "[X]"])
item_line = st.builds(lambda i, b, x, sp, t: f"{i}{b}{sp}{x} {t}", indent, bullet, box, st.sampled_from([" ", "  ", "\t"]), words)
near_item = st.builds(lambda i, b, x, t: f"{i}{b}{x}{t}", indent, bullet, st.sampled_from(["[ ]", " [y]", " []", " [x]x"]), words)
fence_line = st.builds(
    lambda i, c, n, info: f"{i}{c * n}{info}",
    st.sampled_from(["", "  ", "    "]),
    st.sampled_from(["`", "~"]),
    st.integers(3, 5),
    st.sampled_from(["", "py", " x `y`", "  "]),
)
other_line = st.one_of(words, st.just(""), st.just("---"), st.just("> - [ ] quoted"), st.builds(lambda t: "# " + t, words))
line = st.one_of(item_line, item_line, near_item, fence_line, other_line)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(line, min_size=1, max_size=25))
    if draw(st.booleans()):
        lines = ["---", "task: x", *draw(st.lists(st.one_of(words, item_line), max_size=3)), "---", *lines]
    ends = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, ends))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text.encode("utf-8")


def tick_one(data: bytes, pick: st.DataObject) -> None:
    items = parse(data.decode("utf-8", "surrogateescape"))
    if not items:
        return
    target = pick.draw(st.sampled_from(items))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        path.write_bytes(data)
        plan = PlanFile(path)
        assert plan.set_checked(target.number, not target.checked) == []
        after = path.read_bytes()
    assert len(after) == len(data)
    assert [i for i in range(len(data)) if data[i] != after[i]] == [target.offset]
    expected = [replace(i, checked=not i.checked) if i.number == target.number else i for i in items]
    assert parse(after.decode("utf-8", "surrogateescape")) == expected == plan.items


@settings(max_examples=300, deadline=None)
@given(documents(), st.data())
def test_ticking_changes_exactly_one_byte(data: bytes, pick: st.DataObject) -> None:
    tick_one(data, pick)


@settings(max_examples=100, deadline=None)
@given(documents(), st.binary(max_size=8), st.data())
def test_ticking_survives_invalid_utf8(data: bytes, junk: bytes, pick: st.DataObject) -> None:
    tick_one(junk + b"\n" + data, pick)


@settings(max_examples=200, deadline=None)
@given(documents(), st.binary(min_size=1, max_size=4).filter(lambda b: b"\n" not in b), st.data())
def test_invalid_bytes_inside_items_give_clean_texts_and_byte_exact_ticks(data: bytes, junk: bytes, pick: st.DataObject) -> None:
    """Item texts reach the model, the session and the terminal: they must be encodable text
    (undecodable bytes as U+FFFD) while ticking still changes only the checkbox byte."""
    at = pick.draw(st.integers(0, len(data)))
    data = data[:at] + junk + data[at:]
    for item in parse(data.decode("utf-8", "surrogateescape")):
        item.text.encode("utf-8")
    tick_one(data, pick)


unique_texts = st.lists(
    st.text("abcdefghij ", min_size=1, max_size=12).map(str.strip).filter(bool), min_size=1, max_size=8, unique=True
)


@settings(max_examples=200, deadline=None)
@given(unique_texts, st.data())
def test_remap_after_reorder_and_insertions(texts: list[str], pick: st.DataObject) -> None:
    """With unique texts, any reordering plus new items still ticks the item the caller meant."""
    order = pick.draw(st.permutations(texts))
    extra = pick.draw(st.lists(st.text("KLMNOP", min_size=1, max_size=5), max_size=3, unique=True))
    edited = list(order)
    for text in extra:
        edited.insert(pick.draw(st.integers(0, len(edited))), text)
    target = pick.draw(st.integers(1, len(texts)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        path.write_text("".join(f"- [ ] {t}\n" for t in texts))
        plan = PlanFile(path)
        path.write_text("# edited\n" + "".join(f"- [ ] {t}\n" for t in edited))
        plan.set_checked(target)
        ticked = [i.text for i in parse(path.read_text()) if i.checked]
    assert ticked == [texts[target - 1]]


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text("abc-0123456789", min_size=1, max_size=20), st.none() | st.text("0123456789abcdef", max_size=9))
def test_front_matter_round_trips(task: str, session: str, sha: str | None) -> None:
    from datetime import datetime

    text = front_matter(task, session, datetime(2026, 11, 29, 11, 42, 7, tzinfo=UTC), sha)
    fields = parse_front_matter(text + "# Plan\n- [ ] a\n")
    assert fields["task"] == task and fields["session"] == session
    assert fields["created"] == "2026-11-29T11:42:07Z"
    assert fields.get("base_commit") == (sha or None)
    assert parse(text + "- [ ] a\n")[0].line == text.count("\n")
