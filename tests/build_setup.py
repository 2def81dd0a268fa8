"""Projects prepared by hand for Phase 3 (intent, spec and constraints written directly), and
scripted plan builders that answer section by section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import BRAIN_DUMP
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.git_repo import commit
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_status, write_chat, write_status
from thoughtforge.models import DeliverableType, Phase
from thoughtforge.plugins.plan.template import PlanTemplate, Section, load_template
from thoughtforge.plugins.plan.template_selection import TEMPLATES_DIR

GENERIC: PlanTemplate = load_template(TEMPLATES_DIR / "generic.hbs")
SECTIONS: list[Section] = GENERIC.sections()

SPEC = """# Spec: Garden Shed

## Deliverable Overview

A plan to build a small garden shed over four weekends.

## Deliverable Structure

Summary, goals, approach, timeline, resources, risks and review, each as an OPA table.

## Key Decisions

- Timber frame on a gravel base.

## Resolved Unknowns

None

## Dependencies

- Dry weather on the build weekends; the timber delivery in week 1.

## Scope Boundaries

- Shed only; no electricity.
"""
CONSTRAINTS = "# Constraints: Garden Shed\n\n## Acceptance Criteria\n\n- Budget under 1200 euros\n"


def intent(plan_type: str) -> str:
    return (
        f"# Intent: Garden Shed\n\n## Deliverable Type\n\n{plan_type}\n\n## Objective\n\n"
        "Build a garden shed.\n\n## Assumptions\n\nNone\n\n## Constraints\n\nNone\n\n"
        "## Unknowns\n\nNone\n\n## Open Questions\n\nNone\n"
    )


def building_project(
    config: Config, plan_type: str = "Plan — generic", spec: str = SPEC, agent: str | None = None
) -> Project:
    """A plan project as Phase 2 leaves it."""
    docs = {"docs/intent.md": intent(plan_type), "docs/spec.md": spec}
    return locked_project(
        config,
        {**docs, "docs/constraints.md": CONSTRAINTS},
        DeliverableType.PLAN,
        "Garden Shed",
        agent,
    )


def locked_project(
    config: Config,
    files: dict[str, str],
    deliverable_type: DeliverableType,
    name: str,
    agent: str | None = None,
) -> Project:
    """A project as Phase 2 leaves it: `files` (paths in the project) written and committed with
    the locked docs, the chat cleared, in `building`."""
    project = create_project(config, brain_dump=BRAIN_DUMP, agent=agent)
    for relpath, text in files.items():
        (project.dir / relpath).write_text(text)
    status = read_status(project.dir).model_copy(
        update={"phase": Phase.BUILDING, "deliverable_type": deliverable_type, "project_name": name}
    )
    write_status(project.dir, status)
    write_chat(project.dir, [])
    commit(project.dir, "Lock spec.md and constraints.md")
    return project


def content(slot_id: str) -> str:
    """Decided content that a plan about a garden shed could hold."""
    return (
        f"Decided content for {slot_id}: order timber in week 1 and build on weekend 2, "
        "the budget under 1200 euros."
    )


def answer(slots: dict[str, str], stuck: bool = False, reason: str | None = None) -> str:
    return json.dumps({"slots": slots, "stuck": stuck, "stuck_reason": reason})


def section_answer(number: int, **overrides: str) -> str:
    """The answer for section `number` (1-based), every slot filled unless overridden."""
    slots = {slot.id: content(slot.id) for slot in SECTIONS[number - 1].slots}
    return answer({**slots, **overrides})


def every_section() -> list[str]:
    return [section_answer(n) for n in range(1, len(SECTIONS) + 1)]


def write_script(path: Path, build: list[str], **steps: Any) -> Path:
    """Plan-build answers in call order (the last repeats); a reviewer that finds no issues."""
    script = {
        "steps": {
            "plan-build": [{"text": text} for text in build],
            "plan-review": {"text": '{"issues": []}', "evidence": "Plan:\n\n"},
            "plan-fix": {"echo_after": "Plan:\n\n"},
            **steps,
        }
    }
    path.write_text(yaml.safe_dump(script))
    return path


def step_label(number: int) -> str:
    return f"build section {number}/{len(SECTIONS)}: {SECTIONS[number - 1].heading}"


def build_prompts(project: Project) -> list[str]:
    folder = project.dir / ".scripted-agent" / "prompts"
    return [p.read_text() for p in sorted(folder.glob("*plan-build.md"))]


def asked_slots(prompt: str) -> list[str]:
    """The slot ids a build prompt asks for (its "Slots to fill now" list)."""
    listing = prompt.split("Slots to fill now:", 1)[1].split("Specification:", 1)[0]
    return [line.split("`")[1] for line in listing.splitlines() if line.startswith("- `")]
