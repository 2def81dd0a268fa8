"""Code mode writes and tests software: source writes, test runs and coding agents with tools.

The orchestrator calls `validate` before every Phase 3–4 action of a code project. The coding
agent works inside the project directory (its working directory, and the only one ThoughtForge
gives it); ThoughtForge itself never writes outside it or into its git internals, and never
runs a shell command or installs a package on the agent's behalf.
"""

from __future__ import annotations

from thoughtforge.phases.safety import (
    Operation,
    OperationKind,
    SafetyViolation,
    refuse_path_outside_project,
)

ALLOWED = frozenset(
    {
        OperationKind.WRITE_DOC,
        OperationKind.WRITE_STATE,
        OperationKind.WRITE_SOURCE,
        OperationKind.RUN_TESTS,
        OperationKind.INVOKE_AGENT,
        OperationKind.INVOKE_AGENT_WITH_TOOLS,
    }
)

_WHY_REFUSED = {
    OperationKind.RUN_SHELL: "ThoughtForge runs only the project's test command in code mode",
    OperationKind.INSTALL_PACKAGE: (
        "ThoughtForge never installs packages itself; the coding agent declares dependencies"
    ),
}


def validate(operation: Operation) -> None:
    """Refuse what code mode does not allow, saying why."""
    refuse_path_outside_project(operation)
    if operation.path is not None and operation.path.parts[:1] == (".git",):
        raise SafetyViolation(f"refused {operation.kind} of '{operation.path}': git's own files")
    if operation.kind not in ALLOWED:
        raise SafetyViolation(f"refused {operation.kind}: {_WHY_REFUSED[operation.kind]}")
