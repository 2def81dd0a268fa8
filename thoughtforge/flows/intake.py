"""Phase 1 inside the pipeline's run: take the human's turns until the intent is confirmed,
pulling the connectors' sources (each a task) before every distillation.

A plain function, not a subflow: Prefect can suspend only a top-level flow run, and the human
answers every question on that one run's page.
"""

from __future__ import annotations

from thoughtforge import phases
from thoughtforge.config import Config
from thoughtforge.connectors import enabled_connectors, pull_sources
from thoughtforge.connectors.sources import wanted_sources
from thoughtforge.core.project import Project
from thoughtforge.core.state import read_chat
from thoughtforge.flows.human_input import INTAKE, REVIEW, ChatTurn, IntakeTurn, ReviewTurn
from thoughtforge.flows.turns import halt_on_failure, take_turn
from thoughtforge.models import PHASE_ONE, Phase
from thoughtforge.tasks.connector_pull import fetch_as_task

_WELCOME = (
    "Tell me everything about what you want: paste your brain dump, drop files into the "
    "project's resources/ folder, then choose **distill**."
)
_GOT_IT = (
    "Your brain dump is in. Add anything it is missing (here, or as files in the project's "
    "resources/ folder), or choose **distill**."
)


def run_intake(project: Project, config: Config, auto_confirm: bool) -> None:
    """Distil the brain dump with the human (or, in a batch run, at once)."""
    while (phase := project.status().phase) in PHASE_ONE:
        turn = _automatic_turn(phase, auto_confirm) or _human_turn(project, phase)
        if turn is None:
            continue
        reply = None
        with halt_on_failure(project):
            reply = _apply(project, config, phase, turn)
        if auto_confirm and reply == "need_more":
            print(phases.latest_ai_message(project))
            return


def _human_turn(project: Project, phase: Phase) -> ChatTurn | None:
    if phase is Phase.HUMAN_REVIEW:
        return take_turn(project, REVIEW)
    said = any(m.role == "human" for m in read_chat(project.dir))
    return take_turn(project, INTAKE, _GOT_IT if said else _WELCOME)


def _automatic_turn(phase: Phase, auto_confirm: bool) -> ChatTurn | None:
    """A batch run distils and confirms; a run re-entered mid-distillation distils again."""
    if auto_confirm:
        return (
            ReviewTurn(action="confirm")
            if phase is Phase.HUMAN_REVIEW
            else IntakeTurn(action="distill")
        )
    return IntakeTurn(action="distill") if phase is Phase.DISTILLING else None


def _pull_sources(project: Project, config: Config) -> None:
    """Phase 1 step 3: the configured pages and the links in the chat, before each distillation.
    A source that fails is told in the chat (once) and distillation goes on without it."""
    wanted = wanted_sources(project, config)
    if not wanted:
        return
    report = pull_sources(project, enabled_connectors(config), wanted, fetch=fetch_as_task)
    for line in report.messages():
        phases.notice_once(project, line)


def _apply(project: Project, config: Config, phase: Phase, turn: ChatTurn) -> str | None:
    """Act on the turn; returns the kind of the AI's reply, if any."""
    if turn.action == "terminate":
        phases.human_decisions.terminate(project)
        return None
    if turn.action == "confirm":
        confirmed = phases.confirm_intent(project, config)
        print(f"Intent confirmed: {confirmed.project_name} ({confirmed.deliverable_type}).")
        return None
    if turn.action == "realign":
        return phases.realign(project, config).kind
    if turn.action == "distill" or phase is Phase.HUMAN_REVIEW:
        _pull_sources(project, config)
        return phases.distill(project, config).kind
    return None
