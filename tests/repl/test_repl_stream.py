"""Markdown streaming: finished blocks are committed once, only the open block stays live."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cast.ui.stream import MarkdownStream


def feed_all(text: str, size: int = 3) -> tuple[list[str], str]:
    stream = MarkdownStream()
    blocks: list[str] = []
    for i in range(0, len(text), size):
        blocks += stream.feed(text[i : i + size])
    return blocks, stream.flush()


def test_paragraph_is_committed_at_the_blank_line_only():
    stream = MarkdownStream()
    assert stream.feed("Hello **wor") == []
    assert stream.pending == "Hello **wor"
    assert stream.feed("ld**.\nmore") == []
    assert stream.feed("\n\nNext") == ["Hello **world**.\nmore\n"]
    assert stream.pending == "Next"


def test_code_fence_is_one_block_even_with_blank_lines_inside():
    blocks, rest = feed_all("Intro:\n```python\nx = 1\n\ny = 2\n```\nAfter.\n")
    assert blocks == ["Intro:\n", "```python\nx = 1\n\ny = 2\n```\n"]
    assert rest == "After.\n"


def test_open_fence_stays_live_until_closed():
    stream = MarkdownStream()
    assert stream.feed("```\ncode\n\nmore\n") == []
    assert stream.pending.startswith("```")
    assert stream.feed("``` \n") == ["```\ncode\n\nmore\n``` \n"]


def test_a_shorter_or_different_fence_does_not_close():
    blocks, rest = feed_all("````\n```\n~~~\n````\n")
    assert blocks == ["````\n```\n~~~\n````\n"]
    assert rest == ""


def test_heading_line_is_its_own_block():
    blocks, rest = feed_all("text\n# Title\nbody\n")
    assert blocks == ["text\n", "# Title\n"]
    assert rest == "body\n"


def test_flush_returns_the_rest_and_resets():
    stream = MarkdownStream()
    stream.feed("tail without newline")
    assert stream.flush() == "tail without newline"
    assert stream.pending == ""
    assert stream.flush() == ""


@given(st.text(alphabet="ab `~#\n*-", max_size=200), st.integers(min_value=1, max_value=7))
def test_nothing_is_lost_or_duplicated(text, size):
    blocks, rest = feed_all(text, size)
    joined = "".join(blocks) + rest
    # blank lines between blocks are dropped; everything else comes out once, in order
    assert [line for line in joined.split("\n") if line.strip()] == [line for line in text.split("\n") if line.strip()]
