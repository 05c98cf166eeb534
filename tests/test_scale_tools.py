"""read_file, list_files and grep on trees and files too big to show whole: what they say is exact.

Real files, the real packaged ripgrep. A header that claims lines it did not show, a continuation
offset that skips lines, a listing that shows one folder of four, or a count that is a guess
presented as a fact are the failures these tests look for.
"""

from __future__ import annotations

import re

import pytest

from cast.tools import pages, ripgrep, search
from cast.tools.base import ToolContext, run_tool
from cast.tools.files import GREP, LINE_CHARS, LIST_FILES, READ_FILE
from cast.workspace import Workspace


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(workspace=Workspace(root))


def read(ctx, **arguments):
    return run_tool(READ_FILE, arguments, ctx)


def shown_numbers(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^ *(\d+)\t", text, re.M)]


class TestReadFilePages:
    def test_long_lines_in_the_middle_are_named_and_never_hidden(self, ctx):
        lines = ["x" * 2400 if 35 <= i < 183 else f"line {i + 1}" for i in range(544)]
        (ctx.workspace.root / "wide.txt").write_text("\n".join(lines) + "\n")
        obs = read(ctx, path="wide.txt")
        header = obs.text.splitlines()[0]
        numbers = shown_numbers(obs.text)
        assert numbers == list(range(1, numbers[-1] + 1)), "every line from 1 to the last shown is there"
        assert header.startswith(f"wide.txt: lines 1-{numbers[-1]} of 544")
        assert "line 36 (2,400 bytes)" in header
        assert f"continue with offset={numbers[-1] + 1}]" in obs.text
        assert "[truncated: showed 60000" not in obs.text  # no character clip cuts the page in the middle

    def test_following_the_offsets_sees_every_line_once(self, ctx):
        lines = ["y" * 3000 if 622 <= i < 1411 else f"l{i + 1}" for i in range(5000)]
        (ctx.workspace.root / "big.txt").write_text("\n".join(lines) + "\n")
        seen: list[int] = []
        offset = 1
        while True:
            obs = read(ctx, path="big.txt", offset=offset)
            seen += shown_numbers(obs.text)
            found = re.search(r"continue with offset=(\d+)\]", obs.text)
            if not found:
                break
            offset = int(found[1])
        assert seen == list(range(1, 5001))

    def test_a_clipped_line_says_how_much_it_showed(self, ctx):
        (ctx.workspace.root / "one.txt").write_text("z" * 360_346 + "\nend\n")
        obs = read(ctx, path="one.txt")
        assert (
            obs.text.splitlines()[0]
            == f"one.txt: lines 1-2 of 2; long lines shown clipped to their first {LINE_CHARS:,} chars: line 1 (360,346 bytes)"
        )
        assert f"[line clipped: showed {LINE_CHARS} chars of 360346 bytes]" in obs.text
        assert "     2\tend" in obs.text and "continue with" not in obs.text

    def test_totals_count_a_last_line_without_newline_and_crlf(self, ctx):
        (ctx.workspace.root / "crlf.txt").write_bytes(b"a\r\nb\r\nc")
        obs = read(ctx, path="crlf.txt", limit=1)
        assert obs.text.splitlines()[0] == "crlf.txt: lines 1-1 of 3"
        assert "     1\ta\n" in obs.text and "\r" not in obs.text

    def test_the_limit_and_the_output_budget_end_a_page_differently(self, tmp_path):
        path = tmp_path / "f.txt"
        path.write_text("".join(f"{'w' * 90}{i}\n" for i in range(100)))
        with open(path, "rb") as handle:
            by_limit = pages.read_page(handle, 1, 10, LINE_CHARS, 60_000)
        with open(path, "rb") as handle:
            by_budget = pages.read_page(handle, 1, 1000, LINE_CHARS, 1000)
        assert (by_limit.last, by_limit.out_of_room, by_limit.total) == (10, False, 100)
        assert by_budget.out_of_room and by_budget.total == 100 and 0 < by_budget.last < 12
        assert "(the output limit)" in pages.render("f.txt", by_budget, 1)


def tree(root, folders: dict[str, int], loose: int = 0):
    for name, count in folders.items():
        d = root / name
        d.mkdir(parents=True)
        for i in range(count):
            (d / f"f{i:04d}.py").write_text("hit\n")
    for i in range(loose):
        (root / f"top{i}.txt").write_text("")


class TestListFilesOverview:
    def test_past_the_cap_every_folder_is_named_with_its_count(self, ctx):
        tree(ctx.workspace.root, {"ansible": 400, "googleapis": 150, "sympy": 60, "tldr": 5}, loose=2)
        obs = run_tool(LIST_FILES, {}, ctx)
        assert obs.text.startswith("617 files under . (respects .gitignore): more than 500, so an overview")
        for folder, count in (
            ("ansible/", "400 files"),
            ("googleapis/", "150 files"),
            ("sympy/", "60 files"),
            ("tldr/", "5 files"),
        ):
            assert f"  {folder}  {count}" in obs.text
        assert "googleapis/f0000.py" in obs.text and "tldr/f0004.py" in obs.text  # first files of each, not one folder's
        assert "  top0.txt" in obs.text
        assert "lower bounds" not in obs.text

    def test_a_tree_held_in_one_folder_is_grouped_one_level_down(self, ctx):
        tree(ctx.workspace.root, {"src/app": 300, "src/lib": 300})
        obs = run_tool(LIST_FILES, {}, ctx)
        assert "  src/app/  300 files" in obs.text and "  src/lib/  300 files" in obs.text

    def test_a_stopped_count_says_so_and_still_names_every_folder(self, ctx, monkeypatch):
        monkeypatch.setattr(search, "OVERVIEW_BUDGET", 0.0)
        tree(ctx.workspace.root, {"a": 300, "b": 300, "c": 300, "d": 300})
        obs = run_tool(LIST_FILES, {}, ctx)
        assert obs.text.startswith("at least ") and "counts are lower bounds" in obs.text
        for folder in "abcd":  # whichever folders rg's parallel walk reached first, and however far
            assert re.search(
                rf"^  {folder}/  (at least \d+ files?|not counted: the walk stopped before reaching it)$", obs.text, re.M
            )

    def test_a_stopped_count_names_a_folder_reached_by_one_file_and_one_never_reached(self, ctx):
        """The same overview as a stopped walk that entered `b/` for one file and never `c/`, built
        from a fixed listing: the outcome of a walk order, without depending on one."""
        root = ctx.workspace.root
        tree(root, {"a": 3, "b": 3, "c": 3})
        listing = search.Listing(root)
        listing.depth, listing.groups_in = 1, root
        for path in [b"a/f0.py", b"a/f1.py", b"b/f2.py"]:
            listing.total += 1
            listing._group(path)
        obs = search._overview(listing, ".", "", ripgrep.Stream(complete=False))
        assert re.search(r"^  a/  at least 2 files$", obs.text, re.M) and re.search(r"^  b/  at least 1 file$", obs.text, re.M)
        assert re.search(r"^  c/  not counted: the walk stopped before reaching it$", obs.text, re.M)

    def test_cast_state_and_git_are_never_listed_or_searched(self, ctx):
        root = ctx.workspace.root
        (root / ".cast" / "plans" / "p").mkdir(parents=True)
        (root / ".cast" / "plans" / "p" / "plan.md").write_text("- [ ] hit\n")
        (root / "a.py").write_text("hit\n")
        listed = run_tool(LIST_FILES, {}, ctx)
        assert listed.text.splitlines() == ["1 file under . (respects .gitignore)", "a.py"]
        assert run_tool(GREP, {"pattern": "hit"}, ctx).text.splitlines()[0] == "1 matching line in 1 file"


class TestGrepStream:
    def test_counts_past_the_cap_are_exact(self, ctx):
        tree(ctx.workspace.root, {"a": 30, "b": 20})
        (ctx.workspace.root / "many.txt").write_text("hit\n" * 1000)
        obs = run_tool(GREP, {"pattern": "hit"}, ctx)
        assert obs.text.splitlines()[0] == "1050 matching lines in 51 files"
        assert "[truncated: showed 200 of 1050 matching lines" in obs.text
        assert len(obs.text.splitlines()) == 202

    def test_rg_is_stopped_once_the_caller_has_enough(self, ctx):
        (ctx.workspace.root / "many.txt").write_text("hit\n" * 200_000)
        seen: list[bytes] = []
        stream = ripgrep.run(ctx, ["--no-heading", "--regexp", "hit"], lambda line: seen.append(line) or len(seen) < 3)
        assert len(seen) == 3 and not stream.complete
        assert stream.returncode < 0  # killed, not run to its end
