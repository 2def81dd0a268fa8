"""The inputs a paused flow waits for. The Prefect UI renders them as forms."""

from __future__ import annotations

from typing import Literal

from prefect.input import RunInput


class HaltDecision(RunInput):
    """The polish loop halted: continue it, accept the deliverable as it is, or stop for good."""

    action: Literal["resume", "override", "terminate"] = "resume"


def halt_prompt(reason: str) -> str:
    return (
        f"### The polish loop halted\n\n{reason}\n\n"
        "- **resume**: run more iterations, numbering continues\n"
        "- **override**: accept the deliverable as it is (project done)\n"
        "- **terminate**: stop this project for good\n"
    )
