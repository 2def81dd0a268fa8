"""A review prompt fitted to the reviewer's window, its acceptance criteria never cut.

The whole prompt is measured as the agent call measures it (`prompt_room`: the window less the
answer's room and a CLI's own prompt), and nothing is cut when it fits. Before, the room for the
constraints was the window less the deliverable, the guidance and a fixed guess of 2,000 tokens
for the rest, and the constraints were cut from their end, where `## Acceptance Criteria` stands:
a prompt of about 6,650 tokens in a window of 8,000 reached the reviewer without its criteria,
and a plan over its budget ended `done`. (The guess also ignored a CLI's own prompt, so a prompt
could pass it and then be refused by the call.)

When the prompt does not fit, the context around what is judged is cut first, each part in
turn (`Cut`): the constraints' other sections (their start kept), the person's guidance (its
latest words kept), a test run's output (its end kept). The acceptance criteria, the deliverable,
the open findings and the instructions are never cut; when they alone do not fit, the review
could not judge what `done` promises, so the loop halts and says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from thoughtforge.adapters.agents.invoke import prompt_room
from thoughtforge.core.project_log import log_event
from thoughtforge.errors import PhaseHalt
from thoughtforge.models import HaltReason
from thoughtforge.phases.engine import PhaseEngine
from thoughtforge.phases.traceability import SECTION
from thoughtforge.prompting import Fitted, estimate_tokens, heading_key, truncate_text

_LEVEL_TWO = re.compile(r"^##[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_ROUNDS = 4
"""Cuts of one part before the next is cut: estimates of parts and of the whole differ by a
token or so, so a cut to the estimate may leave the whole a token over."""


@dataclass(frozen=True)
class Cut:
    """A part of the prompt that may be cut, and which end of it is kept."""

    name: str
    keep: Literal["head", "tail"] = "head"


@dataclass(frozen=True)
class FittedPrompt:
    text: str
    parts: dict[str, str]
    """The parts as the prompt shows them."""
    cut: list[str]
    """The names of the parts cut to fit."""


def fit_review_prompt(
    engine: PhaseEngine,
    reviewer: str,
    render: Callable[[Mapping[str, str]], str],
    parts: Mapping[str, str],
    cuts: list[Cut],
    left: int = 0,
) -> FittedPrompt:
    """`render(parts)` within the reviewer's window less `left` tokens (kept for what the caller
    adds), the `cuts` made in order until it fits (`constraints` around its acceptance
    criteria) and logged. A halt (`agent_failure`) when cutting all of them is not enough."""
    room = prompt_room(engine.config.agent(reviewer)) - left
    fitted = _fit(render, parts, cuts, room, reviewer)
    if fitted.cut:
        log_event(engine.project.dir, "review_prompt_cut", level="warning", cut=fitted.cut)
    return fitted


def _fit(
    render: Callable[[Mapping[str, str]], str],
    parts: Mapping[str, str],
    cuts: list[Cut],
    room: int,
    reviewer: str,
) -> FittedPrompt:
    shown = dict(parts)
    prompt = render(shown)
    cut: list[str] = []
    for part in cuts:
        for _ in range(_ROUNDS):
            over = estimate_tokens(prompt) - room
            text = shown[part.name]
            fitted = _cut(part, text, max(estimate_tokens(text) - over, 0))
            if over <= 0 or fitted.text == text:
                break
            shown[part.name] = fitted.text
            cut += [part.name] if part.name not in cut else []
            prompt = render(shown)
    if estimate_tokens(prompt) <= room:
        return FittedPrompt(text=prompt, parts=shown, cut=cut)
    raise PhaseHalt(
        HaltReason.AGENT_FAILURE,
        f"The reviewer's window is too small for the acceptance criteria: with everything else "
        f"cut, the criteria, the deliverable, the open findings and the review's instructions "
        f"take about {estimate_tokens(prompt):,} tokens, and a prompt to agent '{reviewer}' may "
        f"take {max(room, 0):,} here (its context_window_tokens less max_tokens and its CLI's "
        "own prompt). Use a reviewer with a larger window (polish.reviewer_agent, or "
        f"agents.available.{reviewer}.context_window_tokens), then resume.",
    )


def _cut(part: Cut, text: str, tokens: int) -> Fitted:
    if part.name != "constraints":
        return truncate_text(text, tokens, keep=part.keep)
    return around_criteria(text, tokens)


def around_criteria(constraints: str, tokens: int) -> Fitted:
    """`constraints` in about `tokens`, its `## Acceptance Criteria` section whole and last,
    the other sections cut from their end; as it is when it fits."""
    if estimate_tokens(constraints) <= tokens:
        return Fitted(text=constraints, truncated=False)
    others, criteria = _split_criteria(constraints)
    if not criteria:
        return truncate_text(constraints, tokens)
    rest = truncate_text(others, max(tokens - estimate_tokens(criteria) - 1, 0))
    return Fitted(text=f"{rest.text.rstrip()}\n\n{criteria}", truncated=True)


def _split_criteria(text: str) -> tuple[str, str]:
    """The constraints without their acceptance criteria section, and that section (heading
    included); the second empty when there is none."""
    lines = text.splitlines(keepends=True)
    start = end = None
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _LEVEL_TWO.match(line.rstrip("\r\n"))
        if heading is None:
            continue
        if start is not None:
            end = index
            break
        if heading_key(heading.group(1)) == heading_key(SECTION):
            start = index
    if start is None:
        return text, ""
    end = len(lines) if end is None else end
    return "".join(lines[:start] + lines[end:]), "".join(lines[start:end]).strip() + "\n"
