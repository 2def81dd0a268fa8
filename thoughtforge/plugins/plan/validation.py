"""The plan's deliverable validator (the plugin contract's `validation.py`): the shared document
check, then what Phase 3 requires of a plan, at the build and at every fix and revision alike.

A plan is built line for line from its template (sections in order, each OPA table with its
Objective | Plan | Assessment header and its columns, nothing added between) with every slot
filled: no empty cell, no placeholder, no `TBD`. A fix or a revision is held to the shared check,
whose `edit_rule` the fix prompt states: any content inside a section may change (a sentence, a
bullet, a row), the headings, their order and the tables' columns may not. While a fixed plan
still follows its template line for line, its slots must stay filled; one that no longer does (a
sentence added, or the person's hand edit) is held to the shared check alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.project import INTENT_FILE, Project
from thoughtforge.phases.deliverable.document_check import check_document
from thoughtforge.phases.deliverable.verdict import Candidate, DeliverableVerdict
from thoughtforge.plugins.plan.slot_content import unfilled_reason
from thoughtforge.plugins.plan.template import PlanTemplate, PlanTemplateError, Slot, load_template
from thoughtforge.plugins.plan.template_selection import (
    TEMPLATES_DIR,
    NoPlanTemplatesError,
    select_template,
)
from thoughtforge.prompting import SectionedText


def validate(project: Project, candidate: Candidate) -> DeliverableVerdict:
    """The contract's hook: the verdict on a would-be `docs/plan.md` of `project`."""
    return check_plan(candidate, template_of(project))


def check_plan(candidate: Candidate, template: PlanTemplate | None) -> DeliverableVerdict:
    """The shared document check, then the template's shape and slots when the plan is held to
    them: at a build, or when the version replaced followed the template."""
    verdict = check_document(candidate, unfilled_reason)
    held = template is not None and _held_to(template, candidate)
    if template is None or not held or verdict.problem not in (None, "unfilled"):
        return verdict
    try:
        filled = template.read_filled(verdict.document or candidate.text)
    except PlanTemplateError as exc:
        if candidate.stage != "build":
            return verdict  # a fix may add a line inside a section (`edit_rule`): no longer held
        return DeliverableVerdict.refused("not_following", str(exc))
    unfilled = template.unfilled(filled)
    if unfilled:
        return DeliverableVerdict.refused("unfilled", describe_unfilled(unfilled, filled))
    return verdict


def template_of(project: Project) -> PlanTemplate | None:
    """The template the project's plan was built from (chosen by the intent's type), if any."""
    try:
        intent = read_own_text(project.dir / INTENT_FILE)
        plan_type = SectionedText.parse(intent).get("Deliverable Type")
        return load_template(select_template(TEMPLATES_DIR, plan_type).path)
    except (OSError, UnicodeDecodeError, NoPlanTemplatesError, PlanTemplateError):
        return None


def describe_unfilled(unfilled: list[Slot], filled: Mapping[str, str]) -> str:
    """Each section's unfilled slots, with what is wrong with each."""
    by_section: dict[str, list[str]] = {}
    for slot in unfilled:
        why = unfilled_reason(filled.get(slot.id, ""))
        by_section.setdefault(slot.section, []).append(f"{slot.id} ({why})")
    return "; ".join(
        f"section '{h}' has unfilled slots {', '.join(ids)}" for h, ids in by_section.items()
    )


def _held_to(template: PlanTemplate, candidate: Candidate) -> bool:
    if candidate.stage == "build" or candidate.previous is None:
        return True
    try:
        template.read_filled(candidate.previous)
    except PlanTemplateError:
        return False
    return True
