"""The command line contract: real commands only, fast paths stay light, clear errors."""

from __future__ import annotations

import subprocess
import sys

from cast.modes import system_prompt
from cast.workspace import AGENTS_CAP, Workspace, find_root


def run(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "cast", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_version():
    done = run("--version")
    assert done.returncode == 0 and done.stdout.startswith("cast ")


def test_help_lists_exactly_the_commands_that_exist():
    from cast.cli import app

    done = run("--help")
    assert done.returncode == 0
    listed = {line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line.strip()}
    registered = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
    assert listed == registered
    assert {"plan", "execute", "plans", "check-command"} <= listed


def test_help_and_version_do_not_import_heavy_modules():
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['cast', '--help']\n"
        "try:\n    runpy.run_module('cast', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "heavy = [m for m in ('anthropic', 'prompt_toolkit', 'tree_sitter', 'rich.markdown') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "HEAVY=" in done.stderr and done.stderr.split("HEAVY=")[1].strip() == ""


def test_importing_the_package_loads_nothing_else():
    """Every command imports `cast` first: it must cost nothing beyond itself (no cast module, no
    third-party package), which an empty `cast/__init__.py` guarantees and any import in it breaks."""
    probe = "import sys; before = set(sys.modules); import cast; print(sorted(set(sys.modules) - before))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "['cast']"


def test_plan_without_api_key_exits_2_and_names_the_variable(repo):
    done = run("plan", "do a thing", cwd=repo)
    assert done.returncode == 2 and "ANTHROPIC_API_KEY" in done.stderr
    assert not (repo / ".cast" / "plans").exists() or not list((repo / ".cast" / "plans").glob("*/*.md"))


def test_unreadable_script_is_a_usage_error(repo):
    done = run("--model", "script:/nonexistent.jsonl", "plan", "x", cwd=repo)
    assert done.returncode == 2 and "cannot read script" in done.stderr


def test_bad_config_is_a_usage_error(repo):
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text("max_stepz = 3\n")
    done = run("--model", "script:/dev/null", "plan", "x", cwd=repo)
    assert done.returncode == 2 and "unknown setting 'max_stepz'" in done.stderr


def test_root_is_the_git_top_level_else_cwd(repo, tmp_path):
    (repo / "sub").mkdir()
    assert find_root(repo / "sub") == repo.resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert find_root(plain) == plain.resolve()


def test_agents_md_from_global_root_and_down_to_cwd_in_order(repo, tmp_path, monkeypatch):
    from cast.config import config_dir

    config_dir().mkdir(parents=True)
    (config_dir() / "AGENTS.md").write_text("GLOBAL RULE")
    (repo / "AGENTS.md").write_text("ROOT RULE")
    (repo / "pkg" / "deep").mkdir(parents=True)
    (repo / "pkg" / "AGENTS.md").write_text("PKG RULE")
    (repo / "pkg" / "deep" / "AGENTS.md").write_text("DEEP RULE")
    text = Workspace(repo, cwd=repo / "pkg").instructions()
    assert text.index("GLOBAL RULE") < text.index("ROOT RULE") < text.index("PKG RULE")
    assert "DEEP RULE" not in text


def test_agents_md_is_capped(repo):
    (repo / "AGENTS.md").write_text("x" * (AGENTS_CAP * 2))
    text = Workspace(repo).instructions()
    assert len(text) < AGENTS_CAP + 200 and "[truncated: AGENTS.md content is capped" in text


def test_system_prompt_is_byte_stable(repo):
    (repo / "AGENTS.md").write_text("Use tabs.")
    first = system_prompt(Workspace(repo))
    second = system_prompt(Workspace(repo))
    assert first == second and "Use tabs." in first


def test_check_command_prints_the_verdict_and_exits_0_or_1():
    allowed = run("check-command", "git log --oneline -5 | head -3")
    assert (allowed.returncode, allowed.stdout) == (0, "allowed\n")
    blocked = run("check-command", "sort -uo out.txt in.txt")
    assert blocked.returncode == 1 and blocked.stdout.startswith("blocked: ") and "-o" in blocked.stdout


def test_check_command_takes_the_command_unquoted_as_its_words(tmp_path):
    """`cast check-command ls -la` checks `ls -la` (its -l is no option of cast's); words the shell
    split are quoted back, so a quoted argument keeps its space; a single argument is taken as is."""
    from conftest import invoke_cast

    listed = invoke_cast(tmp_path, "check-command", "ls", "-la")
    assert (listed.returncode, listed.stdout) == (0, "allowed\n")
    removed = invoke_cast(tmp_path, "check-command", "rm", "-rf", "/")
    assert (removed.returncode, removed.stdout) == (1, "blocked: rm: deletes files\n")
    sort = invoke_cast(tmp_path, "check-command", "sort", "-o", "out.txt", "in.txt")
    assert sort.returncode == 1 and "-o" in sort.stdout
    spaced = invoke_cast(tmp_path, "check-command", "grep", "a; rm x", "f.txt")
    assert (spaced.returncode, spaced.stdout) == (0, "allowed\n")  # one quoted word, not `grep a; rm x f.txt`
    assert invoke_cast(tmp_path, "check-command", "grep a; rm x").returncode == 1


def test_each_commands_help_names_its_arguments_as_the_readme_does(tmp_path):
    """`cast plan [TASK]`, `cast execute [PLAN]`, ...: the usage line of --help and the README's
    commands table write an argument the same way."""
    from conftest import invoke_cast

    for command, argument in (
        ("plan", "[TASK]"),
        ("execute", "[PLAN]"),
        ("resume", "[SESSION]"),
        ("verify", "[PLAN]"),
        ("undo", "[ITEM]"),
        ("diff", "[ITEM|REV]"),
        ("check-command", "COMMAND"),
    ):
        usage = invoke_cast(tmp_path, command, "--help").stdout.splitlines()[0]
        assert f" {command} [OPTIONS] " in usage and argument in usage, usage


def test_the_bare_repl_is_recognised_only_in_its_exact_forms():
    from cast.main import bare_repl

    assert bare_repl([]) is not None
    got = bare_repl(["--model", "script:a.jsonl", "--max-steps=7"])
    assert got is not None and (got.model, got.max_steps) == ("script:a.jsonl", 7)
    assert bare_repl(["--model=claude-sonnet-5-5"]).model == "claude-sonnet-5-5"
    for argv in (
        ["plan"],
        ["--help"],
        ["--json"],
        ["--model"],
        ["--model", "--max-steps", "3"],
        ["--max-steps", "0"],
        ["--max-steps", "two"],
        ["--model", "a", "--model", "b"],
        ["--model", "a", "plan", "task"],
    ):
        assert bare_repl(argv) is None, argv  # typer parses it, and owns the error messages


def test_the_bare_repl_starts_without_the_cli_framework_or_a_run():
    probe = (
        "import sys, runpy\n"
        "import cast.repl.app as app\n"
        "def seen(options, *rest):\n"
        "    loaded = [m for m in ('typer', 'pydantic', 'cast.runs', 'anthropic', 'tree_sitter') if m in sys.modules]\n"
        "    sys.stderr.write('LOADED=' + ','.join(loaded) + ' MODEL=' + str(options.model))\n"
        "    return 0\n"
        "app.run_repl = seen\n"
        "sys.argv = ['cast', '--model', 'script:x.jsonl']\n"
        "runpy.run_module('cast', run_name='__main__')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "LOADED= MODEL=script:x.jsonl" in done.stderr, done.stderr


def test_the_repl_reaches_its_prompt_without_the_tools_or_a_run(tmp_path):
    """Everything the REPL does before its first prompt (the trust and hook questions, the model
    check) happens without pydantic (the tools' arguments) or the run machinery: those load in the
    warm-up after the prompt. Where stdin is not a terminal the plain front-end takes the prompt's place."""
    probe = (
        "import sys, runpy\n"
        "import cast.repl.plain as plain\n"
        "def seen(options, *rest, **kwargs):\n"
        "    loaded = [m for m in ('typer', 'pydantic', 'cast.tools.base', 'cast.runs', 'anthropic') if m in sys.modules]\n"
        "    sys.stderr.write('LOADED=' + ','.join(loaded) + ';')\n"
        "    return 0\n"
        "plain.run_plain = seen\n"
        "sys.argv = ['cast', '--model', 'script:x.jsonl']\n"
        "runpy.run_module('cast', run_name='__main__')\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL
    )
    assert "LOADED=;" in done.stderr, done.stderr


def test_a_bad_option_value_still_gets_the_cli_message():
    done = run("--max-steps", "0")
    assert done.returncode == 2 and "--max-steps" in done.stderr
