"""read_file, list_files and grep on real directories."""

from __future__ import annotations

import os

import pytest

from cast.tools.base import ToolContext, run_tool
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.tools.ripgrep import rg_binary
from cast.workspace import Workspace


@pytest.fixture
def ctx(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(workspace=Workspace(root))


def call(tool, ctx, **arguments):
    return run_tool(tool, arguments, ctx)


class TestReadFile:
    def test_numbered_lines_with_position_of_total(self, ctx):
        (ctx.workspace.root / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
        obs = call(READ_FILE, ctx, path="a.txt", offset=10, limit=5)
        assert obs.ok
        assert obs.text.splitlines()[0] == "a.txt: lines 10-14 of 100"
        assert "    10\tline 10" in obs.text and "line 15" not in obs.text
        assert "[truncated: showed lines 10-14 of 100; continue with offset=15]" in obs.text

    def test_whole_small_file_has_no_marker(self, ctx):
        (ctx.workspace.root / "a.txt").write_text("only\n")
        obs = call(READ_FILE, ctx, path="a.txt")
        assert "lines 1-1 of 1" in obs.text and "truncated" not in obs.text

    def test_binary_file_is_refused_clearly(self, ctx):
        (ctx.workspace.root / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00" + bytes(range(256)))
        obs = call(READ_FILE, ctx, path="blob.bin")
        assert not obs.ok and "binary file" in obs.text and "blob.bin" in obs.text

    def test_non_utf8_text_survives(self, ctx):
        (ctx.workspace.root / "latin.txt").write_bytes("café olé\n".encode("latin-1"))
        obs = call(READ_FILE, ctx, path="latin.txt")
        assert obs.ok and "caf\ufffd ol\ufffd" in obs.text and "not valid UTF-8" in obs.text

    def test_missing_file_and_directory(self, ctx):
        (ctx.workspace.root / "sub").mkdir()
        assert "does not exist" in call(READ_FILE, ctx, path="nope.py").text
        assert "is a directory" in call(READ_FILE, ctx, path="sub").text

    def test_offset_past_end(self, ctx):
        (ctx.workspace.root / "a.txt").write_text("1\n2\n")
        obs = call(READ_FILE, ctx, path="a.txt", offset=9)
        assert not obs.ok and "past the end" in obs.text

    def test_dotdot_escape_is_refused(self, ctx, tmp_path):
        (tmp_path / "secret.txt").write_text("s3cret")
        obs = call(READ_FILE, ctx, path="../secret.txt")
        assert not obs.ok and "outside the workspace" in obs.text and "s3cret" not in obs.text

    def test_absolute_path_outside_is_refused(self, ctx, tmp_path):
        (tmp_path / "secret.txt").write_text("s3cret")
        obs = call(READ_FILE, ctx, path=str(tmp_path / "secret.txt"))
        assert not obs.ok and "outside the workspace" in obs.text

    def test_symlink_escape_is_refused(self, ctx, tmp_path):
        (tmp_path / "secret.txt").write_text("s3cret")
        os.symlink(tmp_path / "secret.txt", ctx.workspace.root / "innocent.txt")
        obs = call(READ_FILE, ctx, path="innocent.txt")
        assert not obs.ok and "symlink" in obs.text and "s3cret" not in obs.text

    def test_symlinked_directory_escape_is_refused(self, ctx, tmp_path):
        (tmp_path / "outside").mkdir()
        (tmp_path / "outside" / "x.txt").write_text("s3cret")
        os.symlink(tmp_path / "outside", ctx.workspace.root / "dir")
        assert "symlink" in call(READ_FILE, ctx, path="dir/x.txt").text

    def test_dotdot_that_stays_inside_is_fine(self, ctx):
        (ctx.workspace.root / "sub").mkdir()
        (ctx.workspace.root / "a.txt").write_text("hi\n")
        assert call(READ_FILE, ctx, path="sub/../a.txt").ok

    def test_reading_records_the_file_for_staleness(self, ctx):
        path = ctx.workspace.root / "a.txt"
        path.write_text("v1\n")
        call(READ_FILE, ctx, path="a.txt")
        assert ctx.workspace.reads.was_read(path) and not ctx.workspace.reads.is_stale(path)
        path.write_text("v2 changed\n")
        assert ctx.workspace.reads.is_stale(path)


class TestListFiles:
    def test_respects_gitignore_and_filters_by_glob(self, ctx):
        root = ctx.workspace.root
        (root / ".gitignore").write_text("build/\n*.log\n")
        (root / "build").mkdir()
        (root / "build" / "out.py").write_text("")
        (root / "src").mkdir()
        (root / "src" / "main.py").write_text("")
        (root / "debug.log").write_text("")
        obs = call(LIST_FILES, ctx)
        assert "src/main.py" in obs.text and ".gitignore" in obs.text
        assert "build/out.py" not in obs.text and "debug.log" not in obs.text
        only_py = call(LIST_FILES, ctx, pattern="*.py")
        assert only_py.text.splitlines()[1:] == ["src/main.py"]

    def test_cap_has_an_explicit_marker(self, ctx):
        for i in range(600):
            (ctx.workspace.root / f"f{i:04d}.txt").write_text("")
        obs = call(LIST_FILES, ctx)
        assert obs.text.startswith("600 files")
        assert "[truncated: showed 500 of 600 files" in obs.text

    def test_outside_path_refused(self, ctx):
        assert "outside the workspace" in call(LIST_FILES, ctx, path="..").text


class TestGrep:
    def test_counts_matches_with_paths_relative_to_root(self, ctx):
        root = ctx.workspace.root
        (root / "a.py").write_text("def main():\n    pass\ndef main_two():\n")
        (root / "b.txt").write_text("MAIN\n")
        obs = call(GREP, ctx, pattern="def main")
        assert obs.text.splitlines()[0] == "2 matching lines in 1 file"
        assert "a.py:1:def main():" in obs.text
        assert "MAIN" in call(GREP, ctx, pattern="main", ignore_case=True, glob="*.txt").text

    def test_no_match_and_bad_regex(self, ctx):
        (ctx.workspace.root / "a.py").write_text("x\n")
        assert call(GREP, ctx, pattern="zzz").text.startswith("no matches")
        bad = call(GREP, ctx, pattern="(unclosed")
        assert not bad.ok and "grep failed" in bad.text

    def test_pattern_starting_with_dash_is_a_pattern(self, ctx):
        (ctx.workspace.root / "a.txt").write_text("--pre=sh\n")
        assert "1 matching line in 1 file" in call(GREP, ctx, pattern="--pre").text

    def test_cap_has_an_explicit_marker(self, ctx):
        (ctx.workspace.root / "big.txt").write_text("hit\n" * 1000)
        obs = call(GREP, ctx, pattern="hit")
        assert "[truncated: showed 200 of 1000 matching lines" in obs.text

    def test_uses_the_packaged_ripgrep(self):
        assert os.access(rg_binary(), os.X_OK)
