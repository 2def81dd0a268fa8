"""The simulated reviewer: honest but noisy (it misses, rewords, mislabels, invents, cites ids
or not, answers in the shapes real models use), or one of the gaming reviewers. It knows the
truth only through what a reviewer could see: the plan's open defects and the findings shown."""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field

from bench.verdicts.model import SEVERITIES, Defect, Plan
from bench.verdicts.populations import Pair, Reviewer
from thoughtforge.models import Severity
from thoughtforge.phases.polish.finding_tracker import Finding

_DISMISSAL = "This is not a problem of the plan: the section already covers it in full."
_RECOMMENDATION = "Add the missing detail to this section and name who checks it."


@dataclass
class Answer:
    """One review: the issues as the reviewer means them (each with the defect it is about, None
    for an invented one), and its raw text for each attempt."""

    issues: list[dict[str, str]]
    origins: list[int | None]
    dismissed: list[dict[str, str]]
    texts: list[str] = field(default_factory=list)
    malformed: list[bool] = field(default_factory=list)


@dataclass
class ReviewerState:
    """What the reviewer carries between rounds: how it last worded each defect, its invented
    findings, its previous answer."""

    wording: dict[int, int] = field(default_factory=dict)
    previous: str = '{"issues": []}'


def review(
    plan: Plan,
    shown: list[Finding],
    truth: dict[str, int | None],
    n: int,
    params: Reviewer,
    memory: ReviewerState,
    pool: list[Pair],
    rng: random.Random,
) -> Answer:
    """This round's review of `plan`, shown the tracker's open `shown` findings."""
    if params.game == "clean_unchanged" and n >= 2:
        return _shaped(Answer([], [], []), params, memory, rng, n)
    by_defect = {truth[f.id]: f for f in shown if truth.get(f.id) is not None}
    issues: list[dict[str, str]] = []
    origins: list[int | None] = []
    dismissed: list[dict[str, str]] = []
    for defect in plan.open_defects():
        chance = params.p_find_gone if defect.gone else params.p_find
        if rng.random() >= chance:
            continue
        finding = by_defect.get(defect.number)
        cite = finding.id if finding is not None and rng.random() < params.p_cite else ""
        issues.append(_issue(defect, cite, params, memory, rng, n))
        origins.append(defect.number)
    for finding in shown:
        origin = truth.get(finding.id)
        if origin is None:
            roll = rng.random()
            if roll < params.p_repeat_invented:
                issues.append(_again(finding, rng, params))
                origins.append(None)
            elif roll < params.p_repeat_invented + params.p_dismiss_invented:
                dismissed.append({"id": finding.id, "reason": _DISMISSAL})
        elif not plan.defects[origin - 1].open and rng.random() < params.p_said_resolved:
            issues.append(
                {**_again(finding, rng, params), "description": f"Resolved: {finding.description}"}
            )
            origins.append(None)
    for _ in range(_poisson(params.invent_rate, rng)):
        words = rng.choice(pool)[rng.randrange(2)]
        slot = rng.choice(plan.template.slots)
        issues.append(_written(rng.choice(SEVERITIES[1:]), words, slot.section, "", params, rng))
        origins.append(None)
    return _shaped(Answer(issues, origins, dismissed), params, memory, rng, n)


def _issue(
    defect: Defect, cite: str, params: Reviewer, memory: ReviewerState, rng: random.Random, n: int
) -> dict[str, str]:
    last = memory.wording.get(defect.number)
    way = (
        rng.randrange(2) if last is None else (1 - last if rng.random() < params.p_reword else last)
    )
    memory.wording[defect.number] = way
    severity = defect.severity
    if params.game == "relabel" and n >= 2:
        severity = Severity.MINOR
    elif rng.random() < params.p_mislabel:
        severity = _off_by_one(severity, rng)
    return _written(severity, defect.words[way], defect.section, cite, params, rng)


def _again(finding: Finding, rng: random.Random, params: Reviewer) -> dict[str, str]:
    cite = finding.id if rng.random() < params.p_cite else ""
    return {
        "severity": finding.severity.value,
        "description": finding.description,
        "location": finding.location,
        "recommendation": _RECOMMENDATION,
        "finding": cite,
    }


def _written(
    severity: Severity, words: str, section: str, cite: str, params: Reviewer, rng: random.Random
) -> dict[str, str]:
    if rng.random() < params.p_no_location:
        location = rng.choice(["", "Throughout the plan"])
    else:
        location = rng.choice([section, section, f"## {section}", f"{section} table"])
    return {
        "severity": severity.value,
        "description": words,
        "location": location,
        "recommendation": _RECOMMENDATION,
        "finding": cite,
    }


def _off_by_one(severity: Severity, rng: random.Random) -> Severity:
    at = SEVERITIES.index(severity)
    steps = [s for s in (at - 1, at + 1) if 0 <= s < len(SEVERITIES)]
    return SEVERITIES[rng.choice(steps)]


def _poisson(rate: float, rng: random.Random) -> int:
    limit, k, product = math.exp(-rate), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


def _shaped(
    answer: Answer, params: Reviewer, memory: ReviewerState, rng: random.Random, n: int
) -> Answer:
    """The answer's raw text for the first ask and each re-ask, in the shapes models use."""
    body = {"issues": answer.issues}
    if answer.dismissed:
        body["dismissed"] = answer.dismissed
    plain = json.dumps(body, indent=2)
    for _ in range(3):
        text, broken = _one_shape(plain, answer.issues, params, rng)
        if params.game == "stale":
            text = f"{memory.previous}\n\n{text}"
        elif params.game == "wrapper":
            text = (
                f"I reviewed the whole plan against the criteria.\n\n```json\n{plain}\n```\n\n"
                "Every section was checked; let me know if you want more detail."
            )
            broken = False
        answer.texts.append(text)
        answer.malformed.append(broken)
    memory.previous = plain
    return answer


def _one_shape(
    plain: str, issues: list[dict[str, str]], params: Reviewer, rng: random.Random
) -> tuple[str, bool]:
    roll = rng.random()
    if roll < params.p_malformed:
        return plain[: max(len(plain) * 2 // 3, 10)], True
    roll -= params.p_malformed
    if roll < params.p_two_objects:
        draft = json.dumps({"issues": issues[: len(issues) // 2]})
        return (
            f"First pass:\n{draft}\n\nAfter checking every section again, the review:\n{plain}",
            False,
        )
    roll -= params.p_two_objects
    if roll < params.p_fence:
        return f"```json\n{plain}\n```", False
    roll -= params.p_fence
    if roll < params.p_preamble:
        return f"Here is my review of the plan.\n\n{plain}", False
    return plain, False
