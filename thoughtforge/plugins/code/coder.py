"""Who does a code step's work: the coding agent called directly (the default), or a Vibe Kanban
task attempt when `vibekanban.code_execution` is on. Either way a failure is `AgentFailure`, which
the builder counts like any agent failure (stuck rules, undo, retry)."""

from __future__ import annotations

from collections.abc import Callable

from thoughtforge.adapters.agents import AgentCall, invoke_agent
from thoughtforge.adapters.kanban.attempts import VibeKanbanCoder
from thoughtforge.config import Config

Coder = Callable[[str, AgentCall], str]
"""Given the prompt and what the call is for, the agent's answer; `AgentFailure` on failure."""


def coder_for(
    config: Config, agent: str, test_command: Callable[[], list[str]], attempts: int = 1
) -> Coder:
    """A direct call makes `attempts` tries; a task attempt retries as Vibe Kanban's adapter does.
    A coding agent writes files, so the builder asks for one try and undoes a failed one itself.
    Its call names the project's test command: the agent may edit files and run that."""
    if config.vibekanban.code_execution:
        return VibeKanbanCoder(config).run

    def direct(prompt: str, call: AgentCall) -> str:
        granted = call.model_copy(update={"test_command": tuple(test_command())})
        return invoke_agent(config, agent, prompt, granted, attempts)

    return direct
