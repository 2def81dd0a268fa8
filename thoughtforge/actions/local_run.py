"""A run in the command line's own process (`continue`, `polish`, `revise`, an answer that goes
on), as `actions` reads around it; the run itself is the command's (`flows`).

Before it runs: the project claimed for it (`claimed_run`, the start claim the page's Start takes
too), so nothing moves the project while Prefect loads; a run that suspended waiting for the
person found (`suspended_run`: it holds no lock, having no process, so only Prefect can say it
still waits); the server it runs on (`running_server`). After it: how it ended (`run_ending`),
which the command tells.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.core.course_claim import Claim as Claim
from thoughtforge.core.project import Project
from thoughtforge.core.project_view import read_view
from thoughtforge.core.revisions import read_revisions
from thoughtforge.core.run_start import StartClaim, claimed_start
from thoughtforge.core.state import read_status
from thoughtforge.models import HaltReason, Phase
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.stack.api import ask_prefect, find_api


class SuspendedRun(BaseModel):
    """A run of the project that asked the person and suspended: a second run beside it would
    put two runs on one project."""

    where: str
    """Where it waits: the page its wait names, else its flow run's name."""
    verbs: str
    """The `thoughtforge` verbs that answer its wait."""


class RunEnding(BaseModel):
    """Where a run left the project."""

    phase: Phase
    halt_reason: HaltReason | None = None
    halted_from: Phase | None = None
    deliverable: Path | None = None
    """Where the deliverable is, once the project is done."""
    unchanged_revision: int | None = None
    """The latest revision's number, when its rebuild changed nothing in the deliverable."""


def claimed_run(
    project: Project, handed: Claim | None = None
) -> AbstractContextManager[StartClaim]:
    """The project claimed for a run here until the run holds its lock (refused while another
    run or change of its course holds it); `handed`, a revision's claim, becomes the run's."""
    return claimed_start(project, "start", handed=handed)


def suspended_run(config: Config, project: Project) -> SuspendedRun | None:
    """The project's run that waits for the person with no process left, if there is one: the
    files say whether a run waits (`core.project_view`); Prefect, whether it suspended. An
    unreachable API says none (the run about to start reports it)."""
    wait = read_view(project).waiting
    if wait is None:
        return None
    run = ask_prefect(config, lambda api: api.waiting_run(project.id), None, project.dir)
    if run is None or not run.suspended:
        return None
    return SuspendedRun(where=wait.page or f"flow run {run.name}", verbs=wait.verbs)


def running_server(config: Config) -> str | None:
    """The API of the Prefect server a run here is put on: `PREFECT_API_URL`, else the one
    `thoughtforge up` started; None when none runs (the command starts one of its own)."""
    return find_api(config)


def run_ending(config: Config, project: Project) -> RunEnding:
    """The project as the run left it: done (its deliverable, and whether a revision's rebuild
    changed it), halted (why, and from where), or stopped at a human step."""
    status = read_status(project.dir)
    if status.phase is not Phase.DONE:
        return RunEnding(
            phase=status.phase, halt_reason=status.halt_reason, halted_from=status.halted_from
        )
    deliverable = plugin_for(config, status.deliverable_type).deliverable_path(project.dir)
    revision = read_revisions(project.dir).latest
    unchanged = revision.number if revision is not None and revision.unchanged else None
    return RunEnding(phase=status.phase, deliverable=deliverable, unchanged_revision=unchanged)
