"""Phase 2 as a Prefect flow: propose, take corrections, and lock the spec on Confirm."""

from __future__ import annotations

from prefect import flow

from thoughtforge import phases
from thoughtforge.config import Config
from thoughtforge.core import Project, hold_run_lock, load_project, transition
from thoughtforge.flows.human_input import ChatInput
from thoughtforge.flows.turns import halt_on_failure, take_turn
from thoughtforge.models import HaltReason, Phase

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
        except phases.SpecIncomplete as exc:
            phases.notice(
                project, f"{exc} Please give the acceptance criteria in the chat, then resume."
            )
            transition(
                project, Phase.HALTED, halt_reason=HaltReason.SPEC_INCOMPLETE, summary=str(exc)
            )
    return project.status().phase.value


def _converse(project: Project, config: Config, auto_confirm: bool) -> None:
    if phases.latest_proposal(project) is None:
        phases.propose(project, config)
    asked_to_decide = False
    while project.status().phase is Phase.SPEC_BUILDING:
        turn = take_turn(project, ChatInput(action="confirm") if auto_confirm else None)
        if turn.action == "confirm":
            outcome = phases.confirm_spec(project, config)
            if outcome.accepted or not auto_confirm:
                continue
            if asked_to_decide:
                print("Confirm refused twice; remaining: " + "; ".join(outcome.remaining))
                return
            phases.add_human_message(project, DECIDE_FOR_ME)
            asked_to_decide = True
        phases.propose(project, config)
