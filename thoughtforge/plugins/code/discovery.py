"""Open Source Discovery: the code plugin's optional Phase 2 hook (config `code.discovery`).

When it runs: after every spec proposal of a code project, before the proposal reaches the chat,
so the scorecards arrive with the proposal they qualify. The human reviews and corrects the
dependencies while they can still change them, and Confirm locks into `spec.md` exactly what was
shown. That costs one more agent call per proposal, which is why discovery is opt-in. (Phase 2
calls it at Confirm only when the proposal on the table has none: discovery was switched on since.)

What it does: the agent gathers the data and scores each dependency it would use (the
`code-discovery` prompt, answered as JSON, found in prose by `json_objects`, asked once more when
no recommendation list can be found); `scorecard.validate_recommendations` applies the rules; the
result is the body of the `## Open Source Discovery` section. Everything the agent wrote is escaped
so it cannot change the section's structure.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from pydantic import BaseModel

from thoughtforge.config import Config
from thoughtforge.errors import UnusableReply
from thoughtforge.phases.reasking import ask_until_usable, reask
from thoughtforge.plugins.code.scorecard import (
    MAX_SCORE,
    MIN_TOTAL,
    SIGNALS,
    Recommendation,
    validate_recommendations,
)
from thoughtforge.prompting import PromptLibrary, escape_untrusted, json_objects
from thoughtforge.prompting.markdown_escaping import escape_cell

PROMPT = "code-discovery"
ATTEMPTS = 2
MAX_TOTAL = MAX_SCORE * len(SIGNALS)
RULES = (
    f"Every dependency the agent recommended is scored on {len(SIGNALS)} signals, 0 to "
    f"{MAX_SCORE} each, from the data shown. It qualifies with no red flag and a total of at "
    f"least {MIN_TOTAL} of {MAX_TOTAL}."
)


def enabled(config: Config) -> bool:
    """Opt-in: one more agent call per proposal."""
    return config.code.discovery


def discover(
    proposal: str,
    ask: Callable[[str], str],
    library: PromptLibrary,
    on_unusable: Callable[[int, UnusableReply], object] = lambda attempt, why: None,
) -> str:
    """The `## Open Source Discovery` section body for the spec `proposal`.

    `ask` sends a prompt to the agent; its `AgentFailure` propagates, and so does the last
    `UnusableReply` when the agent twice answers without a recommendation list. Each unusable
    answer goes to `on_unusable` (Phase 2 keeps it).
    """
    qualifying, rejected = ask_until_usable(
        ask,
        lambda refusal: _prompt(library, proposal, refusal),
        parse_recommendations,
        attempts=ATTEMPTS,
        on_unusable=on_unusable,
    )
    return render(qualifying, rejected)


class Recommendations(BaseModel):
    """The shape of the agent's answer, as the JSON schema sent to agents that constrain output;
    each entry is judged on its own by `validate_recommendations`."""

    recommendations: list[Recommendation]


SCHEMA = Recommendations.model_json_schema()


def parse_recommendations(text: str) -> tuple[list[Recommendation], list[str]]:
    """The qualifying recommendations and the rejection reasons, from the first JSON object in
    the answer that holds a "recommendations" list."""
    for candidate in json_objects(text):
        if isinstance(candidate.get("recommendations"), list):
            return validate_recommendations(candidate)
    raise UnusableReply('it held no JSON object with a "recommendations" list', text)


def render(qualifying: list[Recommendation], rejected: list[str]) -> str:
    """Each qualifying dependency with its scorecard, then the rejected ones with the reasons."""
    if not qualifying and not rejected:
        return f"{RULES}\n\nThe agent recommended no open-source dependency."
    cards = [_card(r) for r in qualifying] or ["No recommended dependency qualified."]
    reasons = [f"- {escape_untrusted(reason)}" for reason in rejected] or ["None."]
    return "\n\n".join([RULES, *cards, "### Rejected", "\n".join(reasons)])


def _card(recommendation: Recommendation) -> str:
    scorecard = recommendation.scorecard
    title = f"{recommendation.name} {recommendation.version}: {recommendation.purpose}"
    rows = [
        f"| {signal.name} | {signal.score} | {_cell(signal.evidence)} |"
        for signal in sorted(scorecard.signals, key=lambda signal: SIGNALS.index(signal.name))
    ]
    return "\n".join(
        [
            f"### {_cell(title)}",
            "",
            "| Signal | Score | Evidence |",
            "| --- | --- | --- |",
            *rows,
            "",
            f"Red flags: none. Total: {scorecard.total}/{MAX_TOTAL}.",
        ]
    )


def _cell(text: str) -> str:
    """Agent text in a heading or table cell: one line, no pipe that splits a cell, no HTML."""
    return escape_cell(html.escape(" ".join(text.split()), quote=False))


def _prompt(library: PromptLibrary, proposal: str, refusal: UnusableReply | None) -> str:
    prompt = library.render(PROMPT, proposal=proposal)
    return prompt if refusal is None else reask(prompt, refusal)
