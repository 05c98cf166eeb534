"""`cast undo` puts files back where they were: a model that replaced a file or its directory with
a symlink to somewhere outside (an approved command) cannot make the restore write there, nor make
undoing a created file delete one outside. End to end through `cast execute --yes` and
`cast undo --yes`, judged from outside: the directory the links pointed to is byte for byte as it
was, and the workspace holds real files again."""

from __future__ import annotations

from pathlib import Path

from conftest import commit_plan, git, invoke_cast, write_script
from hostile_repo import tree_digest


def test_undo_never_writes_or_deletes_through_links_the_model_planted(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("x.txt", "y.txt", "victim.txt", "new.txt"):
        (outside / name).write_text(f"outside {name}\n")
    (repo / "d").mkdir()
    (repo / "d" / "x.txt").write_text("inside x\n")
    (repo / "y.txt").write_text("inside y\n")
    commit_plan(repo, "# Plan\n\n- [ ] Rework d\n- [ ] Link things\n", "start")
    before = tree_digest(outside)
    link = f"rm -r d y.txt && ln -s {outside} d && ln -s {outside}/victim.txt y.txt && ln -s {outside}/new.txt e.txt"
    turns = [
        {"tool_uses": [{"name": "write_file", "input": {"path": "d/new.txt", "content": "made in d\n"}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"tool_uses": [{"name": "bash", "input": {"command": link}}]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 2, "status": "done"}}]},
        {"text": "Done."},
        {"complete": True, "missing": [], "claims": []},
    ]
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", "execute", "--yes", "2099-01-01-x")
    assert done.returncode == 0 and "2/2 items done" in done.stdout, done.stdout + done.stderr
    assert (repo / "d").is_symlink() and tree_digest(outside) == before
    undone = invoke_cast(repo, "undo", "1", "--yes")  # back to before item 1: every change since
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert tree_digest(outside) == before, sorted(p.name for p in outside.iterdir())
    assert not (repo / "d").is_symlink() and (repo / "d" / "x.txt").read_text() == "inside x\n"
    assert not (repo / "y.txt").is_symlink() and (repo / "y.txt").read_text() == "inside y\n"
    assert not (repo / "e.txt").exists() and not (repo / "d" / "new.txt").exists()
    assert [Path(p).name for p in git(repo, "status", "--porcelain").split()] == []


def test_a_clones_gitattributes_cannot_break_or_bend_checkpoints(repo, tmp_path):
    """Attributes git applies without any driver: an encoding that does not exist, end-of-line
    conversion and `ident` expansion. Checkpoints keep and restore the bytes as they were."""
    (repo / ".gitattributes").write_text("*.txt working-tree-encoding=NO-SUCH-ENCODING\n*.crlf eol=crlf\n*.id ident\n")
    (repo / "keep.crlf").write_bytes(b"one\ntwo\n")
    (repo / "keep.id").write_bytes(b"$Id$\n")
    commit_plan(repo, "# Plan\n\n- [ ] Rewrite\n", "start")
    before = {name: (repo / name).read_bytes() for name in ("keep.crlf", "keep.id")}
    writes = [("new.txt", "hello\n"), ("keep.crlf", "three\n"), ("keep.id", "$Id$ changed\n")]
    turns = [
        {"tool_uses": [{"name": "read_file", "input": {"path": name}} for name in ("keep.crlf", "keep.id")]},
        {"tool_uses": [{"name": "write_file", "input": {"path": name, "content": text}} for name, text in writes]},
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done"}}]},
        {"text": "Done."},
        {"complete": True, "missing": [], "claims": []},
    ]
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", "execute", "--yes", "2099-01-01-x")
    assert done.returncode == 0 and "Files changed: 3" in done.stdout, done.stdout + done.stderr
    undone = invoke_cast(repo, "undo", "1", "--yes")
    assert undone.returncode == 0 and "3 files restored" in undone.stdout, undone.stdout + undone.stderr
    assert {name: (repo / name).read_bytes() for name in before} == before and not (repo / "new.txt").exists()
    redone = invoke_cast(repo, "redo", "--yes")
    assert redone.returncode == 0 and (repo / "new.txt").read_bytes() == b"hello\n"
    assert (repo / "keep.crlf").read_bytes() == b"three\n" and (repo / "keep.id").read_bytes() == b"$Id$ changed\n"
