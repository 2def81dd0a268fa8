"""The prompt that asks for one plan section's slots, cut to the agent's context window.

The whole plan so far and the whole spec go in when they fit. When they do not, the prompt carries
only the section being built, the spec section sharing most words with it (else the spec's
Deliverable Structure) and the preceding section, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from thoughtforge.core.project_log import log_event
from thoughtforge.errors import UnusableReply
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.reasking import reask
from thoughtforge.plugins.plan.draft import Draft
from thoughtforge.plugins.plan.template import Section, Slot, SlotKind
from thoughtforge.prompting import SectionedText, estimate_tokens, heading_key, truncate_text

BUILD_STEP = "plan-build"
FALLBACK_SPEC_SECTION = "Deliverable Structure"

_WORD = re.compile(r"[^\W_]+")
_STOP_WORDS = frozenset({"a", "an", "and", "the", "of", "for", "to", "in", "on", "with"})


def section_prompt(
    engine: PhaseEngine,
    draft: Draft,
    section: Section,
    rejected: Mapping[str, str],
    unreadable: UnusableReply | None,
) -> str:
    """Ask for the section's missing slots, quoting why earlier content or answers were refused."""
    slots = _slot_list(draft.missing(section), rejected)
    plan = draft.template.render(engine.project_name, draft.filled)
    full = _render(engine, slots, draft.spec, plan, draft.guidance, unreadable)
    window = engine.config.agent(engine.agent).prompt_budget_tokens
    if estimate_tokens(full) <= window:
        return full
    preceding = _preceding_section(draft, section)
    frame = _render(engine, slots, "", preceding, draft.guidance, unreadable)
    spec_part = truncate_text(
        _spec_part(draft.spec, section.heading), max(window - estimate_tokens(frame), 0)
    )
    log_event(
        engine.project.dir,
        "build_context_truncated",
        level="warning",
        section=section.heading,
        prompt_tokens=estimate_tokens(full),
        window=window,
    )
    engine.say_once(
        "The whole plan and spec did not fit the agent's context window: each section is built "
        "from its part of the spec and the section before it."
    )
    return _render(engine, slots, spec_part.text, preceding, draft.guidance, unreadable)


def _render(
    engine: PhaseEngine,
    slots: str,
    spec: str,
    plan: str,
    guidance: str,
    unreadable: UnusableReply | None,
) -> str:
    prompt = engine.prompts.render(
        BUILD_STEP, slots=slots, spec=spec, plan_so_far=plan, guidance=guidance
    )
    return prompt if unreadable is None else reask(prompt, unreadable)


def _slot_list(asking: list[Slot], rejected: Mapping[str, str]) -> str:
    lines = []
    for slot in asking:
        place = "table cell" if slot.kind is SlotKind.CELL else "paragraph"
        line = f'- `{slot.id}`: {place} in section "{slot.section}"'
        if slot.id in rejected:
            line += (
                f" — asked again: your previous answer was not usable ({rejected[slot.id]}); "
                "write decided content"
            )
        lines.append(line)
    return "\n".join(lines)


def _preceding_section(draft: Draft, section: Section) -> str:
    sections = draft.template.sections()
    index = next(i for i, s in enumerate(sections) if s.heading == section.heading)
    note = "(Only the preceding section is shown, so the prompt fits your context window.)"
    if index == 0:
        return f"{note}\n\nThis is the first section."
    previous = sections[index - 1]
    lines = [f"- `{s.id}`: {draft.filled.get(s.id, '(empty)')}" for s in previous.slots]
    return f"{note}\n\n## {previous.heading}\n\n" + "\n".join(lines)


def _spec_part(spec: str, heading: str) -> str:
    """The spec section sharing most words with the plan section, else the plan's structure."""
    sections = SectionedText.parse(spec).sections
    wanted = _words(heading)
    matching = [s for s in sections if wanted & _words(s.heading)]
    chosen = max(matching, key=lambda s: len(wanted & _words(s.heading)), default=None) or next(
        (s for s in sections if heading_key(s.heading) == heading_key(FALLBACK_SPEC_SECTION)),
        None,
    )
    if chosen is None:
        return spec
    return (
        "(Only the part of the specification for this section is shown, so the prompt fits your "
        f"context window.)\n\n## {chosen.heading}\n\n{chosen.body}"
    )


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP_WORDS}
