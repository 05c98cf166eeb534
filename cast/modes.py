"""Plan and execute: each mode is a tool set plus a prompt section. Switching mode swaps both;
the prefix within one mode never changes, so prompt caching keeps hitting."""
from __future__ import annotations

from dataclasses import dataclass

from cast.tools.base import Tool
from cast.tools.edit import EDIT_FILE, WRITE_FILE
from cast.tools.files import GREP, LIST_FILES, READ_FILE
from cast.tools.plan import WRITE_PLAN
from cast.tools.shell import EXECUTE_BASH, PLAN_BASH
from cast.tools.tasks import UPDATE_TASK
from cast.workspace import Workspace


@dataclass(frozen=True)
class Mode:
    name: str
    tools: tuple[Tool, ...]
    prompt: str


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
Do not write code changes yourself. After write_plan, reply with a two-line summary."""

EXECUTE_PROMPT = """\
# Mode: execute
You carry out the plan's checklist. Work through the remaining items in order. For each: call
update_task(id, "in_progress"), do the work with the tools, verify it (run the test or command the
plan names), then update_task(id, "done"). If an item cannot be done, update_task(id, "blocked", note)
and say why. Edit files only after reading them. When every item is done, reply with a short summary
of what changed and how it was verified."""


PLAN = Mode("plan", (READ_FILE, LIST_FILES, GREP, PLAN_BASH, WRITE_PLAN), PLAN_PROMPT)
EXECUTE = Mode("execute", (READ_FILE, LIST_FILES, GREP, EXECUTE_BASH, EDIT_FILE, WRITE_FILE, UPDATE_TASK), EXECUTE_PROMPT)
MODES = {mode.name: mode for mode in (PLAN, EXECUTE)}


def system_prompt(mode: Mode, workspace: Workspace) -> str:
    """The stable prefix: no timestamps, nothing that changes between steps of one mode."""
    parts = [BASE_PROMPT, mode.prompt]
    instructions = workspace.instructions()
    if instructions:
        parts.append("# Project instructions (AGENTS.md)\n" + instructions)
    return "\n\n".join(parts)
