"""The guards that read the finding tracker rather than one review's labels: termination,
a reviewer that contradicts itself, rotation (stagnation's plateau) and persistence.

Done needs evidence: the last review within the thresholds, and no critical or medium finding
left that the review merely stopped mentioning while no fix changed its place (*silent*); those
go to the fixer, and a second review silent about the same unchanged place halts, quoting both
reviews, instead of ending `done` — the person decides. The findings still open are counted at
their own severity (a relabel does not lower it) and must be within the thresholds too.

A plateau is the spec's: a total that does not fall over `stagnation_limit` iterations. A count
wobbling by one with no net fall (11, 12, 11) hides nothing and is one; a total still falling
(12, 11, 11) is not, however little it fell, so a loop still making progress goes on. Its
findings persist when a critical or medium finding has been open since the window began, or
when 70 % of those reported have, and rotate otherwise (stagnation: done, the open findings
listed — never with a critical finding open); a plateau twice as long whose findings persist, or
whose every review found a critical (under whatever id), halts (persistence), however many fresh
small findings come and go around them.
"""

from __future__ import annotations

from thoughtforge.models import Severity
from thoughtforge.phases.polish.finding_tracker import Finding
from thoughtforge.phases.polish.guard_view import (
    Seen,
    arrow,
    counts,
    describe,
    fix_of,
    open_counts,
    over,
    over_limits,
)

_QUOTED = 120


def termination(seen: Seen) -> tuple[bool, str]:
    found = counts(seen.last)
    misses = over(seen)
    if misses:
        return False, "not converged: " + ", ".join(misses)
    silent = _silent(seen)
    if silent:
        return False, (
            f"converged counts ({describe(found)}), but this review neither reported nor "
            f"dismissed {_names(silent)}, and no fix changed their place: a clean review of "
            "an unchanged place is no evidence. They go to the fixer, and the next review is "
            "shown them."
        )
    still = over_limits(open_counts(seen), seen.config, factor=1)
    if still:
        return False, (
            f"converged counts ({describe(found)}), but the findings still open, each at its own "
            f"severity, are not: {', '.join(still)}"
        )
    tests = "" if seen.tests_passed is None else " All tests pass."
    return True, f"polish loop converged. {describe(found)}.{tests}{_closed(seen)}"


def contradiction(seen: Seen) -> tuple[bool, str]:
    """Two reviews in a row silent about a finding no fix has shown resolved in between: its
    place unchanged, changed in a way that shows no fix, or (with no place) not confirmed."""
    twice = [f for f in _silent(seen) if (f.silent_since or 0) < seen.last.iteration]
    if not twice:
        return False, "no finding left silent by two reviews of an unchanged place"
    first = twice[0]
    reviews = f"the reviews of iterations {first.silent_since} and {seen.last.iteration}"
    found = f"iteration {first.last_reported}'s review found {_quote(first)}"
    then = (
        f"{_more(twice)}. Fix or dismiss it yourself (say, or edit the deliverable) and resume, "
        "or override."
    )
    since = range(first.last_reported, seen.last.iteration + 1)
    unshown = [
        note for note in first.not_shown if any(note.startswith(f"fix #{n} ") for n in since)
    ]
    if unshown or any(n in since for n in first.addressed_by):
        why = (
            f"{unshown[-1]}, which shows no fix"
            if unshown
            else "a fix changed the document, but the finding names no place: only a quote of "
            "what resolves it shows it fixed"
        )
        return True, (
            f"No evidence that a finding is resolved: {found}; {why}, and {reviews}, shown it with "
            "the changes, neither report it, dismiss it, nor confirm it resolved quoting the text "
            f"that resolves it{then}"
        )
    return True, (
        f"The reviewer contradicts itself: {found}; {reviews}, shown it, of a place no fix "
        f"changed since, neither report it nor dismiss it{_more(twice)}. A silent review is not "
        "evidence that it is gone: fix or dismiss it yourself (say, or edit the deliverable) and "
        "resume, or override."
    )


def stagnation(seen: Seen) -> tuple[bool, str]:
    limit = seen.config.stagnation_limit
    window = seen.entries[-limit:]
    totals = [e.total for e in window]
    if len(window) < limit or max(totals) - min(totals) > 1:
        return False, f"no plateau: last totals {arrow(totals)}, need {limit} within one"
    if totals[-1] < totals[0]:
        return False, f"no plateau: the total is still falling ({arrow(totals)})"
    reported, old = _persisting(seen, window[0].iteration)
    if not reported:
        return False, f"total on a plateau ({arrow(totals)}) but no finding reported to weigh"
    share = f"{len(old)} of {len(reported)} reported open since iteration {window[0].iteration}"
    if _persists(reported, old):
        return (
            False,
            f"total on a plateau ({arrow(totals)}) but the same findings persist ({share})",
        )
    critical = [f for f in seen.tracker.active if f.severity is Severity.CRITICAL]
    if critical:
        return False, (
            f"total on a plateau ({arrow(totals)}) but {_names(critical)} open: a plateau with a "
            "critical finding is not polish enough, whether its findings rotate or not"
        )
    above = ", ".join(over(seen))
    left = seen.tracker.active
    return True, (
        f"polish sufficient: total on a plateau ({arrow(totals)}, {describe(counts(seen.last))}) "
        f"for {limit} iterations while findings rotate ({share}). Converged at a plateau above "
        f"the thresholds ({above}): {len(left)} finding(s) still open."
    )


def persistence(seen: Seen) -> tuple[bool, str]:
    """Twice stagnation's window in which the same findings stay open although the fixes changed
    the deliverable, whatever the total did meanwhile (a reviewer that files new findings under
    old ids, or fewer small ones around them, keeps them open all the same), or in which every
    review found a critical while the total did not fall: more iterations would only repeat
    that."""
    span = 2 * seen.config.stagnation_limit
    window = seen.entries[-span:]
    if len(window) < span:
        return False, f"fewer than {span} iterations to weigh"
    reported, old = _persisting(seen, window[0].iteration)
    share = f"{len(old)} of {len(reported)} reported open since iteration {window[0].iteration}"
    persisting = _persists(reported, old)
    rotating = f"the findings of the last review are not those of the window's start ({share})"
    if not persisting and window[0].total - seen.last.total > 1:
        return (
            False,
            f"the total fell over {span} iterations ({arrow(seen.totals[-span:])}) and {rotating}",
        )
    if not persisting and not _critical_throughout(seen, window[0].iteration):
        return False, rotating
    if not any(fix_of(e) in ("changed", "restored") for e in window):
        return False, "no fix changed the deliverable in the window"
    totals = f"totals {arrow(seen.totals[-span:])}, {describe(counts(seen.last))}"
    if not persisting:
        critical = [f for f in reported if f.severity is Severity.CRITICAL]
        return True, (
            f"Each of the last {span} reviews found a critical finding ({totals}; now "
            f"{_names(critical)}) although the fixes changed the deliverable: however the "
            "reviewer names them, the fixer is not resolving them."
        )
    return True, (
        f"The same findings have stayed open for {span} iterations ({totals}; {share}: "
        f"{_names(old)}) although the fixes changed the deliverable: the fixer is not "
        "resolving them."
    )


def _silent(seen: Seen) -> list[Finding]:
    return [f for f in seen.tracker.silent() if f.serious]


def _persisting(seen: Seen, since: int) -> tuple[list[Finding], list[Finding]]:
    reported = seen.tracker.reported_at(seen.last.iteration)
    return reported, [f for f in reported if f.found_at <= since]


def _critical_throughout(seen: Seen, since: int) -> bool:
    """Whether every review since `since` reported a finding the tracker holds critical, one
    finding or another: a critical that moves or changes its words each round is still there."""
    spans = [
        (f.found_at, f.last_reported)
        for f in seen.tracker.findings
        if f.severity is Severity.CRITICAL
    ]
    return all(
        any(found <= n <= last for found, last in spans)
        for n in range(since, seen.last.iteration + 1)
    )


def _persists(reported: list[Finding], old: list[Finding]) -> bool:
    """A critical or medium finding open all along, or 70 % of those reported: fresh small
    findings around it are no rotation."""
    return any(f.serious for f in old) or (bool(reported) and len(old) * 10 >= len(reported) * 7)


def _closed(seen: Seen) -> str:
    tracker = seen.tracker
    resolved = [f for f in tracker.findings if f.status == "resolved"]
    dismissed = [f for f in tracker.findings if f.status == "dismissed"]
    confirmed = [f for f in resolved if f.resolution == "confirmed"]
    by_fix = len(resolved) - len(confirmed)
    said = f" {by_fix} finding(s) resolved by a fix." if by_fix else ""
    if confirmed:
        said += f" {len(confirmed)} confirmed resolved by a review quoting the deliverable."
    if dismissed:
        said += " Dismissed, not fixed: " + "; ".join(
            f"{f.id} ({f.severity}) {_clip(f.description)} — {_clip(f.dismissal)}"
            for f in dismissed
        ).rstrip(".")
        said += "."
    return said


def _names(findings: list[Finding]) -> str:
    shown = ", ".join(f"{f.id} ({f.severity}{_at(f)})" for f in findings[:5])
    return shown + (f" and {len(findings) - 5} more" if len(findings) > 5 else "")


def _quote(finding: Finding) -> str:
    return f"{finding.id} ({finding.severity}{_at(finding)}): '{_clip(finding.description)}'"


def _more(findings: list[Finding]) -> str:
    return f" (and {_names(findings[1:])})" if len(findings) > 1 else ""


def _at(finding: Finding) -> str:
    return f", {_clip(finding.location, 60)}" if finding.location else ""


def _clip(text: str, limit: int = _QUOTED) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
