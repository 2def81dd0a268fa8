"""What Confirm locks in Phase 2: `spec.md` (the proposal's sections, Open Source Discovery after
Dependencies when it ran) and `constraints.md` (what the Phase 4 reviewer judges against)."""

from __future__ import annotations

from thoughtforge.config import Config
from thoughtforge.core.state import Status
from thoughtforge.phases.plugin_loader import plugin_for
from thoughtforge.phases.spec_proposal import SPEC_SECTIONS, SpecProposal
from thoughtforge.prompting import SectionedText

DISCOVERY_SECTION = "Open Source Discovery"


def spec_document(name: str, proposal: SpecProposal, discovery: str | None) -> str:
    """The spec's sections; Open Source Discovery, when it ran, follows Dependencies."""
    sections: dict[str, str] = {}
    for section in SPEC_SECTIONS:
        sections[section] = proposal.section(section)
        if section == "Dependencies" and discovery is not None:
            sections[DISCOVERY_SECTION] = discovery
    return _document(f"Spec: {name}", sections)


def constraints_document(
    config: Config, name: str, status: Status, intent: SectionedText, proposal: SpecProposal
) -> str:
    """What the Phase 4 reviewer judges against, re-read at every polish iteration."""
    scope = [proposal.section("Deliverable Structure"), proposal.section("Scope Boundaries")]
    sections = {
        "Context": intent.get("Objective") or "",
        "Deliverable Type": plugin_for(config, status.deliverable_type).label,
        "Priorities": proposal.section("Priorities"),
        "Exclusions": proposal.section("Exclusions"),
        "Severity Definitions": proposal.section("Severity Definitions"),
        "Scope": "\n\n".join(part for part in scope if part),
        "Acceptance Criteria": "\n".join(f"- {c}" for c in proposal.acceptance_criteria),
    }
    return _document(f"Constraints: {name}", sections)


def _document(title: str, sections: dict[str, str]) -> str:
    body = "\n\n".join(
        f"## {h}\n\n{text.strip() or 'None stated.'}" for h, text in sections.items()
    )
    return f"# {title}\n\n{body}\n"
