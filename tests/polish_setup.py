"""Projects prepared by hand for Phase 4, and scripted reviewers that produce given counts."""

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
from thoughtforge.core.state import read_status, write_status
from thoughtforge.models import DeliverableType, Phase

MEETS = {
    1: "The budget stays under 15k: each vendor is capped.",
    2: "A rain plan exists: the barn is booked as the fallback.",
}
"""What sections 1 and 2 say that meets the two criteria of `CONSTRAINTS`."""
PLAN = (
    "# Wedding plan\n\n"
    + "".join(
        f"## Section {n}\n\n| Objective | Plan | Assessment |\n| --- | --- | --- |\n"
        f"| Goal {n} | Steps for {n} | Check {n} |\n\n" + (f"{MEETS[n]}\n\n" if n in MEETS else "")
        for n in range(1, 6)
    ).rstrip()
    + "\n"
)
CONSTRAINTS = "## Acceptance Criteria\n- Budget stays under 15k\n- Rain plan exists\n"
EVIDENCE = [
    {"criterion": 1, "section": "Section 1", "quote": "The budget stays under 15k"},
    {"criterion": 2, "section": "Section 2", "quote": "A rain plan exists"},
]
"""An honest reviewer's evidence for `CONSTRAINTS` in `PLAN`: each passage is there."""
ECHO_FIX: dict[str, Any] = {
    "echo_after": "Plan:\n\n",
    "append": "\nRevised in iteration {iteration}.\n",
}
"""A fixer that changes the plan a little at every iteration (one that returns it as it was is
an idle fixer, which the loop halts: `UNCHANGED_FIX`)."""
UNCHANGED_FIX: dict[str, Any] = {"echo_after": "Plan:\n\n"}


def polishing_project(config: Config, plan: str = PLAN, constraints: str = CONSTRAINTS) -> Project:
    project = create_project(config, brain_dump=BRAIN_DUMP)
    (project.docs_dir / "plan.md").write_text(plan)
    (project.docs_dir / "constraints.md").write_text(constraints)
    status = read_status(project.dir).model_copy(
        update={
            "phase": Phase.POLISHING,
            "deliverable_type": DeliverableType.PLAN,
            "project_name": "Wedding",
        }
    )
    write_status(project.dir, status)
    commit(project.dir, "Phase 3 complete")
    return project


def review(
    critical: int = 0,
    medium: int = 0,
    minor: int = 0,
    tag: str = "same",
    located: bool = False,
    evidence: list[dict[str, Any]] | None = None,
) -> str:
    """A review JSON with the given counts; issues with different tags do not match each other.
    `located` issues name a section ("Section 2"): only a fix that changes it addresses them;
    the others are addressed by any change. Its evidence is `EVIDENCE` unless given."""
    issues = [
        {
            "severity": severity,
            "description": " ".join([tag] * 6) + f" {severity} {k}",
            "location": f"Section {k % 5 + 1}" if located else "",
            "recommendation": "Make it concrete",
        }
        for severity, count in (("critical", critical), ("medium", medium), ("minor", minor))
        for k in range(count)
    ]
    return json.dumps({"issues": issues, "evidence": EVIDENCE if evidence is None else evidence})


def write_script(
    path: Path, reviews: dict[int | str, str], fix: dict[str, Any] | None = None
) -> Path:
    steps = {
        "plan-review": {"by_iteration": {k: {"text": v} for k, v in reviews.items()}},
        "plan-fix": fix or ECHO_FIX,
    }
    path.write_text(yaml.safe_dump({"steps": steps}))
    return path


def calls(project: Project) -> dict[str, int]:
    path = project.dir / ".scripted-agent" / "calls.json"
    return json.loads(path.read_text()) if path.exists() else {}


def every_section_fix(iterations: int = 12) -> dict[str, Any]:
    """A fixer that rewrites a line in every section at every iteration, differently each time:
    every finding's place changes."""
    return {"by_iteration": {n: {"text": revised_everywhere(n)} for n in range(1, iterations + 1)}}


def revised_everywhere(n: int) -> str:
    text = PLAN
    for k in range(1, 6):
        text = text.replace(f"Steps for {k}", f"Steps for {k}, revision {n}")
    return text
