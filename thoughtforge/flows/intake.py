"""Phase 1 as a Prefect flow: take the human's turns until the distilled intent is confirmed."""

from __future__ import annotations

from prefect import flow

from thoughtforge import phases
from thoughtforge.config import Config
from thoughtforge.core import Project, hold_run_lock, load_project
from thoughtforge.flows.human_input import ChatInput
from thoughtforge.flows.turns import halt_on_failure, take_turn
from thoughtforge.models import PHASE_ONE, Phase

_WELCOME = (
    "Tell me everything about what you want: paste your brain dump, drop files into the "
    "project's resources/ folder, then choose **distill**."
)


@flow(name="thoughtforge-intake", flow_run_name="intake-{project_id}", log_prints=True)
def intake_flow(project_id: str, config_path: str | None = None, auto_confirm: bool = False) -> str:
    """Distil the brain dump with the human; returns the phase the project is left in."""
    config, project = load_project(project_id, config_path)
    with hold_run_lock(project):
        while (phase := project.status().phase) in PHASE_ONE:
            turn = take_turn(project, _automatic_turn(phase, auto_confirm), _WELCOME)
            reply = None
            with halt_on_failure(project):
                reply = _apply(project, config, phase, turn)
            if auto_confirm and reply == "need_more":
                print(phases.latest_ai_message(project))
                break
        return project.status().phase.value


def _automatic_turn(phase: Phase, auto_confirm: bool) -> ChatInput | None:
    """A batch run distils and confirms; a run re-entered mid-distillation distils again."""
    if auto_confirm:
        return ChatInput(action="confirm" if phase is Phase.HUMAN_REVIEW else "distill")
    return ChatInput(action="distill") if phase is Phase.DISTILLING else None


def _apply(project: Project, config: Config, phase: Phase, turn: ChatInput) -> str | None:
    """Act on the turn; returns the kind of the AI's reply, if any."""
    if turn.action == "confirm":
        if phase is Phase.HUMAN_REVIEW:
            confirmed = phases.confirm_intent(project, config)
            print(f"Intent confirmed: {confirmed.project_name} ({confirmed.deliverable_type}).")
            return None
        phases.notice(project, "Nothing to confirm yet: choose **distill** first.")
        return None
    if turn.action == "realign":
        return phases.realign(project, config).kind
    if turn.action == "distill" or phase is Phase.HUMAN_REVIEW:
        return phases.distill(project, config).kind
    return None
