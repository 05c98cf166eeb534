"""Terminal output is text: what the model writes, what a file or a command holds, what a plan's
front matter or a session's metadata says never reaches the terminal as a control sequence. OSC 52
(write the clipboard), OSC 0 (set the window title) and CSI 2J (clear the screen) are sent through
each sink: a one-shot run on a pseudo-terminal (the model's text, a tool label), the REPL's
scrollback, live area and Ctrl+O, `cast plans`, `cast sessions`, `cast doctor` and an error.
What is asserted: no ESC, BEL or C1 byte reaches the output other than cast's own styling."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pexpect
from conftest import cast_env, run_cast, write_script

from cast.agent import events as ev
from cast.text import terminal_safe

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "repl"))
from replkit import harness  # noqa: E402, F401  (a fixture: the REPL in-process)

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
OSC0 = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
HOSTILE = f"a{OSC52}b{OSC0}c{CLEAR}d\x9b31m\u202eevil"
OWN = re.compile(r"\x1b\[[0-9;]*m|\x1b\[2K|\x1b\[\?25[lh]|\r")  # cast's styling, its status-row erase, the cursor


def raw_controls(output: str) -> list[str]:
    """Control characters left once cast's own styling is removed (newlines and tabs are text)."""
    rest = OWN.sub("", output)
    return sorted({c for c in rest if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c == "\u202e"})


def test_terminal_safe_shows_every_control_and_keeps_text():
    assert terminal_safe(HOSTILE) == "a^[]52;c;cHduZWQ=^Gb^[]0;pwned^Gc^[[2Jd\\x9b31m\\u202eevil"
    assert terminal_safe("line\n\tindented\r\n") == "line\n\tindented\r\n" and raw_controls(terminal_safe(HOSTILE)) == []


def test_cast_diff_on_a_terminal_colours_a_diff_made_safe(capsys):
    from cast.text import colored_diff

    colored_diff(f"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+{HOSTILE}\n")
    shown = capsys.readouterr().out
    assert f"\x1b[32m+{terminal_safe(HOSTILE)}\x1b[0m" in shown and raw_controls(shown) == []


def test_one_shot_run_on_a_terminal_shows_model_text_and_tool_labels_as_text(repo, tmp_path):
    (repo / f"x{OSC0}.py").write_text(f"print('{CLEAR}')\n")
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"text": f"Look: {HOSTILE}", "tool_uses": [{"name": "read_file", "input": {"path": f"x{OSC0}.py"}}]},
            {"text": f"Done {OSC52}."},
        ],
    )
    child = pexpect.spawn(
        sys.executable,
        ["-m", "cast", "--model", f"script:{script}", "plan", "look"],
        cwd=str(repo),
        env=cast_env(TERM="xterm-256color"),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(pexpect.EOF)
    output = child.before
    assert "^[]52;c;cHduZWQ=" in output and "read_file x^[]0;pwned" in output, output  # shown, visibly
    assert raw_controls(output) == [], output


def test_a_running_commands_live_line_on_a_terminal_and_in_json_is_text(repo, tmp_path):
    """What a command prints while it runs reaches the one-shot's status row and `--json`'s
    command_output events; neither carries a control sequence or a bidi override."""
    hostile = HOSTILE.replace("\x9b", "")  # printf would send C1 as is: kept apart below
    noisy = f"printf 'x\\302\\233y\\n'; sleep 1; printf '%s\\n' '{hostile}'; sleep 1\n"  # the last line is always shown
    (repo / "noisy.sh").write_text(noisy)
    plan = repo / ".cast" / "plans" / "2026-01-01-noisy" / "plan.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text("# Plan: noisy\n\n- [ ] Run it\n")
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "bash", "input": {"command": "bash noisy.sh"}}]},
            {"tool_uses": [{"name": "update_task", "input": {"id": 1, "status": "done", "note": "ran"}}]},
            {"text": "Done."},
            {"text": '{"complete": true, "missing": [], "claims": []}'},
        ],
    )
    shell = f"exec {sys.executable} -m cast --model script:{script} execute --yes < /dev/null"  # stdout a terminal, stdin not
    child = pexpect.spawn("bash", ["-c", shell], cwd=str(repo), env=cast_env(TERM="xterm-256color"), encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    assert "│ " in child.before and raw_controls(child.before) == [], child.before  # the status row was drawn, as text
    plan.write_text("# Plan: noisy\n\n- [ ] Run it\n")  # to run it again
    done = run_cast(repo, "--json", "--model", f"script:{script}", "execute", "--yes")
    lines = [e["line"] for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "command_output"]
    assert lines and all(raw_controls(line) == [] for line in lines) and lines[-1].endswith("evil"), lines


def test_streamed_pieces_that_split_an_escape_stay_harmless():
    from rich.console import Console

    from cast.ui.oneshot import Printer

    buffer = io.StringIO()
    printer = Printer(Console(file=buffer, force_terminal=True, width=100, highlight=False, markup=False))
    for piece in ("Hello \x1b", "]52;c;cHduZWQ=", "\x07 and \x1b[", "2J done"):
        printer(ev.TextDelta(piece))
    printer(ev.ToolCall("t1", "bash", {"command": f"echo {OSC0}"}))
    printer(ev.ToolResult("t1", "bash", True, "exit_code=0", OSC52))
    assert raw_controls(buffer.getvalue()) == [] and "bash echo ^[]0;pwned" in buffer.getvalue()


def test_repl_scrollback_live_area_and_ctrl_o_show_text(harness, repo):
    from cast.repl.screen import Screen

    command = "printf '\\033]52;c;cHduZWQ=\\007\\033]0;pwned\\007\\033[2J%s\\n' out"
    h = harness([{"text": f"Now: {HOSTILE}", "tool_uses": [{"name": "bash", "input": {"command": command}}]}, {"text": "ok"}])
    h.send("look\r")
    h.wait_text("ok")
    h.wait_idle()
    h.send("\x0f")  # Ctrl+O: the last command's whole output
    h.wait_text("── output of bash")
    h.wait_text("out")
    shown = h.out.text()
    assert "^[]52;c;cHduZWQ=" in shown and "Now: a^[]52" in shown, shown
    assert raw_controls(shown) == [], shown
    renderer = h.repl.renderer
    renderer.handle(ev.TextDelta(f"still streaming {OSC52} {CLEAR}"))  # no newline yet: the live area
    live = Screen(io.StringIO(), color=True, width=lambda: 100).render(renderer.live())
    assert "still streaming ^[]52" in live and raw_controls(live) == [], live


def test_cast_plans_and_sessions_print_planted_metadata_as_text(repo, tmp_path):
    script = write_script(
        tmp_path / "s.jsonl",
        [
            {"tool_uses": [{"name": "write_plan", "input": {"name": "plan", "content": "# Plan: x\n\n- [ ] one\n"}}]},
            {"text": "ok"},
        ],
    )
    done = run_cast(repo, "--model", f"script:{script}", "plan", "x")
    plan = Path(done.stdout.strip().splitlines()[-1])
    text = plan.read_text()
    plan.write_text(text.replace("task: x", f"task: {HOSTILE}", 1))  # committed front matter
    from cast.session_list import list_sessions
    from cast.sessions import META, sessions_dir

    [session] = list_sessions(repo)
    meta_path = sessions_dir(repo) / session.id / META
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps(meta | {"task": HOSTILE, "status": f"done{OSC0}"}))
    plans = run_cast(repo, "plans")
    assert "a^[]52;c;cHduZWQ=" in plans.stdout and raw_controls(plans.stdout) == [], plans.stdout
    sessions = run_cast(repo, "sessions")
    assert "a^[]52;c;cHduZWQ=" in sessions.stdout and "done^[]0;pwned" in sessions.stdout
    assert raw_controls(sessions.stdout + sessions.stderr) == [], sessions.stdout


def test_cast_doctor_and_errors_quote_a_hostile_config_as_text(repo):
    (repo / ".cast").mkdir()
    (repo / ".cast" / "config.toml").write_text(json.dumps(f"k{OSC52}") + " = 1\n")  # an unknown key, named in errors
    doctor = run_cast(repo, "doctor")
    assert "unknown setting 'k^[]52;c;cHduZWQ=" in doctor.stdout, doctor.stdout
    assert raw_controls(doctor.stdout + doctor.stderr) == []
    failed = run_cast(repo, "--model", "script:none.jsonl", "plan", "x")
    assert failed.returncode == 2 and "unknown setting 'k^[]52" in failed.stderr and raw_controls(failed.stderr) == []
