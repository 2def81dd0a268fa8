"""Plan mode drafts documents and nothing else: it never builds, runs, installs or executes code.

The orchestrator calls `validate` before every Phase 3–4 action of a plan project, so this holds
whatever an agent's answer asks for.
"""

from __future__ import annotations

from thoughtforge.phases.safety import (
    Operation,
    OperationKind,
    SafetyViolation,
    refuse_path_outside_project,
)

ALLOWED = frozenset(
    {OperationKind.WRITE_DOC, OperationKind.WRITE_STATE, OperationKind.INVOKE_AGENT}
)

_WHY_REFUSED = {
    OperationKind.WRITE_SOURCE: (
        "plan mode writes only .md documents under docs/ and the project's state files"
    ),
    OperationKind.RUN_SHELL: "plan mode never runs shell commands",
    OperationKind.INSTALL_PACKAGE: "plan mode never installs packages",
    OperationKind.RUN_TESTS: "plan mode never runs tests; the review loop assesses the plan",
    OperationKind.INVOKE_AGENT_WITH_TOOLS: (
        "plan mode calls agents for text only; remove these flags from the agent in config.yaml, "
        "or give plan projects an agent without them"
    ),
}


def validate(operation: Operation) -> None:
    """Refuse every operation plan mode does not allow, saying why."""
    refuse_path_outside_project(operation)
    if operation.kind in ALLOWED:
        return
    raise SafetyViolation(f"refused {_describe(operation)}: {_WHY_REFUSED[operation.kind]}")


def _describe(operation: Operation) -> str:
    if operation.path is not None:
        return f"{operation.kind} of '{operation.path}'"
    granted = operation.grants
    return f"{operation.kind} ({', '.join(granted)})" if granted else str(operation.kind)
