"""What one agent call is for (`AgentCall`, which becomes the agent's THOUGHTFORGE_* environment),
what one attempt of it gave (`Attempt`), and the one interface every kind of agent meets
(`AgentKind`: a command, plain or one of the CLIs in `kinds`, and an HTTP endpoint): shared by
them and the retry loop over them (`invoke`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from thoughtforge.config import AgentsConfig
from thoughtforge.errors import AttemptFailure, FailureKind


class Attempt(BaseModel):
    """One attempt of a call: the reply, or how it failed (`refusal`: its tools were refused,
    which no retry changes)."""

    reply: str = ""
    failure: AttemptFailure | None = None
    refusal: str = ""
    inside: list[str] = []
    """What happened inside the agent's CLI, told to the person: its retries, its refusals."""


def failed(kind: FailureKind, reason: str) -> Attempt:
    return Attempt(failure=AttemptFailure(kind=kind, reason=reason))


class AgentCall(BaseModel):
    """What an invocation is for; becomes the THOUGHTFORGE_* environment of the agent."""

    step: str
    project_dir: Path
    phase: str
    iteration: int | None = None
    reply_schema: dict[str, Any] | None = None
    """The JSON schema a JSON step's reply must fit: an HTTP agent sends it (structured output)."""
    sections: tuple[str, ...] = ()
    """The `##` sections a Markdown step's reply must have (sent as a grammar where it helps)."""
    reask: int = 0
    """How many replies to this question were already refused (an HTTP agent varies more)."""
    images: tuple[Path, ...] = ()
    """Images that go with the prompt: as content parts to an HTTP agent that can see
    (`image_parts`); a command agent finds their paths in the prompt instead."""
    test_command: tuple[str, ...] | None = None
    """Set on a step that edits the project's files and runs its tests (code build and fix):
    an agent CLI's profile then grants exactly that. Every other step is text only."""

    @property
    def writes(self) -> bool:
        return self.test_command is not None

    def environment(self) -> dict[str, str]:
        env = {
            "THOUGHTFORGE_STEP": self.step,
            "THOUGHTFORGE_PROJECT_DIR": str(self.project_dir),
            "THOUGHTFORGE_PHASE": self.phase,
        }
        if self.iteration is not None:
            env["THOUGHTFORGE_ITERATION"] = str(self.iteration)
        return env


class AgentKind(Protocol):
    """One kind of agent, as the retry loop (`invoke`) calls it."""

    def overhead_tokens(self) -> int:
        """What the agent adds to every prompt of its own (a CLI's system prompt and tools)."""
        ...

    def attempt(self, prompt: str, call: AgentCall, limits: AgentsConfig, number: int) -> Attempt:
        """One attempt of the call (`number` counts from 1), bounded by `limits`."""
        ...
