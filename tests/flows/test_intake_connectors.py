"""Phase 1 step 3 in a real Prefect run: the links in the brain dump and the configured default
pages are pulled (each a task, transient failures retried) before the distillation reads the
resources; a page that cannot be pulled is told in the chat and the phase goes on."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from prefect import flow, get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId
from prefect.runtime import flow_run

from tests.conftest import BRAIN_DUMP
from tests.fake_notion import FakeNotion
from tests.flows.test_pipeline import DEMO_STEPS
from thoughtforge.config import Config, load_config
from thoughtforge.core import git_repo
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import open_project
from thoughtforge.core.state import read_status
from thoughtforge.flows.intake import run_intake
from thoughtforge.models import Phase
from thoughtforge.tasks import connector_pull

GONE = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def notion() -> Iterator[FakeNotion]:
    with FakeNotion() as fake:
        yield fake


@flow(name="phase-one-under-test")
def phase_one(project_id: str, config_path: str) -> str:
    """Phase 1 alone, as the pipeline runs it; returns this run's id."""
    config = load_config(Path(config_path))
    run_intake(open_project(config, project_id), config, auto_confirm=True)
    return str(flow_run.id)


def test_links_and_default_pages_are_pulled_before_the_distillation(
    tmp_path: Path,
    write_config: Callable[..., Path],
    notion: FakeNotion,
    prefect_api_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connector_pull, "RETRY_DELAY_SECONDS", [0.0, 0.0])
    guests = notion.add_page("Guest list", markdown="- Ana from Lisbon\n- Bo from Oslo")
    venue = notion.add_page("Venue", markdown="The barn holds 60.")
    notion.fail("pages.retrieve", 500, times=1, target=guests)  # transient: the task retries
    settings = {
        "enabled": True,
        "token": notion.token,
        "base_url": notion.url,
        "default_pages": [venue],
    }
    config_path = write_config(connectors={"notion": settings})
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"steps": DEMO_STEPS}))
    monkeypatch.setenv("THOUGHTFORGE_SCRIPT", str(script))
    config: Config = load_config(config_path)
    links = (
        f"\n\nThe guests: https://www.notion.so/acme/Guests-{guests.replace('-', '')}."
        f"\nOld notes: https://www.notion.so/acme/Old-{GONE}\n"
    )
    project = create_project(config, brain_dump=BRAIN_DUMP + links)

    run_id = phase_one(project.id, str(config_path))

    assert read_status(project.dir).phase is Phase.SPEC_BUILDING
    assert sorted(p.name for p in project.resources_dir.glob("*.md")) == [
        "Guest list.md",
        "Venue.md",
    ]
    prompt = next((project.dir / ".scripted-agent" / "prompts").glob("*brain-dump-intake.md"))
    assert "Ana from Lisbon" in prompt.read_text() and "The barn holds 60." in prompt.read_text()
    history = git_repo._repo(project.dir).git.log("-p", "--all")  # the Phase 1 chat is in it
    assert "Pulled into resources/: Venue.md, Guest list.md." in history
    assert f"Notion could not pull https://www.notion.so/acme/Old-{GONE}: not found" in history
    assert len(notion.requests_to("pages.retrieve")) == 4  # venue, guests twice, the gone one
    with get_client(sync_client=True) as client:
        [run] = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run_id]))
        )
        names = [t.name for t in client.read_task_runs() if t.flow_run_id == run.id]
    assert sum(name.startswith("pull notion: ") for name in names) == 3
    assert notion.token not in history + (project.dir / "thoughtforge.log").read_text()
