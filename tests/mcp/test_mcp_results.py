"""A server's result as the model reads it (cast/mcp/results.py): joined, capped, made visible."""

from __future__ import annotations

import base64

from cast.mcp.results import render


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def test_text_blocks_are_joined():
    done = render({"content": [text("one"), text("two")]}, "s")
    assert done.ok and done.text == "one\n\ntwo" and done.summary == "2 blocks (text)"


def test_a_200_kb_result_is_capped_with_the_marker():
    done = render({"content": [text("x" * 200_000)]}, "s")
    assert len(done.text) < 31_000
    assert "[truncated: showed 30000 of 200000 chars]" in done.text


def test_control_sequences_are_made_visible():
    done = render({"content": [text("a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x9b31m")]}, "s")
    assert "\x1b" not in done.text and "\x07" not in done.text and "\x9b" not in done.text
    assert "^[]52;c;ZXZpbA==^G" in done.text and "^[[2J" in done.text


def test_is_error_is_a_failed_observation():
    done = render({"content": [text("no such issue")], "isError": True}, "s")
    assert not done.ok and done.text.startswith("error: the MCP tool reported a failure:") and "no such issue" in done.text


def test_images_and_resources_are_summarised_with_type_and_size():
    png = base64.b64encode(b"\x89PNG" + b"\0" * 2044).decode()
    blob = base64.b64encode(b"\0" * 10).decode()
    done = render(
        {
            "content": [
                {"type": "image", "data": png, "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": blob}},
                {"type": "resource_link", "uri": "https://x/y", "name": "y", "mimeType": "text/html", "size": 4096},
            ]
        },
        "s",
    )
    assert "[image: image/png, 2.0 KB; not shown]" in done.text and png not in done.text
    assert "[resource file:///a.txt (text/plain, 5 bytes)]\nhello" in done.text
    assert "[resource file:///b.bin: unknown type, 10 bytes; binary, not shown]" in done.text
    assert "[resource link https://x/y (text/html, 4.0 KB); not fetched]" in done.text


def test_plan_mode_results_are_labelled_external_unverified():
    assert render({"content": [text("rows")]}, "db", plan=True).text.startswith("[external, unverified: from MCP server db")
    assert "external, unverified" not in render({"content": [text("rows")]}, "db").text


def test_a_structured_only_result_is_shown_and_an_empty_one_says_so():
    assert render({"content": [], "structuredContent": {"n": 1}}, "s").text == '{"n": 1}'
    assert render({"content": []}, "s").text == "(the tool returned no content)"
