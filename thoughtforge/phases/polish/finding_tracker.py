"""The finding tracker: every finding a review made, with an identity that survives rewording
and relabelling, and its life across iterations. Stored in `polish_ledger.json` (the file keeps
its first name, which projects already have; "ledger" is the spend's word now).

An issue is a known finding when it names the finding's id, as the reviewer was shown it, at a
place that can be the finding's (the reviewer's own identity, which no rewording breaks, and
which can only ever keep a finding open); else when its words say so (`issue_matching`).

A finding is *open* when found. A fix that changes its place (its `location`; `places`) in a way
that shows (`fix_evidence`: not deleting what it is about, not unrelated text, not only a date or
a revision stamp) makes it *addressed*; a later review, shown it, that does not report it again
confirms it gone: *resolved*. A review shown a finding and the fixes' changes may confirm it
resolved, quoting the text that resolves it (checked to be in the deliverable): the one way a
finding without a location closes once the reviewer confirms anything (one that never confirms
keeps the older rule). A review may also *dismiss* it, saying why. Nothing else closes a finding:
a review that stops mentioning a finding no fix has shown at its place leaves it open (*silent*),
and it goes to the fixer with the review's own issues; a second such review halts the loop,
quoting both (`findings_guards`). A finding reported again after a fix is open again.

Severity belongs to the finding: the highest any review gave it while it was open. A reviewer
that relabels a critical finding minor does not make it minor (it is recorded, in `relabelled`);
one that raises it raises it at once.

Pure functions of the tracker, the review and the fix, so the tracker of iteration N follows from
that of N−1 and the stored review; written with the polish state, crash-safe. A new tracker shares
the findings no step changed with the one it came from (each step copies what it changes).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from thoughtforge.core.atomic_write import write_text_atomic
from thoughtforge.core.own_files import read_own_text
from thoughtforge.core.staging import POLISH_LEDGER_FILE
from thoughtforge.errors import StateFileError
from thoughtforge.models import Issue, Severity
from thoughtforge.phases.polish.fix_evidence import NOT_SHOWN, FixEvidence
from thoughtforge.phases.polish.issue_matching import match_findings
from thoughtforge.phases.polish.places import at_places, place_words, same_place, unplaced
from thoughtforge.phases.polish.review import CheckedConfirmation, Dismissal

TRACKER_FILE = POLISH_LEDGER_FILE

Status = Literal["open", "addressed", "resolved", "dismissed"]
Resolution = Literal["", "place", "unplaced", "confirmed"]
"""Why it was resolved: a fix showed at its place (or, with none, changed the document and the
reviewer confirms nothing) and a later review did not report it; a review confirmed it."""
_RANK = {Severity.CRITICAL: 0, Severity.MEDIUM: 1, Severity.MINOR: 2}
_SERIOUS = (Severity.CRITICAL, Severity.MEDIUM)
_ACTIVE = ("open", "addressed")
_RELABELS_KEPT = 5
REOPEN_WINDOW = 1
"""A finding closed this many iterations ago or less is open again when reported again; an older
one reported again is a new finding (which bounds what each review is matched against)."""


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    severity: Severity
    description: str
    """As the latest review that reported it worded it."""
    location: str = ""
    recommendation: str = ""
    found_at: int
    last_reported: int
    status: Status = "open"
    addressed_by: list[int] = []
    """The iterations whose fix changed its place."""
    resolved_at: int | None = None
    dismissed_at: int | None = None
    dismissal: str = ""
    silent_since: int | None = None
    """The first review since it was last reported that did not report it, its place unchanged."""
    relabelled: list[str] = []
    fixed_from: str | None = None
    """The content hash of its place as a fix first changed it: a later fix that puts that text
    back undoes the fix, and the finding is open again."""
    undone_by: list[int] = []
    """The iterations whose fix put its place back as it was when it was found."""
    fixed_at: str = ""
    """The place whose change addressed it ("" for a finding without a location)."""
    not_shown: list[str] = []
    """What the fixes that changed its place without showing a fix did ("fix #2 deleted …")."""
    resolution: Resolution = ""
    quote: str = ""
    """The text of the deliverable a review quoted when it confirmed it resolved."""

    @property
    def active(self) -> bool:
        return self.status in _ACTIVE

    @property
    def serious(self) -> bool:
        return self.severity in _SERIOUS

    def age(self, iteration: int) -> int:
        """How many reviews it has been open for, up to `iteration`."""
        return iteration - self.found_at + 1

    def as_issue(self) -> Issue:
        return Issue.model_construct(
            severity=self.severity,
            description=self.description,
            location=self.location,
            recommendation=self.recommendation,
        )


class FindingTracker(BaseModel):
    model_config = ConfigDict(extra="forbid")

    findings: list[Finding] = []
    reviewed: int = 0
    """The iteration of the last review applied."""

    @property
    def active(self) -> list[Finding]:
        return [f for f in self.findings if f.status in _ACTIVE]

    def reported_at(self, iteration: int) -> list[Finding]:
        return [f for f in self.findings if f.status in _ACTIVE and f.last_reported == iteration]

    def silent(self) -> list[Finding]:
        """Active findings the last review did not report and no fix has addressed since."""
        return [f for f in self.findings if f.status == "open" and f.silent_since is not None]

    def new_at(self, iteration: int) -> list[Finding]:
        return [f for f in self.findings if f.found_at == iteration]

    def get(self, finding_id: str) -> Finding | None:
        return next((f for f in self.findings if f.id == finding_id), None)


def after_review(
    tracker: FindingTracker,
    iteration: int,
    issues: list[Issue],
    dismissals: list[Dismissal],
    confirmations: list[CheckedConfirmation] | None = None,
) -> FindingTracker:
    """The tracker once review `iteration` (shown the active findings and the fixes' changes) is
    taken in; `confirmations` are the findings it says are resolved, each quote checked."""
    recent = iteration - REOPEN_WINDOW
    findings = list(tracker.findings)
    active: list[int] = []
    closed: list[int] = []
    for n, finding in enumerate(findings):
        if finding.status in _ACTIVE:
            active.append(n)
        elif _closed_at(finding) >= recent:
            closed.append(n)
    reported: set[int] = set()
    identified, also = _identify(issues, findings, [*active, *closed])
    for issue, known in zip(issues, identified, strict=True):
        if known is None:
            findings.append(_new(len(findings) + 1, issue, iteration))
        else:
            findings[known] = _report(findings[known], issue, iteration)
            reported.add(known)
    for n in also:
        findings[n] = _report(findings[n], findings[n].as_issue(), iteration)
        reported.add(n)
    said = {d.id.strip().upper(): d.reason.strip() for d in dismissals if d.reason.strip()}
    confirms = confirmations or []
    quoted = {c.id.strip().upper(): c.quote for c in confirms if c.found}
    for n in active:
        finding = findings[n]
        if n in reported:
            continue
        if finding.id in said:
            update: dict[str, object] = {
                "status": "dismissed",
                "dismissed_at": iteration,
                "dismissal": said[finding.id],
            }
        elif finding.id in quoted and (finding.addressed_by or finding.not_shown):
            update = _resolved(iteration, "confirmed", quote=quoted[finding.id])
        elif finding.status == "addressed" and finding.fixed_at:
            update = _resolved(iteration, "place")
        elif finding.status == "addressed" and not confirms:
            update = _resolved(iteration, "unplaced")
        elif finding.status == "addressed" or finding.silent_since is None:
            update = {"status": "open", "silent_since": iteration}
        else:
            continue
        findings[n] = _changed(finding, update)
    return FindingTracker.model_construct(findings=findings, reviewed=iteration)


def _resolved(iteration: int, resolution: Resolution, quote: str = "") -> dict[str, object]:
    return {
        "status": "resolved",
        "resolved_at": iteration,
        "resolution": resolution,
        "quote": quote,
        "silent_since": None,
    }


def _identify(
    issues: list[Issue], findings: list[Finding], known: list[int]
) -> tuple[list[int | None], list[int]]:
    """For each issue, the index of the known finding it is: the first it cites, if that one is
    at a place the issue can be and no earlier issue cited it; else the one its words match. And
    the other findings an issue citing several cites ("F1, F2": one issue standing for both),
    which it reports too."""
    found: list[int | None] = [None] * len(issues)
    also: list[int] = []
    citing = [at for at, issue in enumerate(issues) if issue.finding]
    by_id = {findings[n].id: n for n in known} if citing else {}
    for at in citing:
        for cited in _FINDING_ID.findall(issues[at].finding.upper()):
            n = by_id.get(cited)
            if n is None or not same_place(issues[at].location, findings[n].location):
                continue
            if found[at] is None:
                found[at] = n
            else:
                also.append(n)
            del by_id[cited]
    taken = {n for n in found if n is not None} | set(also)
    rest = [n for n in known if n not in taken] if taken else known
    uncited = [at for at, n in enumerate(found) if n is None]
    words = match_findings([issues[at] for at in uncited], [findings[n] for n in rest])
    for at, m in zip(uncited, words, strict=True):
        found[at] = None if m is None else rest[m]
    return found, also


_FINDING_ID = re.compile(r"\bF\d+\b")


def after_fix(
    tracker: FindingTracker,
    iteration: int,
    places: list[str] | None,
    every: list[str] | None = None,
    versions: tuple[dict[str, str], dict[str, str]] | None = None,
    documents: tuple[str, str] | None = None,
) -> FindingTracker:
    """The tracker once fix `iteration` changed `places` (None: unknown, so every place; an
    unchanged or refused fix changed none) of the deliverable's `every` places (a location that
    names none of them, "the vendors", is addressed by any change). With each place's content
    `versions` before and after the fix, a closed finding whose place the fix put back as it
    was when a fix first changed it is open again: its fix was undone. With the whole
    `documents` before and after, a change of a finding's place (the whole document for one
    without a location) addresses it only when it shows (`fix_evidence`)."""
    before, after = versions or ({}, {})
    evidence = FixEvidence(*documents) if documents is not None else None
    findings = []
    for finding in tracker.findings:
        undoable = finding.status == "resolved" and finding.fixed_from is not None
        if not (finding.status == "open" or undoable) or not at_places(
            finding.location, places, every
        ):
            findings.append(finding)
            continue
        place = _one_place(finding.location, after) if after else None
        fixed_at = "" if unplaced(finding.location, every) else (place or finding.location)
        how = "shows" if evidence is None else evidence.of(finding.as_issue(), place)
        if finding.status == "open" and how != "shows":
            note = f"fix #{iteration} {NOT_SHOWN[how]}"
            finding = _changed(finding, {"not_shown": [*finding.not_shown, note][-_RELABELS_KEPT:]})
        elif finding.status == "open":
            finding = _changed(
                finding,
                {
                    "status": "addressed",
                    "addressed_by": [*finding.addressed_by, iteration],
                    "silent_since": None,
                    "fixed_from": finding.fixed_from or (place and before.get(place)),
                    "fixed_at": fixed_at,
                },
            )
        elif place is not None and after.get(place) == finding.fixed_from:
            finding = _changed(
                finding,
                {
                    "status": "open",
                    "resolved_at": None,
                    "undone_by": [*finding.undone_by, iteration],
                },
            )
        findings.append(finding)
    return FindingTracker.model_construct(findings=findings, reviewed=tracker.reviewed)


def _one_place(location: str, places: dict[str, str]) -> str | None:
    """The one place of `places` a location names, if it names exactly one."""
    named = [place for place in places if place_words(place) & place_words(location)]
    return named[0] if len(named) == 1 else None


def after_resume(tracker: FindingTracker) -> FindingTracker:
    """The tracker when the person resumes a halted loop: they may have edited the deliverable or
    said what to do, so a silence the halt quoted counts afresh from the next review."""
    findings = [
        f.model_copy(update={"silent_since": None}) if f.silent_since is not None else f
        for f in tracker.findings
    ]
    return FindingTracker.model_construct(findings=findings, reviewed=tracker.reviewed)


def read_tracker(project_dir: Path) -> FindingTracker:
    """The tracker as recorded; none yet before the first iteration."""
    path = project_dir / TRACKER_FILE
    if not path.exists():
        return FindingTracker()
    try:
        return FindingTracker.model_validate_json(read_own_text(path))
    except (OSError, UnicodeDecodeError, ValidationError) as exc:
        raise StateFileError(path, f"cannot be read: {str(exc)[:300]}") from None


def write_tracker(project_dir: Path, tracker: FindingTracker) -> None:
    write_text_atomic(project_dir / TRACKER_FILE, tracker.model_dump_json(indent=2) + "\n")


def _report(reported: Finding, issue: Issue, iteration: int) -> Finding:
    """A copy of the finding, reported again by `issue`."""
    update: dict[str, object] = {
        "description": issue.description,
        "location": issue.location or reported.location,
        "recommendation": issue.recommendation or reported.recommendation,
        "last_reported": iteration,
        "silent_since": None,
    }
    if _RANK[issue.severity] < _RANK[reported.severity]:
        update["severity"] = issue.severity
    elif issue.severity is not reported.severity:
        said = f"iteration {iteration} called it {issue.severity}; kept {reported.severity}"
        update["relabelled"] = [*reported.relabelled, said][-_RELABELS_KEPT:]
    if reported.status != "open":  # addressed, or closed and reported again
        update.update(status="open", resolved_at=None, dismissed_at=None, resolution="", quote="")
    return _changed(reported, update)


def _closed_at(finding: Finding) -> int:
    return finding.resolved_at or finding.dismissed_at or 0


def _new(number: int, issue: Issue, iteration: int) -> Finding:
    """Built from an issue already validated (a review may hold a thousand): a copy of a blank
    finding costs less than constructing one."""
    return _changed(
        _BLANK,
        {
            "id": f"F{number}",
            "severity": issue.severity,
            "description": issue.description,
            "location": issue.location,
            "recommendation": issue.recommendation,
            "found_at": iteration,
            "last_reported": iteration,
            "addressed_by": [],
            "relabelled": [],
            "undone_by": [],
            "not_shown": [],
        },
    )


def _changed(finding: Finding, update: dict[str, object]) -> Finding:
    """A copy of `finding` with `update`, values already valid: what `model_copy(update=)`
    does (and `model_construct` sets), without its generic steps; a review may change a thousand
    findings, and a fix as many."""
    copied = Finding.__new__(Finding)
    _set(copied, "__dict__", {**finding.__dict__, **update})
    _set(copied, "__pydantic_fields_set__", finding.__pydantic_fields_set__ | update.keys())
    _set(copied, "__pydantic_extra__", None)
    _set(copied, "__pydantic_private__", None)
    return copied


_set = object.__setattr__
_BLANK = Finding.model_construct(
    _fields_set=set(Finding.model_fields),
    id="",
    severity=Severity.MINOR,
    description="",
    found_at=0,
    last_reported=0,
)
