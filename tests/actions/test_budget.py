"""`thoughtforge budget`'s one call: the spend as it stands, after a change of the project's own
budget (warned when already used up), after the budget is dropped, or after usage.json is made
again from the project log."""

from __future__ import annotations

import pytest

from thoughtforge.actions.budget import spend_and_budget
from thoughtforge.config import Config
from thoughtforge.core.creation import create_project
from thoughtforge.core.project import Project


@pytest.fixture
def project(config: Config) -> Project:
    return create_project(config, brain_dump="x")


def test_set_then_cleared_then_as_it_stands(config: Config, project: Project) -> None:
    summary, warning = spend_and_budget(config, project, 2.5)
    assert (summary.own_budget, summary.budget.max_usd, warning) == (True, 2.5, None)

    kept, _ = spend_and_budget(config, project)
    assert (kept.own_budget, kept.budget.max_usd) == (True, 2.5)

    cleared, _ = spend_and_budget(config, project, clear=True)
    assert cleared.own_budget is False


def test_a_corrupt_ledger_is_named_then_rebuilt_from_the_log(
    config: Config, project: Project
) -> None:
    spend_and_budget(config, project, 2.5)
    usage = project.dir / "usage.json"
    usage.write_text("{not json")
    assert spend_and_budget(config, project)[0].error

    rebuilt, warning = spend_and_budget(config, project, rebuilt=True)

    assert rebuilt.error is None and warning is None
    assert (project.dir / "usage.json.corrupt").read_text() == "{not json"
