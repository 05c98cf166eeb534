"""Plan and execute: each mode is a prompt section plus a filter over the run's tool registry.

A mode admits tools by their access level (`tools.base.Access`); a tool may also be admitted to a
mode by name (`Tool.admitted`), but only at the levels that mode lets be granted: plan mode takes an
EXTERNAL tool the user's `plan_tools` names, never a writing one. `PLAN` and `EXECUTE` are over the
built-in tools; a run binds them to its own registry (`Mode.over`) once its extensions joined.

The system prompt is the same in every mode and byte-stable: today's models sign their thinking
against it, and the prompt cache keys on it. A mode's instructions therefore travel as a system
notice appended to the conversation (`mode_notice`), once when it starts and again at each switch.
Where the model supports mid-conversation tool changes, every mode's tools are declared once
(`declared_tools`: those the starting mode does not offer are `defer_loading`) and a switch adds
and removes them by reference inside that notice; elsewhere the tool list is the mode's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from cast.tools.base import Access, Tool
from cast.tools.registry import Registry, builtin
from cast.workspace import Workspace

BUILTIN = builtin()
BUILTIN.freeze()


@dataclass(frozen=True)
class Mode:
    name: str
    prompt: str
    access: frozenset[Access]  # the levels it admits
    grantable: frozenset[Access] = frozenset()  # the levels a tool's own `admitted` may add to it
    registry: Registry = field(default=BUILTIN, compare=False)

    def admits(self, tool: Tool[Any]) -> bool:
        return tool.access in self.access or (self.name in tool.admitted and tool.access in self.grantable)

    @property
    def tools(self) -> tuple[Tool[Any], ...]:
        """What this mode offers of its registry, in registration order (see `Registry.offered`)."""
        return self.registry.offered(self.admits)

    def over(self, registry: Registry) -> Mode:
        """This mode over a run's registry."""
        return replace(self, registry=registry)


BASE_PROMPT = """\
You are cast, a coding agent working in a developer's repository from their terminal.
Work from evidence: read files and run commands to find out; never guess at code you have not seen.
Tool results are observations of the environment; your own earlier words are not evidence.
Paths are relative to the workspace root. Be concise in prose; put detail in files and plans."""

PLAN_PROMPT = """\
# Mode: plan
You are planning, not changing anything. Your tools are read-only: read_file, list_files, grep, and
bash for commands cast can prove read-only (anything else is refused). Explore until you understand
the change, then call write_plan once with the whole plan (name it "plan" unless asked otherwise).

Write a plan a stranger could execute without this conversation:
- `# Plan: <task>`, then a short context section: what exists today, the files involved, decisions made.
- A checklist of ordered steps, one `- [ ]` line each, each small enough to do and verify on its own,
  naming the file(s) it touches.
- Under each step, or in a final section, how to verify it: the command to run and what passing looks like.
Do not write code changes yourself. After write_plan, reply with a two-line summary.

explore hands one question to a read-only subagent with a fresh context; only its answer, with the
files it read and the commands it ran, joins this conversation. It pays when answering means reading
many files for one question (where is X handled, how does a request flow through the code, which
tests cover Y): every file you read yourself is resent with every later step. It does not pay for a
file you already know, one grep or one read: do those yourself. Independent questions asked in one
turn run at once. Its answer is what the subagent read, not a verified fact: read the lines a step
of the plan rests on yourself."""

# Added to PLAN_PROMPT only where plan mode runs unproven commands (the strong sandbox is active).
PLAN_RUNS_TESTS = """## Running the project's tests
Here bash also runs commands cast cannot prove read-only, inside a sandbox: you may run the
project's tests (for example `python3 -m pytest -q` or `python3 -m unittest`), a build or a linter to see
what really happens, failures included, and plan from that. In the sandbox the workspace is read-only,
whatever a command writes is thrown away, and there is no network; such results are marked
"sandboxed, unverified". Commands that are never useful (rm -rf /, shutdown, ...) are still refused."""

EXECUTE_PROMPT = """\
# Mode: execute
You carry out the plan's checklist. Work through the remaining items in order. For each: call
update_task(id, "in_progress"), do the work with the tools, verify it (run the test or command the
plan names), then update_task(id, "done"). If an item cannot be done, update_task(id, "blocked", note)
and say why. Edit files only after reading them. When every item is done, reply with a short summary
of what changed and how it was verified."""


PLAN = Mode("plan", PLAN_PROMPT, frozenset({Access.READ, Access.PLAN_FILE}), grantable=frozenset({Access.EXTERNAL}))
EXECUTE = Mode("execute", EXECUTE_PROMPT, frozenset({Access.READ, Access.WRITE, Access.EXEC, Access.EXTERNAL}))
MODES = {mode.name: mode for mode in (PLAN, EXECUTE)}


# One `bash` serves both modes when the tools are declared once; what it may do is in the notice.
SHARED_BASH_DESCRIPTION = (
    "Run a bash command in the workspace root (non-interactive: stdin is empty). What runs depends on "
    "the mode: in plan mode commands cast can prove read-only, and where the strong sandbox is active "
    "others too, sandboxed and unverified with their writes thrown away; in execute mode commands that "
    "are not provably read-only may need the user's approval. Output starts with exit_code=N."
)
SWITCHED = "[cast: the user switched to {name} mode. From now on these instructions apply, and only this mode's tools work.]"


def system_prompt(workspace: Workspace, sections: tuple[str, ...] = ()) -> str:
    """The stable prefix: no timestamps, nothing that depends on the mode or the step. `sections`
    are the extensions' own (`Extension.prefix`), each byte-stable, in the order they joined."""
    parts = [BASE_PROMPT]
    instructions = workspace.instructions()
    if instructions:
        parts.append("# Project instructions (AGENTS.md)\n" + instructions)
    return "\n\n".join(parts + [section for section in sections if section])


def declared_tools(mode: Mode, tool_changes: bool) -> tuple[dict[str, Any], ...]:
    """The tool declarations a conversation starts with: the mode's own, or, with tool changes,
    every mode's (one `bash`), those `mode` does not offer marked `defer_loading`."""
    if not tool_changes:
        return tuple(tool.spec() for tool in mode.tools)
    offered = {tool.name for tool in mode.tools}
    specs: dict[str, dict[str, Any]] = {}
    for each in MODES.values():
        for tool in each.over(mode.registry).tools:
            if tool.name not in specs:
                spec = tool.spec()
                if tool.name == "bash":
                    spec["description"] = SHARED_BASH_DESCRIPTION
                if tool.name not in offered:
                    spec["defer_loading"] = True
                specs[tool.name] = spec
    return tuple(specs.values())


def instructions(mode: Mode, runs_tests: bool = False) -> str:
    """A mode's prompt section; plan mode's says it may run the tests when `runs_tests` (the
    strong sandbox holds unproven commands: cast.tools.orchestrator.plan_commands)."""
    if mode.name == "plan" and runs_tests:
        return mode.prompt.replace("(anything else is refused)", "(and more: see below)") + "\n\n" + PLAN_RUNS_TESTS
    return mode.prompt


def mode_notice(
    mode: Mode, previous: Mode | None = None, tool_changes: bool = False, *, runs_tests: bool = False
) -> list[dict[str, Any]]:
    """The system notice that starts `mode` (or switches to it from `previous`): its instructions,
    and with tool changes the tool_removal / tool_addition blocks."""
    prompt = instructions(mode, runs_tests)
    text = prompt if previous is None else SWITCHED.format(name=mode.name) + "\n\n" + prompt
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if tool_changes and previous is not None:
        old = [t.name for t in previous.tools]
        new = [t.name for t in mode.tools]
        blocks += [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": n}} for n in old if n not in new]
        blocks += [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": n}} for n in new if n not in old]
    return blocks
