"""Hooks end to end: `cast execute --yes` and `cast plan` with a scripted model and real hooks
run by bash, judged by the tree, what the model was sent and what the user was told."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit_plan, invoke_cast, write_script

from cast.config import config_dir

DONE = {"text": '{"complete": true, "missing": [], "claims": []}'}
PLAN = {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: x\n\n- [ ] Do it\n"}}]}
NO_RM = """python3 -c '
import json, sys
call = json.load(sys.stdin)
if call["tool"] == "bash" and call["input"]["command"].startswith("rm "):
    sys.exit("rm is not allowed here: move files to trash/ instead") if False else (print("rm is not allowed here: move files to trash/ instead", file=sys.stderr), sys.exit(2))
'"""


def user_hooks(text: str) -> None:
    path = config_dir() / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(repo: Path, tmp_path: Path, turns: list[dict], *args: str) -> tuple[object, list[dict]]:
    script = write_script(tmp_path / f"script{len(list(tmp_path.glob('script*')))}.jsonl", turns)
    record = tmp_path / "requests.jsonl"
    record.unlink(missing_ok=True)
    done = invoke_cast(repo, "--model", f"script:{script}", *args, record=record)
    return done, [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def results(request: dict) -> list[str]:
    found = []
    for message in request["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                found.append(content if isinstance(content, str) else "".join(part.get("text", "") for part in content))
    return found


def item_turns(command: str, *more: dict) -> list[dict]:
    return [
        {"tool_uses": [{"name": "bash", "input": {"command": command}}]},
        *more,
        {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "checked by hand"}}]},
        {"text": "Done."},
        DONE,
    ]


def test_a_pre_tool_use_hook_blocks_rm_in_execute_mode_with_yes(repo, tmp_path):
    user_hooks(f'[[hooks]]\nevent = "pre_tool_use"\nmatcher = "bash"\ncommand = """{NO_RM}"""\n')
    commit_plan(repo, "# Plan: tidy\n\n- [ ] Remove app.py\n")
    done, requests = run(
        repo, tmp_path, item_turns("rm app.py", {"tool_uses": [{"name": "bash", "input": {"command": "ls"}}]}), "execute", "--yes"
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert (repo / "app.py").is_file()  # --yes would have run it: the hook refused it first
    refused = results(requests[1])[-1]
    assert "a pre_tool_use hook (user hooks[0]) refused this call" in refused and "move files to trash/ instead" in refused
    assert "README.md" in results(requests[2])[-1]  # other commands ran


def test_post_tool_use_output_is_appended_to_the_observation(repo, tmp_path):
    hook = 'python3 -c \'import json,sys; d=json.load(sys.stdin); print("formatted after", d["tool"], d["session"] != "", d["mode"])\''
    user_hooks(f'[[hooks]]\nevent = "post_tool_use"\nmatcher = "ba*"\ncommand = """{hook}"""\n')
    commit_plan(repo, "# Plan: look\n\n- [ ] List files\n")
    done, requests = run(repo, tmp_path, item_turns("ls"), "execute", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    seen = results(requests[1])[-1]
    assert "README.md" in seen and seen.endswith("[post_tool_use hook user hooks[0]]\nformatted after bash True execute")
    assert "formatted after" not in results(requests[2])[-1]  # update_task is not matched


def test_a_stop_hook_sends_the_model_back_once(repo, tmp_path):
    counter = tmp_path / "stops"
    user_hooks(f'[[hooks]]\nevent = "stop"\ncommand = "echo x >> {counter}; echo \'name the tests to run\' >&2; exit 2"\n')
    done, requests = run(repo, tmp_path, [PLAN, {"text": "Planned."}, {"text": "Planned; tests: pytest -q."}], "plan", "x")
    assert done.returncode == 0, done.stderr + done.stdout  # a second objection would need a fourth turn
    assert len(requests) == 3 and counter.read_text() == "x\n"
    guidance = json.dumps(requests[2]["messages"][-1])
    assert "a stop hook (user hooks[0]) objected" in guidance and "name the tests to run" in guidance
    assert "a hook sent the model back to work" in done.stdout + done.stderr


def test_a_hook_that_hangs_is_killed_at_its_timeout_and_the_run_goes_on(repo, tmp_path):
    user_hooks('[[hooks]]\nevent = "pre_tool_use"\ncommand = "sleep 300"\ntimeout = 2\n')
    done, requests = run(
        repo,
        tmp_path,
        [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}, PLAN, {"text": "Planned."}],
        "plan",
        "x",
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "return a + b" in results(requests[1])[-1]
    assert "hook user hooks[0] (pre_tool_use) ran past its timeout of 2s and was killed" in done.stdout + done.stderr


def test_a_pre_tool_use_hook_tightens_plan_mode(repo, tmp_path):
    user_hooks('[[hooks]]\nevent = "pre_tool_use"\nmatcher = "read_file"\ncommand = "echo not in plan mode >&2; exit 2"\n')
    done, requests = run(
        repo,
        tmp_path,
        [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}, PLAN, {"text": "Planned."}],
        "plan",
        "x",
    )
    assert done.returncode == 0, done.stderr
    assert "not in plan mode" in results(requests[1])[-1] and "return a + b" not in json.dumps(requests)


def test_a_user_prompt_hook_can_stop_a_prompt(repo, tmp_path):
    user_hooks(
        '[[hooks]]\nevent = "user_prompt"\ncommand = "grep -q deploy && { echo no deploys on Fridays >&2; exit 2; }; exit 0"\n'
    )
    done, requests = run(repo, tmp_path, [PLAN, {"text": "Planned."}], "plan", "deploy it")
    assert requests == [] and "no deploys on Fridays" in done.stdout + done.stderr
    assert done.returncode != 0


def test_a_projects_hook_never_runs_untrusted_and_runs_once_trusted_and_approved(repo, tmp_path):
    from cast.trust import record

    marker = tmp_path / "ran"
    (repo / ".cast").mkdir()
    config = repo / ".cast" / "config.toml"
    config.write_text(f'[[hooks]]\nevent = "pre_tool_use"\ncommand = "echo ran >> {marker}"\n')
    turns = [{"tool_uses": [{"name": "read_file", "input": {"path": "app.py"}}]}, PLAN, {"text": "Planned."}]
    untrusted, _ = run(repo, tmp_path, turns, "plan", "x")
    assert untrusted.returncode == 0 and not marker.exists()
    assert "ignored hooks" in untrusted.stderr and "trust" in untrusted.stdout + untrusted.stderr
    record(repo, trusted=True)
    unapproved, _ = run(repo, tmp_path, turns, "plan", "y")
    assert unapproved.returncode == 0 and not marker.exists()
    assert "skipped .cast/config.toml's hooks[0]: not approved in this workspace" in unapproved.stdout + unapproved.stderr
    assert invoke_cast(repo, "hooks", "approve").returncode == 0
    approved, _ = run(repo, tmp_path, turns, "plan", "z")
    assert approved.returncode == 0 and marker.read_text() == "ran\nran\n"  # read_file and write_plan
    config.write_text(f'[[hooks]]\nevent = "pre_tool_use"\ncommand = "echo ran >> {marker}; echo changed"\n')
    changed, _ = run(repo, tmp_path, turns, "plan", "w")
    assert changed.returncode == 0 and marker.read_text() == "ran\nran\n"  # changed since approved: asked again


def test_hooks_see_and_may_refuse_an_explores_calls_too(repo, tmp_path):
    seen = tmp_path / "seen"
    hook = f'python3 -c \'import json,sys; t=json.load(sys.stdin)["tool"]; print(t, file=open("{seen}", "a")); sys.exit("no bash here" if False else (2 if t == "bash" else 0))\''
    child = write_script(
        tmp_path / "child.jsonl",
        [{"tool_uses": [{"name": "bash", "input": {"command": "git log --oneline -1"}}]}, {"text": "add is in app.py."}],
    )
    user_hooks(f'explore_model = "script:{child}"\n[[hooks]]\nevent = "pre_tool_use"\ncommand = """{hook}"""\n')
    parent = [{"tool_uses": [{"name": "explore", "input": {"task": "where is add?"}}]}, PLAN, {"text": "Planned."}]
    done, _ = run(repo, tmp_path, parent, "--json", "plan", "x")
    assert done.returncode == 0, done.stderr + done.stdout
    assert seen.read_text().split() == ["explore", "bash", "write_plan"]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    refused = next(r for r in rows if r["type"] == "tool_result" and r.get("parent_tool_use_id") and r["name"] == "bash")
    assert "a pre_tool_use hook (user hooks[0]) refused this call" in json.dumps(refused)


def test_a_pre_tool_use_hook_refuses_an_mcp_call_that_yes_would_run(repo, tmp_path):
    from mcpkit import server_table

    note = repo / "note.txt"
    hook = 'echo "no MCP writes" >&2; exit 2'
    commit_plan(repo, "# Plan: note\n\n- [ ] Write a note\n")
    turns = item_turns("ls", {"tool_uses": [{"name": "mcp__t__write_note", "input": {"path": str(note), "text": "hi"}}]})
    turns = [turns[1], *turns[2:]]  # the MCP call, then the item's end
    user_hooks(server_table("t") + f'\n[[hooks]]\nevent = "pre_tool_use"\nmatcher = "mcp__*"\ncommand = """{hook}"""\n')
    done, requests = run(repo, tmp_path, turns, "execute", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert not note.exists() and "no MCP writes" in results(requests[1])[-1]
    (repo / ".cast" / "plans" / "2099-01-01-x" / "plan.md").write_text("# Plan: note\n\n- [ ] Write a note\n")
    user_hooks(server_table("t"))  # the same run without the hook: --yes runs the call
    done, _ = run(repo, tmp_path, turns, "execute", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert note.read_text() == "hi"
