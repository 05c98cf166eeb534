"""AGENTS.md is read confined: a regular file inside its own tree (the workspace, or the user's
config dir for the global one), read with the cap applied while reading; anything else is
skipped and the user is told."""

from __future__ import annotations

import os
import resource
import threading

import pytest

from cast import state
from cast.config import config_dir
from cast.workspace import AGENTS_CAP, Workspace


@pytest.fixture
def said(monkeypatch):
    notices: list[str] = []
    monkeypatch.setattr(state, "_announced", set())
    state.set_announcer(notices.append)
    yield notices
    state.set_announcer(None)


def test_a_symlink_inside_the_workspace_is_followed(repo, said):
    (repo / "docs").mkdir()
    (repo / "docs" / "rules.md").write_text("INSIDE RULE")
    (repo / "AGENTS.md").symlink_to("docs/rules.md")
    assert "INSIDE RULE" in Workspace(repo).instructions() and said == []


@pytest.mark.parametrize("target", ["secret", "/proc/self/environ", "/dev/zero", "/etc/passwd"])
def test_a_symlink_leading_out_is_skipped_and_said(repo, tmp_path, said, target, monkeypatch):
    monkeypatch.setenv("CAST_TEST_SECRET", "sk-ant-environ-secret")
    secret = tmp_path / "secret"
    secret.write_text("sk-ant-file-secret")
    (repo / "sub").mkdir()
    (repo / "sub" / "AGENTS.md").symlink_to(secret if target == "secret" else target)
    (repo / "AGENTS.md").write_text("ROOT RULE")
    text = Workspace(repo, cwd=repo / "sub").instructions()
    assert "ROOT RULE" in text and "secret" not in text and "root:" not in text
    assert said == [
        f"skipped sub/AGENTS.md: it leads outside {repo} through a symlink; instructions are read only from files inside it"
    ]


def test_a_directory_on_the_way_that_leads_out_is_skipped(repo, tmp_path, said):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("OUTSIDE RULE")
    (repo / "sub").mkdir()
    (repo / "sub" / "AGENTS.md").symlink_to("../../outside/AGENTS.md")
    assert "OUTSIDE RULE" not in Workspace(repo, cwd=repo / "sub").instructions() and len(said) == 1


def test_a_fifo_neither_hangs_nor_is_read(repo, said):
    os.mkfifo(repo / "AGENTS.md")
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(Workspace(repo).instructions()), daemon=True)
    reader.start()
    reader.join(5)
    assert result == [""], "reading instructions hung on a FIFO"
    assert said == ["skipped AGENTS.md: not a regular file; instructions are read only from regular files"]


def test_a_huge_file_is_read_only_up_to_the_cap(repo, said):
    with open(repo / "AGENTS.md", "wb") as out:
        out.truncate(8 << 30)  # 8 GiB, sparse: reading it whole would exhaust memory
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (min(hard, 4 << 30) if hard != resource.RLIM_INFINITY else 4 << 30, hard))
    try:
        text = Workspace(repo).instructions()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert len(text) < AGENTS_CAP + 200 and "[truncated" in text and said == []


def test_the_global_file_must_be_inside_the_config_dir(repo, tmp_path, said):
    config_dir().mkdir(parents=True)
    (tmp_path / "elsewhere.md").write_text("ELSEWHERE")
    (config_dir() / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    assert "ELSEWHERE" not in Workspace(repo).instructions()
    assert said and said[0].startswith(f"skipped {config_dir() / 'AGENTS.md'}: it leads outside")


def test_a_control_sequence_in_a_name_is_shown_escaped(repo, tmp_path, said):
    odd = repo / "a\x1b]0;pwned\x07"
    odd.mkdir()
    (odd / "AGENTS.md").symlink_to("/etc/passwd")
    Workspace(repo, cwd=odd).instructions()
    assert said and "\x1b" not in said[0] and "\x07" not in said[0] and "\\x1b]0;pwned\\x07" in said[0]
