"""Phase 2 as a Prefect flow: propose, take corrections, and lock the spec on Confirm."""

from __future__ import annotations

from prefect import flow

from thoughtforge import intake, spec_phase
from thoughtforge.config import Config
from thoughtforge.flows.human_input import ChatInput, chat_key, wait_for_human
from thoughtforge.flows.turns import halt_on_failure, latest_ai_message, notice
from thoughtforge.models import HaltReason, Phase
from thoughtforge.project import Project, load_project
from thoughtforge.run_lock import hold_run_lock
from thoughtforge.transition import transition

DECIDE_FOR_ME = (
    "Batch run: nobody will answer questions. Decide every remaining item yourself, state each "
    "decision in Resolved Unknowns, and keep the acceptance criteria."
)


@flow(name="thoughtforge-spec", flow_run_name="spec-{project_id}", log_prints=True)
def spec_flow(project_id: str, config_path: str | None = None, auto_confirm: bool = False) -> str:
    """Agree the spec and acceptance criteria with the human; returns the phase left in."""
    config, project = load_project(project_id, config_path)
    with hold_run_lock(project), halt_on_failure(project):
        try:
            _converse(project, config, auto_confirm)
        except spec_phase.SpecIncomplete as exc:
            notice(project, f"{exc} Please give the acceptance criteria in the chat, then resume.")
            transition(
                project, Phase.HALTED, halt_reason=HaltReason.SPEC_INCOMPLETE, summary=str(exc)
            )
    return project.status().phase.value


def _converse(project: Project, config: Config, auto_confirm: bool) -> None:
    if spec_phase.latest_proposal(project) is None:
        spec_phase.propose(project, config)
    asked_to_decide = False
    while project.status().phase is Phase.SPEC_BUILDING:
        if auto_confirm:
            turn = ChatInput(action="confirm")
        else:
            turn = wait_for_human(ChatInput, latest_ai_message(project), key=chat_key(project))
        if turn.message.strip():
            intake.add_human_message(project, turn.message)
        if turn.action == "confirm":
            outcome = spec_phase.confirm_spec(project, config)
            if outcome.accepted or not auto_confirm:
                continue
            if asked_to_decide:
                print("Confirm refused twice; remaining: " + "; ".join(outcome.remaining))
                return
            intake.add_human_message(project, DECIDE_FOR_ME)
            asked_to_decide = True
        spec_phase.propose(project, config)
