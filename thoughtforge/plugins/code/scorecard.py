"""The qualification scorecard every Open Source Discovery recommendation carries in Phase 2.

The spec asks for 8 signals, red flags and a minimum threshold "defined in build spec", which
ThoughtForge does not have; this module is ThoughtForge's definition. The agent gathers the data
and scores; the orchestrator checks the shape and applies the rules, so a recommendation that
fails them is rejected whatever the agent concluded.

Signals, each scored 0–2 with the evidence the agent used (dates, counts, names, links):

- `maintenance`: 2 a release or commit in the last 6 months, 1 in the last 18 months, 0 older.
- `adoption`: 2 at least 1,000 stars, 100k monthly downloads or many dependents; 1 at least 100
  stars or 10k monthly downloads; 0 less.
- `maintainers`: 2 at least 3 people active in the last year, or an organisation; 1 two; 0 one.
- `license`: 2 an OSI licence asking attribution only (MIT, BSD, Apache-2.0); 1 compatible with
  conditions the deliverable must meet (LGPL, MPL); 0 unclear terms.
- `documentation`: 2 reference and guides cover the features used; 1 README-level only; 0 none.
- `testing`: 2 a test suite run by CI on recent commits; 1 tests without CI, or CI failing; 0 none.
- `security`: 2 no open advisories and past ones fixed promptly; 1 past advisories fixed slowly;
  0 repeated advisories.
- `responsiveness`: 2 most issues and pull requests answered within 30 days; 1 within 90 days;
  0 mostly unanswered.

Red flags, any one of which disqualifies: `archived` (archived, deprecated or declared
unmaintained), `no_license`, `incompatible_license` (with the deliverable's licence or use),
`unpatched_vulnerability` (a known vulnerability in the recommended version with no fixed version),
`inactive_sole_maintainer` (one maintainer, inactive for 12 months), `supply_chain_compromise` (a
malicious release or account takeover in the last 2 years).

A recommendation qualifies with no red flag and a total of at least `MIN_TOTAL` of 16.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from thoughtforge.errors import schema_problems

SignalName = Literal[
    "maintenance",
    "adoption",
    "maintainers",
    "license",
    "documentation",
    "testing",
    "security",
    "responsiveness",
]
RedFlagName = Literal[
    "archived",
    "no_license",
    "incompatible_license",
    "unpatched_vulnerability",
    "inactive_sole_maintainer",
    "supply_chain_compromise",
]
SIGNALS: tuple[SignalName, ...] = get_args(SignalName)
MAX_SCORE = 2
MIN_TOTAL = 10

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class Signal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: SignalName
    score: int = Field(ge=0, le=MAX_SCORE)
    evidence: Text


class RedFlag(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: RedFlagName
    evidence: Text


class Scorecard(BaseModel):
    """Every signal scored exactly once; the red flags found (none is an empty list)."""

    model_config = ConfigDict(extra="ignore")

    signals: list[Signal]
    red_flags: list[RedFlag] = []

    @model_validator(mode="after")
    def _every_signal_once(self) -> Scorecard:
        names = [signal.name for signal in self.signals]
        missing = [name for name in SIGNALS if name not in names]
        if missing:
            raise ValueError(f"signals not scored: {', '.join(missing)}")
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"signals scored more than once: {', '.join(repeated)}")
        return self

    @property
    def total(self) -> int:
        return sum(signal.score for signal in self.signals)


class Recommendation(BaseModel):
    """One open-source dependency the agent proposes instead of building the part itself."""

    model_config = ConfigDict(extra="ignore")

    name: Text
    purpose: Text
    version: Text
    scorecard: Scorecard

    @property
    def qualifies(self) -> bool:
        return self.rejection_reason is None

    @property
    def rejection_reason(self) -> str | None:
        """Why the rules reject this recommendation, or None when it qualifies."""
        reasons = [f"red flag {flag.name} ({flag.evidence})" for flag in self.scorecard.red_flags]
        total = self.scorecard.total
        if total < MIN_TOTAL:
            limit = MAX_SCORE * len(SIGNALS)
            reasons.append(f"scored {total} of {limit}, below the minimum of {MIN_TOTAL}")
        return "; ".join(reasons) or None


def validate_recommendations(raw: object) -> tuple[list[Recommendation], list[str]]:
    """The qualifying recommendations, and one reason per rejected one.

    `raw` is the agent's parsed JSON: a list of recommendations or an object holding it under
    "recommendations". A malformed entry is rejected with what is wrong with its shape.
    """
    items = raw.get("recommendations") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        return [], ["the recommendations are not a list"]
    qualifying: list[Recommendation] = []
    rejected: list[str] = []
    for number, item in enumerate(items, start=1):
        label = _label(item, number)
        try:
            recommendation = Recommendation.model_validate(item)
        except ValidationError as exc:
            problems = schema_problems(exc)
            rejected.append(f"{label}: malformed ({problems})")
            continue
        reason = recommendation.rejection_reason
        if reason is None:
            qualifying.append(recommendation)
        else:
            rejected.append(f"{label}: {reason}")
    return qualifying, rejected


def _label(item: object, number: int) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    return f"'{name}'" if isinstance(name, str) and name.strip() else f"recommendation {number}"
