"""Waiting for the human: the inputs a flow waits for, and how it waits.

In the Prefect UI each wait shows its description (the AI's latest message) above a form built
from the input's fields. A run started from a deployment suspends, so no process is held while the
human thinks; a run started in a process pauses. Each wait is keyed by the state of the project's
files, so a flow that re-enters after a suspension or a crash meets the same wait again and gets
the input it was sent, exactly once.
"""

from __future__ import annotations

from typing import Literal, TypeVar

from prefect import pause_flow_run, runtime, suspend_flow_run
from prefect.input import RunInput

from thoughtforge.core import Project, read_chat

HUMAN_WAIT_SECONDS = 30 * 24 * 3600


class ChatInput(RunInput):
    """A turn in Phases 1–2: a message, an action, or both."""

    message: str = ""
    action: Literal["send", "distill", "realign", "confirm"] = "send"


class HaltDecision(RunInput):
    """The project halted: continue it, accept the deliverable as it is, or stop for good."""

    action: Literal["resume", "override", "terminate"] = "resume"


class StuckDecision(RunInput):
    """The builder is stuck on a decision only the human can make: answer it, or stop."""

    action: Literal["provide_input", "terminate"] = "provide_input"
    message: str = ""


InputT = TypeVar("InputT", bound=RunInput)


def wait_for_human(input_type: type[InputT], description: str, key: str) -> InputT:
    """Block until the human answers; `key` must change once the answer has been applied."""
    form = input_type.with_initial_data(description=description)
    if runtime.deployment.id:
        return suspend_flow_run(wait_for_input=form, key=key, timeout=HUMAN_WAIT_SECONDS)
    return pause_flow_run(wait_for_input=form, key=key, timeout=HUMAN_WAIT_SECONDS)


# Prefect accepts only lowercase letters, digits and dashes in the keys below.


def halt_key(project: Project) -> str:
    """Unique per halt and per refused decision (a refusal is answered in the chat)."""
    stamp = int(project.status().updated_at.timestamp() * 1_000_000)
    return f"halt-{stamp}-{len(read_chat(project.dir))}"


def chat_key(project: Project) -> str:
    """Unique per chat turn: applying a turn always appends to `chat_history.json`."""
    phase = project.status().phase.value.replace("_", "-")
    return f"chat-{phase}-{len(read_chat(project.dir))}"


def halt_prompt(reason: str) -> str:
    """The form's description for a halt decision: the reason, then what each action does."""
    return (
        f"### The project halted\n\n{reason}\n\n"
        "- **resume**: continue (a polish loop goes on with the next iteration)\n"
        "- **override**: accept the deliverable as it is (project done)\n"
        "- **terminate**: stop this project for good\n"
    )
