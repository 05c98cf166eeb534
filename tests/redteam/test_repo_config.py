"""A cloned repository's `.cast/config.toml` is data, not authority: what could loosen security
(the sandbox, the network, allow rules, the model) counts only in a workspace the user trusted;
what tightens always counts; a `script:` model never comes from a repository. End to end through
`cast execute`, `cast trust`, `cast doctor` and the REPL's question, asserting on markers outside
the tree and on the requests the user's model was sent."""

from __future__ import annotations

import json
import sys
from dataclasses import fields
from pathlib import Path

import pexpect
import pytest
from conftest import cast_env, run_cast, write_script
from fakeapi import fake_api, text, tool_use  # noqa: F401  (fake_api is a fixture)

from cast.config import LOOSENING, Config, config_dir, load
from cast.trust import decision, record

VERDICT = {"text": json.dumps({"complete": True, "missing": [], "claims": []})}


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    import cast.config

    monkeypatch.setattr(cast.config, "_warned", set())


def user_config(text: str) -> None:
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "config.toml").write_text(text)


def repo_config(root: Path, text: str) -> None:
    (root / ".cast").mkdir(exist_ok=True)
    (root / ".cast" / "config.toml").write_text(text)


def with_plan(root: Path) -> Path:
    path = root / ".cast" / "plans" / "s1" / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ntask: Check\nsession: s1\n---\n# Plan: Check\n\n- [ ] Run the check\n")
    return path


def test_every_setting_has_a_rule_and_an_unknown_key_loosens():
    assert {f.name for f in fields(Config)} <= set(LOOSENING)
    from cast.config import _loosens

    assert _loosens("some_future_url", {}, "https://example.com")  # fail closed


def test_repository_config_may_tighten_but_not_loosen_until_trusted(repo, capsys):
    user_config('sandbox = "workspace-write"\nallow = ["make test*", "npm test*"]\n')
    repo_config(repo, 'sandbox = "off"\nsandbox_network = true\nallow = ["python3 evil.py*"]\nmax_steps = 9\n')
    config = load(repo)
    assert (config.sandbox, config.sandbox_network, config.allow) == ("workspace-write", False, ("make test*", "npm test*"))
    assert config.max_steps == 9  # a limit is not a security setting
    load(repo)
    err = capsys.readouterr().err
    assert err.count("ignored allow, sandbox, sandbox_network") == 1 and "cast trust" in err  # once per run
    repo_config(repo, 'allow = ["npm test*"]\nsandbox_network = false\nmodel = "claude-sonnet-5-5"\n')
    assert load(repo).allow == ("npm test*",)  # fewer rules, the model in force: nothing loosens
    user_config('plan_commands = "proven"\n')
    repo_config(repo, 'plan_commands = "sandboxed"\nsandbox_env_passthrough = ["AWS_*"]\n')
    assert (load(repo).plan_commands, load(repo).sandbox_env_passthrough) == ("proven", ())
    user_config("")
    repo_config(repo, 'plan_commands = "proven"\n')
    assert load(repo).plan_commands == "proven"  # fewer commands run: counts untrusted
    repo_config(repo, 'sandbox = "workspace-write"\n')
    assert load(repo).sandbox == "workspace-write"  # stricter than the default: counts untrusted
    repo_config(repo, 'sandbox = "off"\nallow = ["python3 evil.py*"]\nmodel = "script:.cast/m.jsonl"\n')
    record(repo, trusted=True)
    config = load(repo)
    assert config.allow == ("python3 evil.py*",) and config.model != "script:.cast/m.jsonl"  # script: never


def test_repository_sandbox_off_does_not_cancel_the_users_workspace_write(layer, repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    user_config('sandbox = "workspace-write"\n')
    repo_config(repo, 'sandbox = "off"\n')
    with_plan(repo)
    script = write_script(
        tmp_path / "s.jsonl",
        [{"tool_uses": [{"name": "bash", "input": {"command": f"touch {outside}/x"}}]}, {"text": "Done."}, VERDICT],
    )
    done = run_cast(
        repo, "--model", f"script:{script}", "execute", "--yes", CAST_SANDBOX=layer if layer != "bubblewrap" else "auto"
    )
    assert "touch" in done.stdout, done.stdout + done.stderr
    assert not (outside / "x").exists(), done.stdout
    assert "ignored sandbox" in done.stderr


def test_repository_model_and_allow_run_nothing_until_trusted_and_script_never(repo, fake_api, tmp_path):
    """The user's key is set, no --yes, no terminal: the repository's script is never the model and
    its allow rule runs nothing; once trusted, the allow rule counts and the script still does not."""
    fake_api.serve_models()
    marker = tmp_path / "ran-evil"
    (repo / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('pwned')\n")
    (repo / ".cast").mkdir()
    write_script(repo / ".cast" / "m.jsonl", [{"tool_uses": [{"name": "bash", "input": {"command": "python3 evil.py"}}]}])
    repo_config(repo, 'model = "script:.cast/m.jsonl"\nallow = ["python3 evil.py*"]\n')
    with_plan(repo)
    env = {"ANTHROPIC_BASE_URL": fake_api.url, "ANTHROPIC_API_KEY": "test-key"}

    def attempt() -> str:
        fake_api.reply(tool_use("toolu_1", "bash", {"command": "python3 evil.py"}))
        fake_api.reply(text("Stopping here."))
        fake_api.reply(text(VERDICT["text"]))
        done = run_cast(repo, "execute", **env)
        assert "Traceback" not in done.stderr, done.stderr
        return done.stderr

    err = attempt()
    assert not marker.exists()
    assert "ignored allow" in err and "ignored model: a script: model never comes from a repository" in err
    first = [b for b in fake_api.bodies() if b.get("tools")]
    assert first and first[0]["model"] == "claude-sonnet-5-5"  # the user's model, through the user's key
    assert decision(repo) is None  # no terminal: nothing asked, nothing recorded

    trusted = run_cast(repo, "trust")
    assert trusted.returncode == 0 and "trusted" in trusted.stdout and decision(repo) == "trusted"
    err = attempt()
    assert marker.read_text() == "pwned"  # the allow rule counts now: the user said so
    assert "ignored allow" not in err and "ignored model: a script: model" in err
    assert all(b["model"] == "claude-sonnet-5-5" for b in fake_api.bodies() if b.get("tools"))

    from cast.trust import change, status

    assert "no longer trusted" in change(repo, trusted=False) and decision(repo) == "untrusted"  # cast trust --revoke
    ok, detail = status(repo)
    assert not ok and "not trusted" in detail and "allow" in detail


def test_a_one_shot_plan_on_a_terminal_asks_and_a_yes_is_kept(repo, tmp_path):
    repo_config(repo, "sandbox_network = true\n")
    script = write_script(tmp_path / "s.jsonl", [{"text": "Nothing to plan."}])
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cast", "--model", f"script:{script}", "plan", "x"],
        cwd=str(repo),
        env=cast_env(TERM="xterm-256color"),
        encoding="utf-8",
        timeout=40,
    )
    child.expect(r"sets sandbox_network, a setting that loosens")
    child.expect(r"Trust it\? \[y\]es / \[N\]o: ")
    child.send("y\r")
    child.expect(pexpect.EOF)
    assert decision(repo) == "trusted" and "ignored sandbox_network" not in child.before


def test_the_repl_asks_once_on_a_terminal_and_remembers(repo):
    repo_config(repo, 'allow = ["python3 evil.py*"]\n')

    def spawn() -> pexpect.spawn:
        env = cast_env(TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
        return pexpect.spawn(
            sys.executable, ["-m", "cast", "--model", "script:none.jsonl"], cwd=str(repo), env=env, encoding="utf-8", timeout=40
        )

    child = spawn()
    child.expect(r"sets allow, a setting that loosens")
    child.expect(r"Trust it\? \[y\]es / \[N\]o: ")
    child.send("n\r")
    child.expect("plan ›")
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    assert decision(repo) == "untrusted"
    child = spawn()
    child.expect("plan ›")  # asked once: the answer is remembered
    assert "Trust it?" not in child.before
    child.send("/exit\r")
    child.expect(pexpect.EOF)


def test_the_ignored_settings_warning_is_said_once_per_set_of_keys_not_on_every_command(repo, capsys, monkeypatch):
    from cast import config as config_module

    repo_config(repo, 'allow = ["python3 evil.py*"]\n')
    load(repo)
    assert "ignored allow" in capsys.readouterr().err
    monkeypatch.setattr(config_module, "_warned", set())  # the next command: a new process
    load(repo)
    assert "ignored allow" not in capsys.readouterr().err
    repo_config(repo, 'allow = ["python3 evil.py*"]\nsandbox_network = true\n')  # another set of keys: said again
    monkeypatch.setattr(config_module, "_warned", set())
    config = load(repo)
    assert "ignored allow, sandbox_network" in capsys.readouterr().err
    assert config.allow == () and not config.sandbox_network  # ignored all the same, said or not
