"""A Phase 2 proposal read out of the agent's Markdown, and what still blocks its confirmation.

An item is unresolved when the Resolved Unknowns section marks it `UNRESOLVED:`, or when it is an
Unknown or Open Question of `intent.md` that Resolved Unknowns does not mention. "Mentions" means
the item's words appear there nearly verbatim: after lowercasing and reducing both texts to letters
and digits, rapidfuzz's `partial_ratio` of the item against the section is at least
`MENTION_SCORE`. The prompt asks the agent to quote every item word for word.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from thoughtforge.prompting import SectionedText, heading_key, list_items

SPEC_SECTIONS = (
    "Deliverable Overview",
    "Deliverable Structure",
    "Key Decisions",
    "Resolved Unknowns",
    "Dependencies",
    "Scope Boundaries",
)
CONSTRAINT_ONLY_SECTIONS = (
    "Priorities",
    "Exclusions",
    "Severity Definitions",
    "Acceptance Criteria",
)
ALL_SECTIONS = SPEC_SECTIONS + CONSTRAINT_ONLY_SECTIONS
UNRESOLVED_MARK = "UNRESOLVED:"
MENTION_SCORE = 90
NO_CRITERIA = (
    "At least one acceptance criterion is required before proceeding. Add acceptance criteria "
    "or confirm the AI's proposed set."
)
NO_PROPOSAL = "There is no proposal to confirm yet."

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


class SpecProposal(BaseModel):
    text: str
    sections: dict[str, str]
    acceptance_criteria: list[str]
    unresolved: list[str]

    def section(self, name: str) -> str:
        """The body of section `name` (any case); empty when the proposal has no such section."""
        key = heading_key(name)
        return next((body for head, body in self.sections.items() if heading_key(head) == key), "")


def is_proposal(text: str) -> bool:
    """An AI message is a proposal when it has at least one spec section."""
    document = SectionedText.parse(text)
    return any(document.get(name) is not None for name in ALL_SECTIONS)


def parse_proposal(text: str, intent: str) -> SpecProposal:
    """The proposal's sections, criteria and unresolved items, against the intent."""
    document = SectionedText.parse(text)
    resolved = document.get("Resolved Unknowns") or ""
    marked = [item for item in list_items(resolved) if UNRESOLVED_MARK.lower() in item.lower()]
    intent_document = SectionedText.parse(intent)
    asked = [
        item
        for name in ("Unknowns", "Open Questions")
        for item in list_items(intent_document.get(name) or "")
    ]
    sections: dict[str, str] = {}
    for section in document.sections:
        sections.setdefault(section.heading, section.body)
    return SpecProposal(
        text=text,
        sections=sections,
        acceptance_criteria=list_items(document.get("Acceptance Criteria") or ""),
        unresolved=marked + [item for item in asked if not _mentions(resolved, item)],
    )


def _mentions(section: str, item: str) -> bool:
    needle, haystack = _letters(item), _letters(section)
    if not needle:
        return True
    from rapidfuzz import fuzz  # 45 modules: loaded by Phase 2's first check, not every run

    return len(needle) <= len(haystack) and fuzz.partial_ratio(needle, haystack) >= MENTION_SCORE


def _letters(text: str) -> str:
    return _NOT_ALNUM.sub(" ", text.lower()).strip()


def has_criteria_section(answer: str) -> bool:
    """Whether the answer has an `## Acceptance Criteria` section at all."""
    return SectionedText.parse(answer).get("Acceptance Criteria") is not None


def with_accepted_unresolved(proposal: SpecProposal, items: list[str]) -> SpecProposal:
    """The proposal with `items` written into Resolved Unknowns as accepted unresolved."""
    key = heading_key("Resolved Unknowns")
    heading = next((h for h in proposal.sections if heading_key(h) == key), "Resolved Unknowns")
    listed = "\n".join(
        f"- {UNRESOLVED_MARK} {item} (accepted unresolved by the human)" for item in items
    )
    body = f"{proposal.sections.get(heading, '').strip()}\n\n{listed}".strip()
    return proposal.model_copy(
        update={"sections": {**proposal.sections, heading: body}, "unresolved": []}
    )


def remaining_items(proposal: SpecProposal | None) -> list[str]:
    """What still blocks Confirm; empty when the proposal can be locked."""
    if proposal is None:
        return [NO_PROPOSAL]
    return proposal.unresolved + ([] if proposal.acceptance_criteria else [NO_CRITERIA])


def refusal(proposal: SpecProposal | None) -> str:
    """The chat answer to a Confirm that cannot be taken, listing what remains."""
    if proposal is None:
        return NO_PROPOSAL
    parts = []
    if proposal.unresolved:
        items = "\n".join(f"- {item}" for item in proposal.unresolved)
        parts.append(
            "Confirm is blocked: these Unknowns and Open Questions are still unresolved. Answer "
            "them in the chat (or ask me to decide) and I will update the proposal, or accept "
            f"them as unresolved (`confirm --accept-unresolved`).\n\n{items}"
        )
    if not proposal.acceptance_criteria:
        parts.append(NO_CRITERIA)
    return "\n\n".join(parts)


# --- the conversation and the files ----------------------------------------------------------
