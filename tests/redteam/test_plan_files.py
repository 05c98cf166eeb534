"""A clone's committed plans cannot make cast write outside the workspace, nor run what the user
did not approve: `.cast/plans/<session>/plan.md` (or the session directory itself) committed as a
symlink to a file outside, a plan hard-linked to one, and a ticked plan whose `verify:` commands are
the attack. End to end through `cast plans`, `cast execute` (every way of naming the plan) and
`cast verify`, judged from outside: the files outside, the markers, the listener."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import commit_plan, git, invoke_cast, write_script
from hostile_repo import tree_digest
from sandboxkit import Listener

TODO = "# my notes\n- [ ] pay rent\n- [ ] call home\n"
TICK = [
    {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "already done"}}]},
    {"text": "Done."},
    {"complete": True, "missing": [], "claims": []},
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A user's notes beside the clone, with a checklist ticking would happily change."""
    place = tmp_path / "outside"
    (place / "sess").mkdir(parents=True)
    (place / "todo.md").write_text(TODO)
    (place / "sess" / "plan.md").write_text(TODO)
    return place


def _plant(repo: Path, outside: Path, how: str) -> tuple[str, str]:
    """Commit the link; return the session id and the plan path as `cast plans` would name it."""
    session = "2099-01-01-notes"
    plans = repo / ".cast" / "plans"
    if how in ("plans dir", "cast dir"):  # the link higher up: .cast/plans or .cast itself
        (outside / "cast" / "plans" / session).mkdir(parents=True)
        (outside / "cast" / "plans" / session / "plan.md").write_text(TODO)
        if how == "plans dir":
            (repo / ".cast").mkdir()
            plans.symlink_to(outside / "cast" / "plans")
        else:
            (repo / ".cast").symlink_to(outside / "cast")
    elif how == "session dir":
        plans.mkdir(parents=True)
        (plans / session).symlink_to(outside / "sess")
    else:
        (plans / session).mkdir(parents=True)
        target = outside / "todo.md" if how == "absolute" else Path("../../../../outside/todo.md")
        (plans / session / "plan.md").symlink_to(target)
    assert (plans / session / "plan.md").read_text() == TODO  # the link works: cast must choose not to follow it
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plans")
    return session, f".cast/plans/{session}/plan.md"


@pytest.mark.parametrize("how", ["absolute", "relative", "session dir", "plans dir", "cast dir"])
def test_a_committed_plan_symlink_is_never_listed_nor_ticked_through(repo, outside, tmp_path, how):
    session, path = _plant(repo, outside, how)
    before = tree_digest(outside)
    listed = invoke_cast(repo, "plans", "--all")
    assert session not in listed.stdout and "pay rent" not in listed.stdout, listed.stdout
    for ref in (None, session, path, str(repo / path)):
        script = write_script(tmp_path / "tick.jsonl", TICK)
        done = invoke_cast(repo, "--model", f"script:{script}", "execute", *([ref] if ref else []))
        assert done.returncode == 2, (ref, done.stdout, done.stderr)
        assert "pay rent" not in done.stdout, (ref, done.stdout)
    verified = invoke_cast(repo, "verify", path)
    assert verified.returncode == 2, verified.stdout
    archived = invoke_cast(repo, "plans", "archive", path)
    assert archived.returncode == 2, archived.stdout
    assert tree_digest(outside) == before  # nothing ticked, and no temp file left beside them


def test_archiving_never_moves_a_plan_through_a_committed_link(repo, outside):
    plans = repo / ".cast" / "plans"
    (plans / "2099-01-01-x").mkdir(parents=True)
    (plans / "2099-01-01-x" / "plan.md").write_text("# Plan\n\n- [ ] x\n")
    (plans / ".archived").symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plans")
    before = tree_digest(outside)
    done = invoke_cast(repo, "plans", "archive", "2099-01-01-x")
    assert done.returncode == 2 and "symlink" in done.stderr, done.stdout + done.stderr
    assert tree_digest(outside) == before and (plans / "2099-01-01-x" / "plan.md").is_file()


def test_a_plan_hard_linked_to_a_file_outside_is_ticked_without_writing_that_file(repo, outside, tmp_path):
    """A hard link cannot be committed, but one made in the checkout must not carry a tick out:
    the tick replaces the plan's own name, so the other name keeps its bytes."""
    plan = repo / ".cast" / "plans" / "2099-01-01-notes" / "plan.md"
    plan.parent.mkdir(parents=True)
    os.link(outside / "todo.md", plan)
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 'tick.jsonl', TICK)}", "execute", "2099-01-01-notes")
    assert "1/2 items done" in done.stdout, done.stdout + done.stderr
    assert plan.read_text().startswith("# my notes\n- [x] pay rent") and (outside / "todo.md").read_text() == TODO


def test_a_hostile_plans_verify_commands_need_the_users_approval(repo, tmp_path):
    """`cast verify` runs a committed plan's `verify:` commands as execute mode runs the model's:
    without a terminal and without --yes none that writes runs, and the clone's own
    rules allowing each of them and `sandbox = "off"` count for nothing until trusted."""
    marker, listener = tmp_path / "markers", Listener()
    marker.mkdir()
    home = Path(os.environ["HOME"])
    (home / "keep.txt").write_text("mine\n")
    attacks = [
        f"touch {marker}/touched",
        f"echo pwned > {marker}/redirected",
        f"python3 -c \"open('{marker}/python', 'w')\"",
        f"git -c core.pager='touch {marker}/pager' log -1",
        f"GIT_PAGER='touch {marker}/env-pager' git -p log -1",
        f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{listener.port}'",
        f"find . -maxdepth 0 -fprint {marker}/fprint",
        f"sort -o {marker}/sorted README.md",
    ]
    body = "".join(f"- [x] Step {i}\n  - verify: `{a}`\n" for i, a in enumerate(attacks, 1))
    plan = repo / ".cast" / "plans" / "2099-01-01-x" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(f"---\ntask: x\nsession: 2099-01-01-x\n---\n# Plan\n\n{body}")
    rules = ", ".join(json.dumps(a) for a in attacks)  # each command exactly, as a rule the user could write
    (repo / ".cast" / "config.toml").write_text(f'allow = [{rules}]\nsandbox = "off"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plan")
    done = invoke_cast(repo, "verify")
    assert done.returncode == 1 and done.stdout.count("approval needed") == len(attacks), done.stdout
    assert list(marker.iterdir()) == [] and (home / "keep.txt").read_text() == "mine\n"
    assert not listener.connected()
    listener.sock.close()


BAD_NAMES = [
    "../x",
    "../../outside/x",
    "/tmp/x",
    "a/../../x",
    "..",
    ".",
    "x\x00y",
    "plan.md/..",
    "a" * 300,
    ".hidden",
    "~/x",
    "PLAN",
]


def test_write_plan_names_and_predictable_session_links_keep_the_plan_in_its_dir(repo, outside, tmp_path):
    """The model names the plan; cast names the session after the task and today's date, so a
    clone can commit that very directory (or its plan.md) as a link to outside."""
    from datetime import date

    session = f"{date.today().isoformat()}-tidy-up"
    plans = repo / ".cast" / "plans"
    plans.mkdir(parents=True)
    (plans / session).symlink_to(outside / "sess")
    (plans / f"{session}-2").mkdir()
    (plans / f"{session}-2" / "plan.md").symlink_to(outside / "todo.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "links")
    good = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan\n\n- [ ] x\n"}}]}
    # a plan that is written after each attack: failures in a row would end the run
    turns = [
        t
        for name in BAD_NAMES
        for t in ({"tool_uses": [{"name": "write_plan", "input": {**good["tool_uses"][0]["input"], "name": name}}]}, good)
    ]
    turns += [{"text": "ok"}]
    record = tmp_path / "requests.jsonl"
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', turns)}", "plan", "Tidy up", record=record)
    assert done.returncode == 0, done.stdout + done.stderr
    written = Path(done.stdout.strip().splitlines()[-1])
    assert written == repo / ".cast" / "plans" / f"{session}-3" / "plan.md" and written.is_file() and not written.is_symlink()
    assert (outside / "todo.md").read_text() == TODO and (outside / "sess" / "plan.md").read_text() == TODO
    assert sorted(p.name for p in outside.rglob("*")) == ["plan.md", "sess", "todo.md"]
    assert [p.relative_to(repo).as_posix() for p in (repo / ".cast").rglob("*.md") if not p.is_symlink()] == [
        f".cast/plans/{session}-3/plan.md"
    ]
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    results = [
        b
        for r in requests[1:]
        for b in r["messages"][-1]["content"]
        if b.get("type") == "tool_result" and "plan" in json.dumps(b)
    ]
    refused = [b for b in results if b.get("is_error")]
    assert len(refused) >= len(BAD_NAMES), results


@pytest.mark.parametrize(
    "claimed", ["../../../../outside/evil", "/tmp/evil", "x\x1b]0;t\x07y", "a/b", "..", "-exec-2", "x" * 400]
)
def test_a_plans_claimed_session_names_nothing_on_disk(repo, outside, tmp_path, claimed):
    """`session:` in a committed plan's front matter is the clone's text: the execute run is named
    after the plan's own directory instead, and the plan still runs."""
    commit_plan(repo, f"---\ntask: t\nsession: {json.dumps(claimed)}\n---\n# Plan\n\n- [ ] x\n", "plan")
    done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 'tick.jsonl', TICK)}", "execute", "2099-01-01-x")
    assert done.returncode == 0 and "1/1 items done" in done.stdout, done.stdout + done.stderr
    from cast.session_list import list_sessions

    assert [s.id for s in list_sessions(repo)] == ["2099-01-01-x-exec"]
    assert sorted(p.name for p in outside.rglob("*")) == ["plan.md", "sess", "todo.md"] and not Path("/tmp/evil-exec").exists()


def test_a_plan_of_megabytes_is_never_read(repo, tmp_path):
    """No plan cast writes is over 1 MB; one of megabytes committed beside the others would make
    every `cast plans` (and the REPL's start) parse all of it."""
    plan = repo / ".cast" / "plans" / "2099-01-01-huge" / "plan.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Plan\n" + "- [ ] one more step\n" * 300_000)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "plan")
    listed = invoke_cast(repo, "plans", "--all")
    assert listed.returncode == 0 and "huge" not in listed.stdout, listed.stdout
    for command in (["execute", "2099-01-01-huge"], ["verify", "2099-01-01-huge"], ["plans", "archive", "2099-01-01-huge"]):
        done = invoke_cast(repo, "--model", f"script:{write_script(tmp_path / 's.jsonl', TICK)}", *command)
        assert done.returncode == 2 and "larger than any plan" in done.stderr, (command, done.stdout, done.stderr)
    assert plan.is_file()
