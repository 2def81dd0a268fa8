"""Phase 2 inside the pipeline's run: propose, take corrections, and lock the spec on Confirm."""

from __future__ import annotations

from thoughtforge import phases
from thoughtforge.config import Config
from thoughtforge.core.project import Project
from thoughtforge.flows.human_input import SPEC, SpecTurn
from thoughtforge.flows.turns import halt_on_failure, take_turn
from thoughtforge.models import Phase
from thoughtforge.phases.revision import awaits_revised_proposal

DECIDE_FOR_ME = (
    "Batch run: nobody will answer questions. Decide every remaining item yourself, state each "
    "decision in Resolved Unknowns, and keep the acceptance criteria."
)


def run_spec(project: Project, config: Config, auto_confirm: bool) -> None:
    """Agree the spec and acceptance criteria with the human (or, in a batch run, at once)."""
    with halt_on_failure(project):
        _converse(project, config, auto_confirm)


def _converse(project: Project, config: Config, auto_confirm: bool) -> None:
    if phases.latest_proposal(project) is None or awaits_revised_proposal(project):
        phases.propose(project, config)
    asked_to_decide = False
    while project.status().phase is Phase.SPEC_BUILDING:
        turn = SpecTurn(action="confirm") if auto_confirm else take_turn(project, SPEC)
        if turn is None:
            continue
        if turn.action == "terminate":
            phases.human_decisions.terminate(project)
            return
        if turn.action in ("confirm", "accept_unresolved"):
            outcome = phases.confirm_spec(
                project, config, accept_unresolved=asked_to_decide or turn.action != "confirm"
            )
            if outcome.accepted or not auto_confirm:
                continue
            if asked_to_decide:  # only the acceptance criteria can still be missing
                raise phases.SpecIncomplete(
                    "The agent proposed no acceptance criteria, even when asked to decide."
                )
            phases.add_human_message(project, DECIDE_FOR_ME)
            asked_to_decide = True
        phases.propose(project, config)
