"""Phase 1 as a Prefect flow: take the human's turns until the distilled intent is confirmed."""

from __future__ import annotations

from prefect import flow

from thoughtforge import intake
from thoughtforge.config import Config
from thoughtforge.flows.human_input import ChatInput, chat_key, wait_for_human
from thoughtforge.flows.turns import halt_on_failure, latest_ai_message, notice
from thoughtforge.models import Phase
from thoughtforge.project import Project, load_project
from thoughtforge.run_lock import hold_run_lock

PHASE_ONE = (Phase.BRAIN_DUMP, Phase.DISTILLING, Phase.HUMAN_REVIEW)
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
            turn = _auto_turn(phase) if auto_confirm else _human_turn(project, phase)
            with halt_on_failure(project):
                reply = _apply(project, config, phase, turn)
            if auto_confirm and reply == "need_more":
                print(latest_ai_message(project))
                break
        return project.status().phase.value


def _auto_turn(phase: Phase) -> ChatInput:
    return ChatInput(action="confirm" if phase is Phase.HUMAN_REVIEW else "distill")


def _human_turn(project: Project, phase: Phase) -> ChatInput:
    if phase is Phase.DISTILLING:
        return ChatInput(action="distill")  # re-entered after an interruption mid-distillation
    return wait_for_human(ChatInput, latest_ai_message(project) or _WELCOME, key=chat_key(project))


def _apply(project: Project, config: Config, phase: Phase, turn: ChatInput) -> str | None:
    """Store the message first, then act on it; returns the kind of the AI's reply, if any."""
    if turn.message.strip():
        intake.add_human_message(project, turn.message)
    if turn.action == "confirm":
        if phase is Phase.HUMAN_REVIEW:
            confirmed = intake.confirm_intent(project, config)
            print(f"Intent confirmed: {confirmed.project_name} ({confirmed.deliverable_type}).")
            return None
        notice(project, "Nothing to confirm yet: choose **distill** first.")
        return None
    if turn.action == "realign":
        return intake.realign(project, config).kind
    if turn.action == "distill" or phase is Phase.HUMAN_REVIEW:
        return intake.distill(project, config).kind
    return None
