"""Where one project stands, read once, as every door shows it: the page's header and composer,
`thoughtforge status ID` and MCP's `project_status` render this one model, so they cannot tell
three stories of one project.

`project_page` adds Prefect's word on the project's runs (`run_state.project_view`), as the page
and the MCP server answer from it; `status_detail` reads the files alone, as `status` always has
(it asks no server), and adds what only `status` shows: the polish summary, the files nobody
committed.

A door holds a project by the handle `project_named` gives it (`Project`, named here so a door
that passes it back to an action never reaches into `core` for its type), and a view of it it
read for an action by `ProjectView`, likewise.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from thoughtforge.actions.composer import WAITS_FOR, Composer
from thoughtforge.actions.restoring import resting_words, restored_point
from thoughtforge.actions.run_state import composer_of, project_view
from thoughtforge.board.heading import polish_heading
from thoughtforge.config import Config
from thoughtforge.core.project import Project as Project
from thoughtforge.core.project import list_projects, open_project
from thoughtforge.core.project_view import ProjectView as ProjectView
from thoughtforge.core.project_view import RunPlace, read_view
from thoughtforge.core.revisions import staleness_note
from thoughtforge.core.spend.summary import SpendSummary, spend_of
from thoughtforge.core.staging import changes
from thoughtforge.core.state import POLISH_STATE_FILE, Status, read_polish_state
from thoughtforge.core.waiting import Waiting
from thoughtforge.errors import StateFileError


class ProjectPage(BaseModel):
    """A project as its files (and, for the page and MCP, Prefect) say it is now."""

    model_config = ConfigDict(frozen=True)

    view: ProjectView
    composer: Composer
    """What the person can do now (`run_state.composer_of`)."""
    spend: SpendSummary
    stale: str | None
    """The deliverable is older than an input it was built from: one sentence saying which."""

    @property
    def project(self) -> Project:
        return self.view.project

    @property
    def status(self) -> Status:
        return self.view.status

    @property
    def run(self) -> RunPlace:
        return self.view.run

    @property
    def waiting(self) -> Waiting | None:
        return self.view.waiting

    @property
    def revision(self) -> int:
        return self.view.revision

    @property
    def waits_for(self) -> str | None:
        """What a waiting run asks the person for, in the inbox's words."""
        if self.view.waiting is None:
            return None
        return WAITS_FOR.get(self.view.waiting.kind, "your answer")


class PolishSummary(BaseModel):
    """The polish loop where it stands, in `status`'s line."""

    iteration: int
    critical: int
    medium: int
    minor: int
    completed: bool
    heading: str | None
    """Converging, stuck or diverging (`board.heading`), once there is a trajectory."""


class StatusDetail(ProjectPage):
    """What `thoughtforge status ID` shows beyond the page's model."""

    restored: str | None
    """"restored to polish-1 (abc1234): …", while the project is idle at a restored point."""
    polish: PolishSummary | str | None
    """The polish summary; the problem in words when `polish_state.json` is unreadable; None
    before Phase 4."""
    foreign: list[str]
    """Files in the project nobody committed and ThoughtForge did not write."""


class ListedProject(BaseModel):
    """One project of the projects folder as `status`'s table lists it."""

    project_id: str
    status: Status | None
    """None when its `status.json` cannot be read (`error` says why)."""
    error: str | None = None
    spend: SpendSummary | None = None


def project_named(config: Config, project_id: str) -> Project:
    """The project `project_id` names: the doors' one way to a project (`ProjectError` when
    there is none, or the id is no project id)."""
    return open_project(config, project_id)


def listed_projects(config: Config) -> list[ListedProject]:
    """Every project in the projects folder, sorted by id, readable or not, with its spend."""
    return [
        ListedProject(
            project_id=listing.project.id,
            status=listing.status,
            error=listing.error,
            spend=spend_of(config, listing.project) if listing.status is not None else None,
        )
        for listing in list_projects(config)
    ]


def project_page(config: Config, project: Project) -> ProjectPage:
    """The project now, Prefect's word on its runs added: one read of its view."""
    return page_of(config, project_view(config, project))


def page_of(config: Config, view: ProjectView) -> ProjectPage:
    """The model of a view already read (an action that has read it keeps to that one read)."""
    return ProjectPage(
        view=view,
        composer=composer_of(view),
        spend=spend_of(config, view.project),
        stale=staleness_note(view.project.dir),
    )


def status_detail(config: Config, project: Project) -> StatusDetail:
    """The project from its files alone (`status` asks no server), with `status`'s extras."""
    page = page_of(config, read_view(project))
    point = restored_point(page.view)
    restored = f"restored to {point}: {resting_words(page.view)}" if point is not None else None
    return StatusDetail(
        **dict(page),
        restored=restored,
        polish=_polish(project) if (project.dir / POLISH_STATE_FILE).exists() else None,
        foreign=changes(project.dir).foreign,
    )


def _polish(project: Project) -> PolishSummary | str:
    try:
        state = read_polish_state(project.dir)
    except StateFileError as exc:
        return f"polish state: {exc}"
    heading = polish_heading(state.trajectory)
    counts = state.counts
    return PolishSummary(
        iteration=state.iteration,
        critical=counts.critical,
        medium=counts.medium,
        minor=counts.minor,
        completed=state.completed,
        heading=heading.line if heading is not None else None,
    )
