"""Starting work: a new project from a brain dump and the files dropped with it, and runs on the
`thoughtforge-pipeline/local` deployment `up` made — the path `prefect deployment run` takes,
so a run started here is like any other on the Prefect UI.

The project is created before any run is asked for: it exists (and shows in the inbox) even when
no Prefect server runs, and the note says how to start one.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from pydantic import Base64Bytes, BaseModel, Field

from thoughtforge.actions.inbox import inbox
from thoughtforge.actions.run_state import project_view
from thoughtforge.catalogue import RunAnswer
from thoughtforge.config import Config
from thoughtforge.core.course_claim import Claim, RunAlreadyStarting
from thoughtforge.core.creation import create_project, with_hints
from thoughtforge.core.project import Project
from thoughtforge.core.project_log import log_event
from thoughtforge.core.project_view import ProjectView
from thoughtforge.core.run_start import claimed_start
from thoughtforge.core.safe_names import safe_file_name
from thoughtforge.core.spend.summary import change_budget
from thoughtforge.errors import ProjectLimitError, ThoughtForgeError
from thoughtforge.models import Usd
from thoughtforge.phases.chat import notice
from thoughtforge.phases.plugin_loader import load_plugins
from thoughtforge.stack.api import (
    PrefectApi,
    PrefectApiError,
    find_api,
    project_tag,
)

DEPLOYMENT = "thoughtforge-pipeline/local"
HAND_OVER_SECONDS = 180.0
"""How long an answer given with no run waiting waits for the run started for it to ask."""
NO_SERVER = (
    "No Prefect server is running, so nothing works on this project yet: run "
    "`thoughtforge up`, then press Start the run (or `thoughtforge continue {id}`)."
)


DELIVERABLE_TYPE_PATTERN = r"^([a-z][a-z0-9_]{0,39})?$"
"""A deliverable type's name (a plugin's folder), or none."""


class DroppedFile(BaseModel):
    name: str = Field(min_length=1, max_length=500)
    data: Base64Bytes


class NewProject(BaseModel):
    """A new project as a person asks for it (the page's New Project form, MCP's
    `create_project`)."""

    brain_dump: str = Field(min_length=1)
    agent: str | None = None
    deliverable_type: str = Field("", pattern=DELIVERABLE_TYPE_PATTERN)
    """A hint for the distillation: one of the deliverable types (plugins), or none."""
    files: list[DroppedFile] = []
    budget_usd: Usd | None = None
    """The project's own budget; none: the config's."""


class Started(BaseModel):
    """Whether a run was asked for, and what to tell the person."""

    run_id: str | None
    note: str
    claim: Claim | None = None
    """The project's claim, kept for the run asked for until it takes the project; None when
    no claim stands for it (none was asked for, or a process of its own takes one)."""


def create_from_request(config: Config, request: NewProject) -> Project:
    """The project, with the dropped files as its resources (the usual size cap applies)."""
    if request.deliverable_type and request.deliverable_type not in load_plugins(config):
        raise ThoughtForgeError(f"no deliverable type '{request.deliverable_type}' here")
    text = with_hints(request.brain_dump, None, request.deliverable_type)
    with tempfile.TemporaryDirectory(prefix="thoughtforge-drop-") as folder:
        paths = []
        for number, dropped in enumerate(request.files):
            place = Path(folder) / str(number)
            place.mkdir()
            path = place / safe_file_name(dropped.name)
            path.write_bytes(dropped.data)
            paths.append(path)
        try:
            project = create_project(config, brain_dump=text, resources=paths, agent=request.agent)
        except ProjectLimitError as exc:  # the page's own way to free a slot, not the CLI's
            raise ProjectLimitError(inbox(config).full or str(exc)) from None
    if request.budget_usd is not None:
        change_budget(config, project, request.budget_usd, None)
    return project


def start_run(
    config: Config,
    config_file: Path,
    project: Project,
    then: RunAnswer | None = None,
    *,
    handed: Claim | None = None,
) -> Started:
    """Ask the server for a run of the project; `then` is an input to hand it once it waits
    (an answer that arrived while no run was there); `handed`, the claim of a revision the run
    is to carry out, becomes the run's with no moment free between them.

    Refused (`RunAlreadyStarting`) before any run is made when one works on the project, is
    scheduled or starting on the server, or was asked for and has not taken the lock yet: the
    claim (`core.run_start`) makes two presses at once one run. Under the claim the project's
    view answers (`actions.run_state`); Prefect is asked directly only whether a run that suspended
    while waiting still waits, which no file can tell."""
    url = find_api(config)
    if url is None:
        return Started(run_id=None, note=NO_SERVER.format(id=project.id))
    api = PrefectApi(url)
    parameters = {"project_id": project.id, "config_path": str(config_file)}
    with claimed_start(project, "start", handed=handed) as claim:
        try:  # under the claim: a run another request made may have asked already and suspended
            busy = _busy(api, project_view(config, project))
            if busy is not None:
                raise RunAlreadyStarting(f"run {busy} of {project.id} is already on its way")
            run = api.run_deployment(DEPLOYMENT, parameters, tags=[project_tag(project.id)])
        except PrefectApiError as exc:
            missing = exc.status == 404
            why = f"the deployment {DEPLOYMENT} is missing" if missing else str(exc)
            note = f"Could not start a run ({why}): run `thoughtforge up`."
            return Started(run_id=None, note=note)
        kept = claim.keep(run.id, run.name)
    log_event(project.dir, "run_started_from_page", flow_run=run.name)
    if then is not None:
        threading.Thread(
            target=_hand_over_when_asked, args=(api, project, then), daemon=True
        ).start()
    return Started(run_id=run.id, note=f"Started run {run.name}.", claim=kept)


def _busy(api: PrefectApi, view: ProjectView) -> str | None:
    """The run already on the project, by name: one Prefect has busy on it (the view says), one
    waiting with its process alive, or one that suspended while waiting and still waits."""
    if view.locked:
        return f"in {view.holder}" if view.holder else "in another process"
    if view.prefect_run is not None:
        return view.prefect_run
    if view.waiting is None or not view.waiting.away:
        return None  # no wait, or one whose process died with it (no lock held): none waits
    suspended = api.live_waiting_run(view.project)
    return suspended.name if suspended is not None else None


def _hand_over_when_asked(api: PrefectApi, project: Project, run_input: RunAnswer) -> None:
    try:
        run = api.next_waiting_run(project, HAND_OVER_SECONDS)
        if run is not None:
            api.resume(run, run_input)
            return
        why = "the run did not ask for it in time"
    except Exception as exc:  # noqa: BLE001 - a background hand-over reports, never raises
        why = str(exc)
    action = run_input.action
    log_event(project.dir, "hand_over_failed", level="warning", action=action, why=why)
    notice(project, f"Your '{action}' was not handed to the run ({why}): press it again.")
