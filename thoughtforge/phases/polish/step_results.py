"""What the polish steps give back: the review as `review.json` stores it (`StoredReview`) and
what a fix did to the deliverable (`FixResult`), each version of the deliverable named by its
content hash (`version_of`). Pure: `fix_result` tells what a document fix did, for
`PolishSteps.fix` and the verdict scoreboard (`bench/verdicts`) alike.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel

from thoughtforge.core.state import FixOutcome, PolishState
from thoughtforge.models import Issue
from thoughtforge.phases.deliverable.markdown_tables import (
    changed_headings,
    same_text,
    section_versions,
    sections,
)
from thoughtforge.phases.polish.guards import version_name
from thoughtforge.phases.polish.review import CheckedConfirmation, Dismissal, TestResults
from thoughtforge.phases.quoted_evidence import Quote


class StoredReview(BaseModel):
    iteration: int
    issues: list[Issue]
    tests: TestResults | None = None
    version: str | None = None
    """The content hash of the deliverable the review read."""
    constraints: str | None = None
    """The content hash of the constraints it judged against (`version_of`)."""
    revision: int | None = None
    """The revision it belongs to (`core.revisions`): a revision always gets its own review."""
    fixed_to: str | None = None
    """The content hash of what its fix made of the deliverable, recorded before the fix is
    committed: a run stopped in between finds the fix, and keeps it."""
    merged: int = 0
    """Duplicate issues of the answer counted once."""
    dismissed: list[Dismissal] = []
    """The open findings it was shown that it dismissed, with why."""
    confirmed: list[CheckedConfirmation] = []
    """The open findings it said are resolved, each quote checked against what it read."""
    evidence: list[Quote] = []
    """The passages it named as meeting each acceptance criterion (checked when used)."""


class FixResult(BaseModel):
    outcome: FixOutcome
    summary: str
    restored: int | None = None
    """With `restored`: the iteration whose fix first made that version (0: as polishing began)."""
    version: str | None = None
    """The content hash of what the fix left, when it changed the deliverable."""
    places: list[str] | None = None
    """Where it changed the deliverable (a document's headings); None: unknown, so anywhere."""
    every_place: list[str] | None = None
    """Every place of the deliverable it left (a document's headings), when known."""
    place_versions: tuple[dict[str, str], dict[str, str]] | None = None
    """Each place's content hash before the fix and after it, when known (`after_fix` reopens a
    finding whose fixed place the fix put back as it was)."""
    documents: tuple[str, str] | None = None
    """The document before the fix and after it, when known (`after_fix` weighs whether its
    change of a finding's place shows a fix)."""

    @property
    def changed_places(self) -> list[str] | None:
        """What the tracker counts as changed: nothing unless the fix was applied."""
        return self.places if self.applied else []

    @property
    def applied(self) -> bool:
        return self.outcome in ("changed", "restored")

    def subject(self, n: int) -> str:
        """The commit's subject: a fix that changed nothing never claims a change."""
        if self.outcome == "none":
            return f"review #{n}: no issues"
        return f"fix #{n}: {self.summary}"


def version_of(text: str) -> str:
    """The content hash of a document, blind to blank lines, line endings and runs of spaces
    (`same_text`): a fix that changes only those changes nothing."""
    normal = "\n".join(filter(None, map(same_text, text.splitlines())))
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def fix_result(
    state: PolishState, old: str, document: str, name: str, stripped_note: str = ""
) -> FixResult:
    """What a fix whose answer the validator accepted as `document` did to `old`, the
    deliverable `name`: nothing, a new version (with the places it changed), or an earlier
    version restored. Pure: `PolishSteps.fix` writes the document, and the verdict scoreboard
    (`bench/verdicts`) judges its simulated fixes by the same function."""
    new = document + "\n"
    if version_of(new) == version_of(old):
        return FixResult(
            outcome="unchanged",
            summary=f"unchanged: the fixer returned {name} as it was{stripped_note}",
        )
    sizes = f"({len(old)} → {len(new)} chars)"
    summary = f"{name} updated {sizes}{stripped_note}"
    result = changed_version(state, version_of(new), summary, f"{name} {sizes}")
    every = [s.heading for s in sections(new)]
    places = changed_headings(old, new) if _WORD.findall(old) != _WORD.findall(new) else []
    versions = (section_versions(old), section_versions(new))
    return result.model_copy(
        update={
            "places": places,
            "every_place": every,
            "place_versions": versions,
            "documents": (old, new),
        }
    )


def changed_version(state: PolishState, version: str, summary: str, what: str) -> FixResult:
    """A fix that changed `what`: a new version (`summary` says how), or one seen before."""
    earlier = state.versions.get(version)
    if earlier is None:
        return FixResult(outcome="changed", summary=summary, version=version)
    return FixResult(
        outcome="restored",
        summary=f"{what} restored to {version_name(earlier)}",
        restored=earlier,
        version=version,
    )


_WORD = re.compile(r"\w+")
"""A fix that changed no word (punctuation, a symbol) changed the document, but no place of it:
it addresses no finding, and a clean review after it is no evidence."""
