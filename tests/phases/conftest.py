"""Phase 1 helpers: a distillation in the six sections, and the scripted intake agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project
from thoughtforge.core.state import ChatMessage, append_chat
from thoughtforge.core.transition import transition
from thoughtforge.models import Phase

Script = Callable[..., Path]


def distillation(
    objective: str = "Plan a small countryside wedding for 60 guests. It should feel relaxed.",
    deliverable_type: str = "Plan — event",
    questions: int = 1,
) -> str:
    asked = "\n".join(f"- Question {n}?" for n in range(1, questions + 1)) or "None"
    return (
        f"## Deliverable Type\n{deliverable_type}\n\n"
        f"## Objective\n{objective}\n\n"
        "## Assumptions\n- Guests travel by car.\n\n"
        "## Constraints\n- Budget 15k\n- Vegetarian menu\n\n"
        "## Unknowns\n- Exact date in June\n\n"
        f"## Open Questions\n{asked}\n"
    )


def step_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> Script:
    """Answers for `step`, in call order (the last one repeats), for the scripted agent."""

    def use(*answers: str | dict[str, Any]) -> Path:
        entries = [{"text": a} if isinstance(a, str) else a for a in answers]
        path = tmp_path / "script.yaml"
        path.write_text(yaml.safe_dump({"steps": {step: entries}}))
        monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))
        return path

    return use


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Script:
    return step_script(tmp_path, monkeypatch, "brain-dump-intake")


def prompts(project: Project) -> list[str]:
    folder = project.dir / ".scripted-agent" / "prompts"
    return [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))]


def under_review(config: Config, brain_dump: str = BRAIN_DUMP) -> Project:
    """A project whose distillation waits for the person's review (Phase 1's Confirm)."""
    project = create_project(config, brain_dump=brain_dump)
    transition(project, Phase.DISTILLING)
    append_chat(project.dir, ChatMessage(role="ai", content=distillation(), phase=Phase.DISTILLING))
    transition(project, Phase.HUMAN_REVIEW)
    return project
