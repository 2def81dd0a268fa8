"""The deliverable with ground truth: a plan rendered from a real template, each slot's text a
list of sentences, and the true defects, each with a severity and a place (a slot, so a section
of the template). The simulated agents change the slots; only what the real validator accepts
becomes the deliverable, and the truth with it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from thoughtforge.models import Severity
from thoughtforge.plugins.plan.template import PlanTemplate, SlotKind

SEVERITIES = (Severity.CRITICAL, Severity.MEDIUM, Severity.MINOR)
_WORDS = """venue budget schedule supplier deposit contract timeline owner checklist review
    milestone rollout audience capacity transport catering permit insurance staffing signage
    backup forecast pricing channel launch support migration rehearsal registration"""
_NOUNS = _WORDS.split()
_VERB_WORDS = "confirms tracks books reviews assigns covers limits schedules funds tests"
_VERBS = _VERB_WORDS.split()
_TEAMS = (
    "the organiser",
    "the finance lead",
    "the venue manager",
    "the project lead",
    "the ops team",
)


@dataclass(frozen=True)
class Defect:
    """A true defect: what is wrong, how bad, where; `words` are a reviewer's two wordings of it
    (a labelled pair of the paraphrase sets)."""

    number: int
    severity: Severity
    slot: str
    section: str
    words: tuple[str, str]
    open: bool = True
    gone: bool = False
    """Its place was cut or overwritten, so a reviewer sees less of it (it still holds)."""


@dataclass
class Plan:
    """The deliverable as the simulation knows it: slots of sentences, and the defects."""

    template: PlanTemplate
    name: str
    slots: dict[str, list[str]]
    defects: list[Defect] = field(default_factory=list)
    edits: int = 0

    def text(self) -> str:
        return self.template.render(self.name, {k: " ".join(v) for k, v in self.slots.items()})

    def copy(self) -> Plan:
        return Plan(
            self.template,
            self.name,
            {k: list(v) for k, v in self.slots.items()},
            list(self.defects),
            self.edits,
        )

    def section_of(self, slot: str) -> str:
        return next(s.section for s in self.template.slots if s.id == slot)

    def open_defects(self) -> list[Defect]:
        return [d for d in self.defects if d.open]

    def true_counts(self) -> dict[Severity, int]:
        return {s: sum(d.severity is s for d in self.open_defects()) for s in SEVERITIES}

    def sentence(self, rng: random.Random) -> str:
        """A fresh, plausible sentence (each edit numbered, so no two versions collide)."""
        self.edits += 1
        noun, other = rng.sample(_NOUNS, 2)
        return (
            f"{rng.choice(_TEAMS).capitalize()} {rng.choice(_VERBS)} the {noun} and the {other} "
            f"by week {self.edits + 2}."
        )

    def flaw(self, rng: random.Random) -> str:
        noun = rng.choice(_NOUNS)
        return f"The {noun} step {self.edits + 1} is described once, without a date or a check."

    def set_defect(self, defect: Defect) -> None:
        self.defects = [defect if d.number == defect.number else d for d in self.defects]

    def add_defect(self, rng: random.Random, severity: Severity, words: tuple[str, str]) -> Defect:
        """A new true defect in a random slot (a fix that breaks something)."""
        slot = rng.choice(list(self.slots))
        defect = Defect(len(self.defects) + 1, severity, slot, self.section_of(slot), words)
        self.defects.append(defect)
        self.edits += 1
        self.slots[slot].append(self.flaw(rng))
        return defect


def new_plan(
    template: PlanTemplate,
    rng: random.Random,
    defects: int,
    severity_mix: tuple[float, float, float],
    pairs: list[tuple[str, str]],
) -> Plan:
    """A filled plan with `defects` true defects, severities drawn from `severity_mix`."""
    plan = Plan(template, "Simulated project", {})
    for slot in template.slots:
        count = 2 if slot.kind is SlotKind.CELL else 3
        plan.slots[slot.id] = [plan.sentence(rng) for _ in range(count)]
    for _ in range(defects):
        severity = rng.choices(SEVERITIES, weights=severity_mix)[0]
        plan.add_defect(rng, severity, rng.choice(pairs))
    return plan


def fixed(defect: Defect) -> Defect:
    return replace(defect, open=False)
