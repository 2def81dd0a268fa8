"""The example plugin `examples/plugins/checklist/`: a deliverable type that only a
`plugins.directory` defines goes through all four phases of the pipeline's run, with the scripted
agent answering each step, and nothing in ThoughtForge itself names it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import git
import pytest
import yaml

from tests.polish_setup import calls
from thoughtforge.config import load_config
from thoughtforge.core.build_progress import ProgressItem, read_build_progress
from thoughtforge.core.creation import create_project
from thoughtforge.core.state import read_status
from thoughtforge.flows.pipeline import pipeline_in_process
from thoughtforge.models import Phase

# Whole flows and CLI processes, minutes in all: CI runs them in its slow suite.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "plugins"

BRAIN_DUMP = (
    "Four days hut to hut in the Alps in July. One 40-litre rucksack, the huts have bedding. "
    "I always forget something: I want a list to tick off the evening before I leave."
)
DISTILLATION = """## Deliverable Type
Checklist — trip packing

## Objective
Pack for a four-day hiking trip in the Alps without forgetting anything.

## Assumptions
- Huts provide bedding.

## Constraints
- One 40-litre rucksack.

## Unknowns
None

## Open Questions
None
"""
PROPOSAL = """## Deliverable Overview
A packing checklist for a four-day hut-to-hut hike.

## Deliverable Structure
Clothing, Gear, Food and Documents, each a group of items.

## Key Decisions
- Group by what is packed together.

## Resolved Unknowns
None

## Dependencies
- None.

## Scope Boundaries
- Packing only; no route planning.

## Priorities
- Safety items first.

## Exclusions
- Do not flag wording style.

## Severity Definitions
- Critical: a safety item missing.
- Medium: an item that cannot be ticked off.
- Minor: wording.

## Acceptance Criteria
- Every group has at least one item.
- A first-aid kit and a rain jacket are on the list.
"""
BUILT = """# Alps hike packing

## Clothing
- [ ] Rain jacket
- [ ] Two merino shirts

## Gear
- [ ] Hiking poles
"""
FIXED = BUILT.replace("- [ ] Hiking poles", "- [ ] Hiking poles\n- [ ] First-aid kit")
MISSING_KIT = (
    '{"issues": [{"severity": "critical", "description": "No first-aid kit", '
    '"location": "Gear", "recommendation": "Add a first-aid kit"}]}'
)

CLEAN = json.dumps(
    {
        "issues": [],
        "evidence": [
            {"criterion": 1, "section": "Clothing", "quote": "Two merino shirts"},
            {"criterion": 1, "section": "Gear", "quote": "Hiking poles"},
            {"criterion": 2, "section": "Gear", "quote": "First-aid kit"},
            {"criterion": 2, "section": "Clothing", "quote": "Rain jacket"},
        ],
    }
)
"""The second review: each criterion met, in the checklist's own words."""


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps = {
        "brain-dump-intake": {"text": DISTILLATION},
        "spec-building": {"text": PROPOSAL},
        "checklist-build": [{"text": "- [ ] Rain jacket"}, {"text": BUILT}],
        "checklist-review": {
            "by_iteration": {1: {"text": MISSING_KIT}, "default": {"text": CLEAN}}
        },
        "checklist-fix": {"text": FIXED},
    }
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump({"steps": steps}))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(path))


@pytest.mark.usefixtures("script", "prefect_api_url")
def test_a_type_from_the_plugins_directory_runs_through_all_four_phases(
    write_config: Callable[..., Path],
) -> None:
    config_path = write_config(plugins={"directory": str(EXAMPLES)})
    project = create_project(load_config(config_path), brain_dump=BRAIN_DUMP)

    assert pipeline_in_process(project.id, config_path, auto_confirm=True) == "done"

    status = read_status(project.dir)
    assert (status.phase, status.deliverable_type) == (Phase.DONE, "checklist")
    assert (project.dir / "docs" / "checklist.md").read_text() == FIXED
    assert not (project.dir / "docs" / "plan.md").exists()
    progress = read_build_progress(project.dir)  # what the page shows, as the plugin reported it
    assert progress is not None
    assert progress.items == [
        ProgressItem(label="write the checklist", done=True, detail="3 items")
    ]
    assert "## Deliverable Type\n\nChecklist\n" in (project.dir / "docs/constraints.md").read_text()
    assert calls(project) == {
        "brain-dump-intake": 1,
        "spec-building": 1,
        "checklist-build": 2,  # the first answer held one item: re-asked once
        "checklist-review": 2,
        "checklist-fix": 1,
    }
    prompts = {p.name.split("-", 1)[1]: p.read_text() for p in _prompts(project.dir)}
    assert "- `Checklist`: a list of concrete items to tick off" in prompts["brain-dump-intake.md"]
    assert "in the order they are worked through" in prompts["spec-building.md"]
    assert "- [ ] Hiking poles" in prompts["checklist-review.md"]
    subjects = [c.summary for c in git.Repo(project.dir).iter_commits()][::-1]
    assert "Phase 3 complete: checklist built" in subjects
    assert subjects[-1] == "Done"


def test_no_module_of_thoughtforge_names_the_example_type() -> None:
    package = REPO / "thoughtforge"
    naming = [
        str(path.relative_to(REPO))
        for path in package.rglob("*")
        if path.is_file()
        and path.suffix in {".py", ".md", ".yaml", ".hbs", ".html"}
        and "checklist" in path.read_text(encoding="utf-8").lower()
    ]
    assert naming == []


def _prompts(project_dir: Path) -> list[Path]:
    return sorted((project_dir / ".scripted-agent" / "prompts").glob("*.md"))
