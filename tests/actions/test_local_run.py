"""How a run in the command line's own process left the project, as `continue` tells it: done,
with the deliverable and a revision's rebuild that changed nothing; halted, why and from where;
and the run that suspended beside a new one, which only a recorded wait makes worth asking
Prefect about."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.build_setup import building_project
from thoughtforge.actions.local_run import run_ending, suspended_run
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.revisions import Revision, Revisions, write_revisions
from thoughtforge.core.state import read_status, write_status
from thoughtforge.core.waiting import Waiting, record_wait
from thoughtforge.models import HaltReason, Phase
from thoughtforge.stack import api as api_module
from thoughtforge.stack.api import PrefectApi, WaitingRun


def test_a_done_project_ends_with_its_deliverable_and_an_unchanged_revision_named(
    config: Config,
) -> None:
    project = building_project(config)
    write_status(project.dir, read_status(project.dir).model_copy(update={"phase": Phase.DONE}))
    ending = run_ending(config, project)
    assert ending.deliverable == project.dir / "docs" / "plan.md"
    assert ending.unchanged_revision is None

    revision = Revision(number=2, change="The budget is 12k.", built=True, unchanged=True)
    write_revisions(project.dir, Revisions(revisions=[revision]))
    assert run_ending(config, project).unchanged_revision == 2


def test_a_halted_project_ends_with_why_and_where(config: Config) -> None:
    project = create_project(config, brain_dump="A wedding for 60 guests.")
    halted = read_status(project.dir).model_copy(
        update={
            "phase": Phase.HALTED,
            "halt_reason": HaltReason.ANSWER_UNUSABLE,
            "halted_from": Phase.DISTILLING,
        }
    )
    write_status(project.dir, halted)
    ending = run_ending(config, project)
    assert (ending.phase, ending.halt_reason, ending.halted_from, ending.deliverable) == (
        Phase.HALTED,
        HaltReason.ANSWER_UNUSABLE,
        Phase.DISTILLING,
        None,
    )


class SuspendedPrefect(PrefectApi):
    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9/api")
        self.asked = 0

    def waiting_run(self, project_id: str, flow_run_id: str | None = None) -> WaitingRun | None:
        self.asked += 1
        return WaitingRun(id="r", name="calm-otter", state_name="Suspended", schema_key=None)


def test_a_suspended_run_is_asked_for_only_when_a_wait_is_recorded(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = create_project(config, brain_dump="A wedding for 60 guests.")
    prefect = SuspendedPrefect()
    monkeypatch.setattr(api_module, "PrefectApi", lambda url: prefect)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    assert suspended_run(config, project) is None
    assert prefect.asked == 0  # no wait recorded: Prefect is not asked

    wait = Waiting(
        key="k",
        kind="review_form",
        phase=Phase.HUMAN_REVIEW,
        chat_length=1,
        since=datetime.now(UTC),
    )
    record_wait(project.dir, wait)
    found = suspended_run(config, project)
    assert found is not None and found.where == "flow run calm-otter"
    assert found.verbs == wait.verbs
