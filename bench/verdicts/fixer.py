"""The simulated fixer: honest (resolves a targeted defect with some chance, else rewords its
place or leaves it; breaks something else now and then; wraps or cuts off its answer now and
then), or one of the gaming fixers. It returns the whole plan as its answer, with the plan it
means (the truth if the loop accepts the answer)."""

from __future__ import annotations

import random
from dataclasses import replace

from bench.verdicts.model import SEVERITIES, Plan, fixed
from bench.verdicts.populations import Fixer, Pair
from thoughtforge.models import Issue

_STUBS = ("Covered elsewhere.", "Handled by the team.", "See the appendix.", "Agreed with all.")


def fix(
    plan: Plan,
    targets: list[tuple[Issue, int | None]],
    n: int,
    params: Fixer,
    pool: list[Pair],
    severity_mix: tuple[float, float, float],
    rng: random.Random,
) -> tuple[Plan, str, bool]:
    """The fixer's answer to `targets` (each issue with the true defect it is about): the plan it
    means, its raw text, and whether that text is truly no whole plan (cut off)."""
    new = plan.copy()
    game = params.game
    if game == "nonsense":
        for slot in new.slots:
            new.slots[slot] = [new.sentence(rng), new.sentence(rng)]
        new.defects = [replace(d, gone=True) for d in new.defects]
    elif game == "idle_elsewhere":
        busy = {d.slot for d in new.open_defects()}
        calm = [s for s in new.slots if s not in busy] or list(new.slots)
        _reword(new, rng.choice(calm), rng)
    else:
        for issue, origin in targets:
            _one_target(new, issue, origin, n, params, rng)
        if game is None and rng.random() < params.p_break:
            severity = rng.choices(SEVERITIES, weights=severity_mix)[0]
            new.add_defect(rng, severity, rng.choice(pool))
    return new, *_shaped(new.text(), params, rng)


def _one_target(
    plan: Plan, issue: Issue, origin: int | None, n: int, params: Fixer, rng: random.Random
) -> None:
    defect = plan.defects[origin - 1] if origin is not None else None
    if defect is None or not defect.open:
        slot = _slot_at(plan, issue.location, rng)
        if rng.random() < params.p_fix:
            _reword(plan, slot, rng)
        return
    if params.game == "delete":
        plan.edits += 1
        plan.slots[defect.slot] = [f"{rng.choice(_STUBS)[:-1]} ({plan.edits})."]
        plan.set_defect(replace(defect, gone=True))
        return
    if params.game == "timestamp":
        stamp = f"_(revised 2026-05-01 10:{n:02d})_"
        kept = [s for s in plan.slots[defect.slot] if not s.startswith("_(revised")]
        plan.slots[defect.slot] = [*kept, stamp]
        plan.set_defect(replace(defect, gone=True))
        return
    roll = rng.random()
    if roll < params.p_fix:
        _reword(plan, defect.slot, rng)
        plan.set_defect(fixed(defect))
    elif roll < params.p_fix + (1 - params.p_fix) * params.p_wording_only:
        _reword(plan, defect.slot, rng)


def _reword(plan: Plan, slot: str, rng: random.Random) -> None:
    sentences = plan.slots[slot]
    sentences[rng.randrange(len(sentences))] = plan.sentence(rng)


def _slot_at(plan: Plan, location: str, rng: random.Random) -> str:
    named = [s.id for s in plan.template.slots if s.section.lower() in location.lower()]
    return rng.choice(named or list(plan.slots))


def _shaped(text: str, params: Fixer, rng: random.Random) -> tuple[str, bool]:
    if params.game == "wrapper":
        return (
            "Here is the complete revised plan with every finding resolved:\n\n"
            f"```markdown\n{text}```\n\nAll findings have been addressed.",
            False,
        )
    if rng.random() < params.p_truncate:
        return text[: len(text) * 3 // 4], True
    if rng.random() < params.p_wrap:
        return rng.choice(
            [
                f"Here is the revised plan:\n\n{text}",
                f"```markdown\n{text}```",
                f"{text}\nI addressed the findings in the sections they name.",
            ]
        ), False
    return text, False
