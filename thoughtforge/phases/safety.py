"""Phase 3–4 actions as operations that a deliverable type's safety rules allow or refuse.

Safety is enforced by the orchestrator, not by prompting: before it writes a file or calls an agent
it classifies the action here and passes the `Operation` to the rules of the project's deliverable
type, its plugin's `safety` module, whose `validate(operation)` raises `SafetyViolation` to
refuse (a plugin without one is refused at start). Actions that need no classification (running
the test suite, a shell command, a package install) are declared by the code that performs them,
e.g. `Operation(kind=OperationKind.RUN_TESTS)`.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from thoughtforge.adapters.agents.launch import grants_of
from thoughtforge.config import AgentSpec, CommandAgentSpec, Config
from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.errors import ThoughtForgeError


class OperationKind(StrEnum):
    WRITE_DOC = "write_doc"
    WRITE_STATE = "write_state"
    WRITE_SOURCE = "write_source"
    RUN_SHELL = "run_shell"
    INSTALL_PACKAGE = "install_package"
    RUN_TESTS = "run_tests"
    INVOKE_AGENT = "invoke_agent"
    INVOKE_AGENT_WITH_TOOLS = "invoke_agent_with_tools"


class Operation(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: OperationKind
    # relative to the project directory; absolute only when the target lies outside it
    path: PurePosixPath | None = None
    agent_flags: tuple[str, ...] = ()
    grants: tuple[str, ...] = ()
    """What the agent's command and flags grant, in words (`adapters.agents.launch`)."""

    @property
    def escapes_project(self) -> bool:
        return self.path is not None and (self.path.is_absolute() or ".." in self.path.parts)


class SafetyViolation(ThoughtForgeError):
    """An operation the deliverable type forbids; the orchestrator does not perform it."""


@runtime_checkable
class SafetyRules(Protocol):
    """What a plugin's `safety` module provides; a module with this function satisfies it."""

    def validate(self, operation: Operation) -> None: ...


DOCS_DIR = "docs"
# Operational state lives at the project root (the spec names these files, plus `review.json`, the
# latest Phase 4 review). Any other file there belongs to the code deliverable.
STATE_FILES = frozenset(
    {
        *("status.json", "polish_state.json", "chat_history.json", "code_build.json"),
        *("polish_log.md", "review.json", "build_progress.json"),
    }
)


def check_agent(config: Config, agent: str, rules: SafetyRules) -> None:
    """Refuse an agent whose configured flags would let it act, before it is ever called."""
    rules.validate(classify_agent_call(config.agent(agent)))


def write_checked(project_dir: Path, relpath: str, text: str, rules: SafetyRules) -> None:
    """Every Phase 3–4 write passes the deliverable type's rules before it touches the disk."""
    rules.validate(classify_write(project_dir, Path(relpath)))
    write_text_atomic(project_dir / relpath, text)


def classify_write(project_dir: Path, target: Path) -> Operation:
    """`target` is absolute or relative to the project; symlinks are followed to where they lead."""
    root = project_dir.resolve()
    resolved = (root / target).resolve()
    path = PurePosixPath(
        resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else resolved
    )
    return Operation(kind=_write_kind(path), path=path)


def classify_agent_call(spec: AgentSpec) -> Operation:
    """An agent call is tool-using when its flags grant tools, whatever the prompt says; an HTTP
    agent only answers in text."""
    if not isinstance(spec, CommandAgentSpec):
        return Operation(kind=OperationKind.INVOKE_AGENT)
    granted = grants_of(spec)
    kind = OperationKind.INVOKE_AGENT_WITH_TOOLS if granted else OperationKind.INVOKE_AGENT
    return Operation(kind=kind, agent_flags=tuple(spec.flags), grants=tuple(granted))


def refuse_path_outside_project(operation: Operation) -> None:
    """Every deliverable type keeps writes inside the project; each `validate` calls this."""
    if operation.escapes_project:
        raise SafetyViolation(
            f"refused {operation.kind} of '{operation.path}': the path leads outside the project "
            "directory"
        )


def _write_kind(path: PurePosixPath) -> OperationKind:
    if len(path.parts) > 1 and path.parts[0] == DOCS_DIR and path.suffix.lower() == ".md":
        return OperationKind.WRITE_DOC
    if len(path.parts) == 1 and path.name in STATE_FILES:
        return OperationKind.WRITE_STATE
    return OperationKind.WRITE_SOURCE
